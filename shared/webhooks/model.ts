import { createHash } from 'node:crypto';
import type { ScanRecord, TriageRule } from '../results/model.ts';

// The record of a webhook subscription (docs/WEBHOOKS.md), as stored.

export interface WebhookRecord {
  webhookId: string;
  organizationId: string;
  name: string;
  /** The receiver's URL, sealed (shared/secrets/sealing.ts): a Slack or Teams URL is itself a credential. */
  sealedUrl: string;
  /** What the API shows of the URL: scheme, host and path (the query and, for Slack and Teams, the path hidden). */
  displayUrl: string;
  events: WebhookEvent[];
  format: WebhookFormat;
  /** Only events of these applications (empty: every application the scope allows). */
  applicationIds: string[];
  /** Only events of the applications this team owns. */
  teamId?: string;
  enabled: boolean;
  /** The HMAC signing secret, sealed. */
  sealedSecret: string;
  /** A fixed header sent with every delivery (StackHawk's custom header): its name, and its value sealed. */
  customHeader?: { name: string; sealedValue: string };
  createdAt: number;
  updatedAt: number;
  /** Incremented by every change: writes are conditional on the revision they read. */
  revision: number;
}

// The events a webhook can subscribe to (docs/WEBHOOKS.md, Events).
export const WEBHOOK_EVENTS = [
  'scanStarted',
  'scanCompleted',
  'scanErrored',
  'findingStatusChanged',
  'riskAcceptanceExpired',
  'findingOverdue',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_FORMATS = ['json', 'slack', 'teams'] as const;

export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export interface OutboxEvent {
  eventId: string;
  type: WebhookEvent;
  organizationId: string;
  applicationId: string;
  /** The application's owning team when the event happened (team-scoped subscriptions match on it). */
  teamId?: string;
  /** Milliseconds since the epoch. */
  occurredAt: number;
  /** What the delivered payload is built from: ids, names and figures (small; the relay reads the rest). */
  data: Record<string, unknown>;
}

/** A UUID derived from `name`: the same change always makes the same event id (a retried write cannot make two). */
export function derivedId(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface ApplicationContext {
  name: string;
  teamId?: string;
}

/** The id of a finding's findingOverdue for the overdue episode that started at `episode`. */
export const overdueEventId = (environmentId: string, findingHash: string, episode: number) =>
  derivedId(`findingOverdue:${environmentId}:${findingHash}:${episode}`);

/** Characters of a receiver's answer kept per attempt. */
export const RESPONSE_EXCERPT_CHARS = 512;

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'RETRYING' | 'DEAD' | 'DROPPED';

export interface DeliveryAttempt {
  /** ms since the epoch. */
  at: number;
  /** The receiver's HTTP status (0: no answer). */
  statusCode: number;
  latencyMs: number;
  /** Why there was no 2xx answer: a refused address, a timeout, a connection error. */
  error?: string;
  responseExcerpt: string;
  /** The wait the receiver asked for with Retry-After (a 429 or 503), which the next attempt honours. */
  retryAfterMs?: number;
}

export interface DeliveryRecord {
  deliveryId: string;
  webhookId: string;
  organizationId: string;
  eventId: string;
  event: string;
  createdAt: number;
  body: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  attemptCount: number;
  deliveredAt?: number;
  /** A test delivery (testWebhook): sent even while its subscription is disabled. */
  test?: boolean;
  /** The delivery this one sends again (redeliverWebhookDelivery): the same event and body. */
  redeliveryOf?: string;
}

/** The key a queue message carries to find its delivery. */
export interface DeliveryRef {
  webhookId: string;
  createdAt: number;
  deliveryId: string;
}

/** Deliveries listWebhookDeliveries shows. */
export const DELIVERIES_LISTED = 50;

/** The API's view of a delivery (its body, up to 200 KB, is left out of the list). */
export function toDelivery(delivery: DeliveryRecord) {
  return {
    id: delivery.deliveryId,
    webhookId: delivery.webhookId,
    eventId: delivery.eventId,
    event: delivery.event,
    status: delivery.status,
    createdAt: new Date(delivery.createdAt).toISOString(),
    deliveredAt: delivery.deliveredAt ? new Date(delivery.deliveredAt).toISOString() : '',
    attemptCount: delivery.attemptCount,
    test: delivery.test ?? false,
    redeliveryOf: delivery.redeliveryOf ?? '',
    attempts: delivery.attempts.map((a) => ({
      at: new Date(a.at).toISOString(),
      statusCode: a.statusCode,
      latencyMs: a.latencyMs,
      error: a.error ?? '',
      responseExcerpt: a.responseExcerpt,
      retryAfterMs: a.retryAfterMs ?? 0,
    })),
  };
}

// The events webhooks deliver, and the outbox items that record them (docs/WEBHOOKS.md, Events). An event is a
// projection of a change, built as a pure function of the entity before and after it and committed in the same
// transaction: the change never lands without its event, nor an event without its change, and nothing about the
// receivers (down, slow) can slow or fail the write. Delivery happens afterwards (shared/delivery/relay.ts).

const scanData = (scan: ScanRecord, app: ApplicationContext) => ({
  scanId: scan.scanId,
  applicationId: scan.applicationId,
  appName: app.name,
  envId: scan.environmentId,
  envName: scan.envName,
  status: scan.status,
  hawkscanVersion: scan.hawkscanVersion,
  host: scan.host,
  startedAt: scan.startedAt,
});

/**
 * The events of a scan's change from `before` (undefined: it did not exist) to `after`: scanStarted when it comes
 * into being, scanCompleted or scanErrored when it ends (an import does both at once).
 */
export function scanEvents(before: ScanRecord | undefined, after: ScanRecord, app: ApplicationContext): OutboxEvent[] {
  const events: OutboxEvent[] = [];
  const base = { organizationId: after.organizationId, applicationId: after.applicationId, teamId: app.teamId };
  if (!before)
    events.push({
      ...base,
      eventId: derivedId(`scanStarted:${after.scanId}`),
      type: 'scanStarted',
      occurredAt: after.startedAt,
      data: scanData({ ...after, status: 'STARTED' }, app),
    });
  if ((before?.status ?? 'STARTED') === 'STARTED' && after.status !== 'STARTED') {
    const type = after.status === 'COMPLETED' ? 'scanCompleted' : 'scanErrored';
    events.push({
      ...base,
      eventId: derivedId(`${type}:${after.scanId}`),
      type,
      occurredAt: after.completedAt ?? after.startedAt,
      data: {
        ...scanData(after, app),
        completedAt: after.completedAt,
        durationSeconds: after.durationSeconds ?? 0,
        urlCount: after.urlCount,
      },
    });
  }
  return events;
}

/** Where a triage event's finding is, and what it is: the context its events carry. */
export interface FindingEventContext {
  organizationId: string;
  applicationId: string;
  environmentId: string;
  app: ApplicationContext;
  envName: string;
  finding: { pluginId: string; severity: string; requestMethod: string; path: string };
}

/** An event of a triage rule's change: its id from the finding and the rule's version, its data from `context`. */
function triageEvent(
  type: 'findingStatusChanged' | 'riskAcceptanceExpired',
  after: TriageRule,
  context: FindingEventContext,
  data: Record<string, unknown>,
): OutboxEvent {
  return {
    eventId: derivedId(`${type}:${context.environmentId}:${after.findingHash}:${after.version}`),
    type,
    organizationId: context.organizationId,
    applicationId: context.applicationId,
    teamId: context.app.teamId,
    occurredAt: after.updatedAt,
    data: {
      applicationId: context.applicationId,
      appName: context.app.name,
      envId: context.environmentId,
      envName: context.envName,
      findingHash: after.findingHash,
      ...context.finding,
      ...data,
    },
  };
}

/** findingStatusChanged when a triage changes a finding's status (a comment on a triaged finding keeps it: no event). */
export function findingEvents(
  before: TriageRule | undefined,
  after: TriageRule,
  context: FindingEventContext,
): OutboxEvent[] {
  const from = before?.status ?? 'UNKNOWN';
  if (from === after.status) return [];
  return [
    triageEvent('findingStatusChanged', after, context, {
      oldStatus: from,
      newStatus: after.status,
      note: after.note,
      userId: after.userId,
    }),
  ];
}

/**
 * riskAcceptanceExpired when an acceptance's expiry made the finding untriaged again (docs/GOVERNANCE.md): who
 * accepted it, when, why and until when.
 */
export function riskExpiryEvents(before: TriageRule, after: TriageRule, context: FindingEventContext): OutboxEvent[] {
  return [
    triageEvent('riskAcceptanceExpired', after, context, {
      oldStatus: before.status,
      newStatus: after.status,
      acceptedBy: before.userId,
      acceptedAt: before.updatedAt,
      acceptedUntil: before.expiresAt,
      acceptanceNote: before.note,
    }),
  ];
}

/**
 * findingOverdue when a finding passes its due date (docs/GOVERNANCE.md, Overdue findings): once per overdue
 * episode, its id derived from the finding and the episode's start (a repeated check cannot record two).
 */
export function overdueEvent(
  context: FindingEventContext & { finding: { findingHash: string } },
  overdue: { status: string; firstSeen: number; dueAt: number; slaDays: number; episode: number },
  now: number,
): OutboxEvent {
  return {
    eventId: overdueEventId(context.environmentId, context.finding.findingHash, overdue.episode),
    type: 'findingOverdue',
    organizationId: context.organizationId,
    applicationId: context.applicationId,
    teamId: context.app.teamId,
    occurredAt: now,
    data: {
      applicationId: context.applicationId,
      appName: context.app.name,
      envId: context.environmentId,
      envName: context.envName,
      ...context.finding,
      ...overdue,
    },
  };
}

/** The record a sealed value of a webhook belongs to (its additional authenticated data). */
export const webhookSealContext = (webhook: Pick<WebhookRecord, 'organizationId' | 'webhookId'>, field: string) =>
  `webhook:${webhook.organizationId}:${webhook.webhookId}:${field}`;

export const auditPayload = (webhook: WebhookRecord, extra: Record<string, unknown> = {}) => ({
  integration: 'webhook',
  webhookId: webhook.webhookId,
  name: webhook.name,
  url: webhook.displayUrl,
  events: webhook.events,
  format: webhook.format,
  enabled: webhook.enabled,
  ...extra,
});
