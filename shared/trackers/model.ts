import { derivedId } from '../webhooks/model.ts';

// The records of issue trackers (docs/TRACKERS.md): connections and the tickets of issues, as stored.

export interface TrackerRecord {
  trackerId: string;
  organizationId: string;
  kind: TrackerKind;
  name: string;
  /** Jira: the site (https://acme.atlassian.net, or the Server's base URL); GitHub: the REST API's URL. */
  baseUrl: string;
  /** Jira: the project's key or id. */
  project?: string;
  /** Jira: the issue type's name (Bug by default). */
  issueType?: string;
  /** GitHub: owner/repository. */
  repository?: string;
  /** Jira Cloud: the account whose API token this is. */
  email?: string;
  /** The API token or personal access token, sealed (shared/secrets/sealing.ts). */
  sealedToken: string;
  /** Every new finding at or above minSeverity (in these environments; none: all) is promoted to this tracker. */
  autoPromote?: { minSeverity: AutoPromoteSeverity; environmentIds: string[] };
  /** A ticket is closed after this many consecutive completed scans that no longer find its finding. */
  closeAfterScans: number;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
  /** Incremented by every change: writes are conditional on the revision they read. */
  revision: number;
}

/** OPEN: the issue is open as far as we know; CLOSED: closed by the service (fixed) or by people (read back). */
export type TicketState = 'CREATING' | 'OPEN' | 'CLOSED' | 'FAILED';

/**
 * An issue's ticket (docs/ISSUES.md): one per issue, whichever of its detections was promoted, in the tracker it was
 * first promoted to.
 */
export interface TicketRecord {
  organizationId: string;
  applicationId: string;
  environmentId: string;
  /**
   * The issue it is the ticket of: its id (ticketIdOf). Absent on a ticket made before tickets were per issue, which
   * stays the ticket of its finding.
   */
  issueId?: string;
  /** The detection it was made for: the tracker's issue carries its hash (hashLabel), which finds it again. */
  findingHash: string;
  trackerId: string;
  kind: TrackerKind;
  state: TicketState;
  /** The tracker's id of the issue (Jira: the numeric id; GitHub: the issue number). */
  id?: string;
  /** Jira: PROJ-123; GitHub: owner/repo#12. */
  key?: string;
  /** Where people open it. */
  url?: string;
  /** The issue's status as last read (Jira: the status's name; GitHub: open or closed). */
  issueStatus?: string;
  /** Who closed it: the service when the finding was fixed, or people (read back from the tracker). */
  closedBy?: 'service' | 'people';
  /** How it was closed: done, not planned (won't do, declined...) or invalid (not a bug, cannot reproduce). */
  resolution?: 'done' | 'notPlanned' | 'invalid';
  /** Consecutive completed scans after which none of the issue's detections was open, since the last with one. */
  missedScans: number;
  /** The last completed scan counted (each counts once, and none older than it). */
  lastScanId?: string;
  lastScanStartedAt?: number;
  /** Why the last attempt failed for good (bad credentials, a refused address...): never a credential. */
  error?: string;
  /** The queue message holding the CREATING claim. */
  claimedBy?: string;
  createdAt: number;
  updatedAt: number;
  version: number;
}

export const TRACKER_KINDS = ['jira', 'jiraServer', 'github'] as const;

export type TrackerKind = (typeof TRACKER_KINDS)[number];

export const AUTO_PROMOTE_SEVERITIES = ['High', 'Medium', 'Low'] as const;

export type AutoPromoteSeverity = (typeof AUTO_PROMOTE_SEVERITIES)[number];

// Tracker work as outbox events and queue messages (docs/TRACKERS.md, Delivery). A ticket is never made inside the
// request that asks for it: the request records a job in the outbox, in the transaction of its triage, and the
// relay hands it to the delivery queue webhooks use (the same outbox item, `outboxItem`), whose consumer does the calls, with its retries, backoff and
// dead letters. Kept free of the consumer's imports so the relay's bundle stays small.

export type TrackerJob =
  /** Make (or find) the finding's ticket in the tracker. */
  | {
      type: 'promote';
      trackerId: string;
      applicationId: string;
      environmentId: string;
      findingHash: string;
      /** The caller's own title and text (alertRulePromotionDetails), else ours. */
      summary?: string;
      description?: string;
    }
  /** A completed scan: count the tickets of issues gone, read them back, promote its new findings. */
  | { type: 'scan'; applicationId: string; environmentId: string; scanId: string }
  /** One ticket after a completed scan: read it back, then close it once its issue is gone long enough. */
  | {
      type: 'sync';
      applicationId: string;
      environmentId: string;
      /** The ticket's id (ticketIdOf). */
      ticketId: string;
      scanId: string;
      /** The scan's start: a job of an older scan than the last counted (delayed by retries) counts nothing. */
      scanStartedAt: number;
      /** After the scan, one of the issue's detections was open (this scan saw it, or another tool's still has it). */
      seen: boolean;
    };

/** The outbox item of a tracker job. */
export interface TrackerOutboxEvent {
  eventId: string;
  type: 'trackerJob';
  organizationId: string;
  applicationId: string;
  occurredAt: number;
  job: TrackerJob;
}

/** What a queue message carries for the tracker consumer (deliveryId: the queue's message id). */
export interface TrackerMessage {
  kind: 'tracker';
  deliveryId: string;
  organizationId: string;
  job: TrackerJob;
}

export const trackerMessage = (event: TrackerOutboxEvent): TrackerMessage => ({
  kind: 'tracker',
  deliveryId: derivedId(`tracker:${event.eventId}`),
  organizationId: event.organizationId,
  job: event.job,
});

/** An issue as the service knows it. */
export interface RemoteIssue {
  id: string;
  key: string;
  url: string;
  /** The status's name (Jira) or state (GitHub). */
  status: string;
  closed: boolean;
  /** How it was closed: done, not planned (won't do, declined), invalid (not a bug, cannot reproduce). */
  resolution?: 'done' | 'notPlanned' | 'invalid';
}

/**
 * A piece of a ticket's text: the service's own words (or the caller's own text, as they wrote it), or a value from
 * input shown as written (`code`: as code, such as a URI).
 */
export type TextPiece = string | { value: string } | { code: string };

export interface NewIssue {
  /** Plain text: neither Jira's summary nor GitHub's title renders links, images or mentions. */
  summary: string;
  /** One paragraph per line; its last line carries the hash label (what a GitHub search finds). */
  description: TextPiece[][];
  findingHash: string;
}

export interface TrackerClient {
  findByHash(findingHash: string): Promise<RemoteIssue | undefined>;
  create(issue: NewIssue): Promise<RemoteIssue>;
  get(ticket: { id: string; key: string }): Promise<RemoteIssue>;
  /** Closes it as done (the finding was fixed); answers it as it is then. */
  close(ticket: { id: string; key: string }): Promise<RemoteIssue>;
}

/**
 * The id of the ticket of an issue, a finding or a ticket: the issue's id. A finding recorded before issues is an
 * issue of its own, and a ticket made before tickets were per issue stays its finding's.
 */
export const ticketIdOf = (of: { issueId?: string; findingHash: string }) => of.issueId ?? of.findingHash;

/** The label (Jira) and the body line (GitHub) that carry a finding's hash. */
export const hashLabel = (findingHash: string) => `hawk-finding-${findingHash}`;

/** Worth trying again later: the message stays on the queue for at least `delayMs` (a Retry-After), else the backoff. */
export class TrackerRetry extends Error {
  constructor(
    message: string,
    readonly delayMs = 0,
  ) {
    super(message);
  }
}

/** Trying again cannot help until someone changes something (credentials, the project, the address allowed). */
export class TrackerFailure extends Error {}

// A finding's ticket (its issue's) in the finding views (docs/TRACKERS.md, In the views): ApplicationAlertUri's
// statusLink (where the ticket is) and fields of ours, its key and state.

/**
 * PENDING (asked for, not made yet), OPEN, CLOSED_FIXED (closed by the service: the finding is gone), CLOSED_DONE,
 * CLOSED_NOT_PLANNED, CLOSED_INVALID (closed by people, read back), FAILED (could not be made: see the tracker).
 */
export function ticketState(ticket: TicketRecord): string {
  if (ticket.state === 'CREATING') return 'PENDING';
  if (ticket.state !== 'CLOSED') return ticket.state;
  if (ticket.closedBy === 'service') return 'CLOSED_FIXED';
  return ticket.resolution === 'notPlanned'
    ? 'CLOSED_NOT_PLANNED'
    : ticket.resolution === 'invalid'
      ? 'CLOSED_INVALID'
      : 'CLOSED_DONE';
}

export function ticketView(ticket: TicketRecord | undefined) {
  if (!ticket) return {};
  return { statusLink: ticket.url ?? '', ticketKey: ticket.key ?? '', ticketStatus: ticketState(ticket) };
}

/** A job's id: the same job of the same change always has the same one (recorded and queued once). */
function jobName(job: TrackerJob, version: string): string {
  if (job.type === 'scan') return `trackerScan:${job.scanId}`;
  if (job.type === 'sync') return `trackerSync:${job.environmentId}:${job.ticketId}:${job.scanId}`;
  return `trackerPromote:${job.environmentId}:${job.findingHash}:${version}`;
}

export function trackerEvent(
  organizationId: string,
  job: TrackerJob,
  occurredAt: number,
  version = '',
): TrackerOutboxEvent {
  return {
    eventId: derivedId(jobName(job, version)),
    type: 'trackerJob',
    organizationId,
    applicationId: job.applicationId,
    occurredAt,
    job,
  };
}

/** The record a sealed value of a tracker connection belongs to (its additional authenticated data). */
export const trackerSealContext = (tracker: Pick<TrackerRecord, 'organizationId' | 'trackerId'>) =>
  `tracker:${tracker.organizationId}:${tracker.trackerId}:token`;
