import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { batchPut } from '../db/query.ts';
import { isConditionFailure } from '../db/items.ts';
import { config } from '../config.ts';
import { logger } from '../context/logger.ts';
import { unseal } from '../secrets/sealing.ts';
import { getApplication } from '../applications/application-repository.ts';
import type { ApplicationRecord, EnvironmentRecord } from '../applications/model.ts';
import { getEnvironment } from '../applications/environment-repository.ts';
import { getAlert, getScan } from '../results/scan-repository.ts';
import { findingStreams } from '../results/streams.ts';
import { SEVERITIES } from '../input/severities.ts';
import {
  detectionsOfIssue,
  findingsOfEnvironment,
  getFinding,
  rulesOfEnvironment,
} from '../results/finding-repository.ts';
import { type FindingRecord, isUntriaged, streamOf } from '../results/model.ts';
import { triageFinding } from '../findings/triage.ts';
import { getSlaPolicy } from '../governance/policy.ts';
import { acceptanceExpiry } from '../governance/model.ts';
import { getIntegrationSettings } from '../outbound/settings.ts';
import { deliveryAttempts, retryDelayMs } from './queue.ts';
import { trackerClient } from '../trackers/clients.ts';
import {
  getTicket,
  getTracker,
  putTicket,
  ticketOfIssue,
  ticketsOfEnvironment,
  trackersOfOrg,
} from '../trackers/repository.ts';
import {
  type TicketRecord,
  type TrackerRecord,
  type TrackerJob,
  type TrackerMessage,
  TrackerFailure,
  TrackerRetry,
  hashLabel,
  type NewIssue,
  type RemoteIssue,
  type TextPiece,
  type TrackerClient,
  trackerEvent,
  trackerSealContext,
  ticketIdOf,
} from '../trackers/model.ts';
import { outboxItem } from '../db/outbox.ts';
import { TRACKER_ACTOR, MAX_AUTO_PROMOTIONS, type DeliveryRetrier, type QueueRecord } from './model.ts';

// The tracker consumer (docs/TRACKERS.md, Delivery): the jobs the delivery queue brings, run by the same consumer
// as webhook deliveries (shared/delivery/consumer.ts), on AWS and locally. A job that fails for a reason that may
// pass (429, 5xx, no answer) stays on the queue for the backoff or the tracker's Retry-After, whichever is longer;
// the last attempt leaves it to the queue's redrive into the dead letters. One that cannot succeed as things are
// (credentials refused, no such project, an address the organization does not allow) is recorded on the ticket.
/** A CREATING claim older than this is taken over (the attempt that made it died). */
const CLAIM_MS = 2 * 60 * 1000;

const severityRank = (severity: string) => SEVERITIES.indexOf(severity as (typeof SEVERITIES)[number]);

interface Context {
  tracker: TrackerRecord;
  client: TrackerClient;
}

async function connect(orgId: string, trackerId: string): Promise<Context | undefined> {
  const tracker = await getTracker(orgId, trackerId);
  if (!tracker || !tracker.enabled) return undefined;
  const [token, settings] = await Promise.all([
    unseal(tracker.sealedToken, trackerSealContext(tracker)),
    getIntegrationSettings(orgId),
  ]);
  return { tracker, client: trackerClient(tracker, token, settings.allowPrivateNetworks) };
}

/** Writes the ticket's next version; a concurrent change makes the job run again (after a short delay). */
async function saveTicket(ticket: TicketRecord): Promise<void> {
  try {
    await db.send(new PutCommand(putTicket(ticket)));
  } catch (error) {
    if (isConditionFailure(error)) throw new TrackerRetry('the ticket changed meanwhile', 1000);
    throw error;
  }
}

const next = (ticket: TicketRecord, change: Partial<TicketRecord>): TicketRecord => {
  const { error: _error, claimedBy: _claim, ...kept } = ticket;
  return { ...kept, ...change, updatedAt: Date.now(), version: ticket.version + 1 };
};

const remoteFields = (issue: RemoteIssue): Partial<TicketRecord> => ({
  id: issue.id,
  key: issue.key,
  url: issue.url,
  issueStatus: issue.status,
});

/**
 * The ticket's title and text, unless the caller gave theirs: what, where, and the hash that finds it again. Names,
 * the URI and the parameter come from input (an imported report's alert name too): values, shown as written in the
 * tracker's markup (NewIssue). Each line starts with the service's words, so no value opens a heading or a list.
 */
async function issueText(
  app: ApplicationRecord,
  env: EnvironmentRecord,
  finding: FindingRecord,
  job: Extract<TrackerJob, { type: 'promote' }>,
): Promise<Omit<NewIssue, 'findingHash'>> {
  const alert = await getAlert(
    { applicationId: app.applicationId, environmentId: env.environmentId, scanId: finding.lastScanId },
    finding.pluginId,
  );
  const name = alert?.name || `Plugin ${finding.pluginId}`;
  const summary =
    job.summary ||
    `${name} (${finding.severity}): ${finding.requestMethod} ${finding.path} in ${app.name} / ${env.name}`;
  const lines: TextPiece[][] = job.description
    ? [[job.description]]
    : [
        [
          'hawk-api found ',
          { value: name },
          ' (plugin ',
          { value: finding.pluginId },
          `, ${finding.severity}) in `,
          { value: app.name },
          ' / ',
          { value: env.name },
          '.',
        ],
        [
          'Request: ',
          { value: finding.requestMethod },
          ' ',
          { code: finding.uri },
          ...(finding.param ? [' (parameter ', { code: finding.param }, ')'] : []),
        ],
        [
          `First seen: ${new Date(finding.firstSeen).toISOString()}; last seen: ${new Date(finding.lastSeen).toISOString()} (scan ${finding.lastScanId}).`,
        ],
        ...(alert?.cweId ? [['CWE-', { value: alert.cweId }]] : []),
        ...(config.publicUrl
          ? [
              [
                `Open it: ${config.publicUrl}/org/${app.organizationId}/scan/${finding.lastScanId}/alert/${finding.pluginId}`,
              ],
            ]
          : []),
      ];
  return { summary: summary.slice(0, 250), description: [...lines, [`Finding: ${hashLabel(finding.findingHash)}`]] };
}

/**
 * The ticket of the finding's issue as it stands (docs/ISSUES.md, What an issue shares): the issue's, or one made
 * for one of its detections before tickets were per issue.
 */
async function ticketOfFinding(finding: FindingRecord, ref: { applicationId: string; environmentId: string }) {
  if (!finding.issueId) return getTicket(ref, finding.findingHash);
  const detections = await detectionsOfIssue(ref, finding.issueId);
  return ticketOfIssue(ref, finding.issueId, [finding.findingHash, ...detections.map((d) => d.findingHash)]);
}

/**
 * Makes the ticket of the finding's issue, or adopts the one the tracker already has for its hash: never two for an
 * issue, whichever of its detections is promoted, and however often.
 */
async function promote(orgId: string, job: Extract<TrackerJob, { type: 'promote' }>, messageId: string) {
  const ref = { applicationId: job.applicationId, environmentId: job.environmentId };
  const [app, env, finding] = await Promise.all([
    getApplication(job.applicationId),
    getEnvironment(job.applicationId, job.environmentId),
    getFinding(ref, job.findingHash),
  ]);
  if (!app || app.organizationId !== orgId || !env || !finding) return;
  const existing = await ticketOfFinding(finding, ref);
  if (existing && (existing.state === 'OPEN' || existing.state === 'CLOSED')) return;
  const context = await connect(orgId, job.trackerId);
  if (!context) return;
  const now = Date.now();
  if (existing?.state === 'CREATING' && existing.claimedBy !== messageId && now - existing.updatedAt < CLAIM_MS)
    throw new TrackerRetry('another attempt is making this ticket', 5000);
  // The claim: an attempt that makes a ticket holds it, so two attempts never both create one.
  const claimed: TicketRecord = existing
    ? {
        ...next(existing, { state: 'CREATING', trackerId: job.trackerId, kind: context.tracker.kind }),
        claimedBy: messageId,
      }
    : {
        organizationId: orgId,
        ...ref,
        ...(finding.issueId && { issueId: finding.issueId }),
        findingHash: finding.findingHash,
        trackerId: job.trackerId,
        kind: context.tracker.kind,
        state: 'CREATING',
        missedScans: 0,
        claimedBy: messageId,
        createdAt: now,
        updatedAt: now,
        version: 1,
      };
  await saveTicket(claimed);
  // A failure leaves the claim to recordFailure (FAILED: a later promotion tries again) or to the retry. The
  // tracker's issue carries the hash of the detection the ticket was first made for (a retry finds it by it).
  const issue =
    (await context.client.findByHash(claimed.findingHash)) ??
    (await context.client.create({ ...(await issueText(app, env, finding, job)), findingHash: claimed.findingHash }));
  await saveTicket(
    next(claimed, {
      ...remoteFields(issue),
      state: issue.closed ? 'CLOSED' : 'OPEN',
      ...(issue.closed ? { closedBy: 'people' as const, resolution: issue.resolution } : {}),
    }),
  );
}

/** After a completed scan: each ticket of the environment is looked at, and new findings are promoted. */
async function scanCompleted(orgId: string, job: Extract<TrackerJob, { type: 'scan' }>) {
  const scan = await getScan({
    applicationId: job.applicationId,
    environmentId: job.environmentId,
    scanId: job.scanId,
  });
  if (!scan || scan.status !== 'COMPLETED' || scan.deleting) return;
  const trackers = (await trackersOfOrg(orgId)).filter((t) => t.enabled).sort((a, b) => a.createdAt - b.createdAt);
  if (trackers.length === 0) return;
  const env = await getEnvironment(job.applicationId, job.environmentId);
  const app = await getApplication(job.applicationId);
  if (!env || !app || app.organizationId !== orgId) return;
  const findings = new Map<string, FindingRecord>();
  for await (const finding of findingsOfEnvironment(env)) findings.set(finding.findingHash!, finding as FindingRecord);
  const streamOfFinding = await findingStreams(env, findings.values());
  // Each issue's detections (docs/ISSUES.md): a ticket is its issue's, whichever detection it was made for.
  const detections = new Map<string, FindingRecord[]>();
  for (const f of findings.values()) {
    const issue = detections.get(ticketIdOf(f));
    if (issue) issue.push(f);
    else detections.set(ticketIdOf(f), [f]);
  }
  const issueOfTicket = (t: TicketRecord) => {
    const made = findings.get(t.findingHash);
    return t.issueId ?? (made ? ticketIdOf(made) : t.findingHash);
  };
  // Only the tickets of issues the scan's tool stream detects: another tool's scan says nothing of them
  // (docs/DATA-MODEL.md, Tool streams). After the scan, an issue is still there when the scan saw one of its
  // detections (its last sighting is this scan's start or later), or another tool's detection of it is open.
  const ofStream = (f: FindingRecord) => streamOfFinding(f) === streamOf(scan);
  const stillThere = (issue: string) =>
    (detections.get(issue) ?? []).some((f) =>
      ofStream(f) ? f.lastSeen >= scan.startedAt : f.fixedAt === undefined && f.verifiedFixedAt === undefined,
    );
  const tickets = await ticketsOfEnvironment(env);
  const syncs = tickets
    .filter(
      (t) => t.state === 'OPEN' && t.lastScanId !== scan.scanId && detections.get(issueOfTicket(t))?.some(ofStream),
    )
    .map((t) =>
      trackerEvent(
        orgId,
        {
          ...job,
          type: 'sync' as const,
          ticketId: ticketIdOf(t),
          scanStartedAt: scan.startedAt,
          seen: stillThere(issueOfTicket(t)),
        },
        scan.completedAt ?? Date.now(),
      ),
    );
  // Handed to the queue by the relay, one job per ticket: one tracker's trouble holds back no other ticket.
  await batchPut(syncs.map((event) => outboxItem(event).Put!.Item!));

  const promoting = trackers.find(
    (t) =>
      t.autoPromote &&
      (t.autoPromote.environmentIds.length === 0 || t.autoPromote.environmentIds.includes(env.environmentId)),
  );
  if (!promoting) return;
  // One promotion per issue without a ticket: its triage applies to the issue's other detections.
  const ticketed = new Set(tickets.map(issueOfTicket));
  const rules = await rulesOfEnvironment(env);
  const fresh = new Map<string, FindingRecord>();
  for (const f of findings.values())
    if (
      f.firstSeen === scan.startedAt &&
      severityRank(f.severity) <= severityRank(promoting.autoPromote!.minSeverity) &&
      !ticketed.has(ticketIdOf(f)) &&
      !fresh.has(ticketIdOf(f)) &&
      isUntriaged(rules.get(f.findingHash)?.status ?? 'UNKNOWN')
    )
      fresh.set(ticketIdOf(f), f);
  for (const finding of [...fresh.values()].slice(0, MAX_AUTO_PROMOTIONS))
    await triageFinding(
      TRACKER_ACTOR,
      app,
      env,
      finding.findingHash,
      (current) => (isUntriaged(current) ? 'PROMOTED' : current),
      `promoted to ${promoting.name || promoting.kind} (new ${finding.severity} finding)`,
      { promoteTo: { trackerId: promoting.trackerId } },
    );
}

/** The triage that follows a ticket people closed (docs/TRACKERS.md, Read back). */
async function followClose(ticket: TicketRecord, issue: RemoteIssue) {
  if (issue.resolution !== 'notPlanned' && issue.resolution !== 'invalid') return;
  const [app, env] = await Promise.all([
    getApplication(ticket.applicationId),
    getEnvironment(ticket.applicationId, ticket.environmentId),
  ]);
  if (!app || !env) return;
  const to = issue.resolution === 'invalid' ? ('FALSE_POSITIVE' as const) : ('RISK_ACCEPTED' as const);
  const now = Date.now();
  const accept =
    to === 'RISK_ACCEPTED'
      ? { expiresAt: acceptanceExpiry(await getSlaPolicy(app.organizationId), undefined, now, '') }
      : undefined;
  await triageFinding(
    TRACKER_ACTOR,
    app,
    env,
    ticket.findingHash,
    (current) => (current === 'PROMOTED' ? to : current),
    `${issue.key} was closed in the tracker as ${issue.resolution === 'invalid' ? 'invalid' : 'not planned'} (${issue.status})`,
    { accept, now },
  );
}

/** One ticket after a completed scan: read back, then counted and closed when its finding stayed away. */
async function sync(orgId: string, job: Extract<TrackerJob, { type: 'sync' }>) {
  const ticket = await getTicket(job, job.ticketId);
  if (!ticket || ticket.state !== 'OPEN' || !ticket.key || !ticket.id) return;
  if (ticket.lastScanId === job.scanId || job.scanStartedAt <= (ticket.lastScanStartedAt ?? 0)) return;
  const counted = { lastScanId: job.scanId, lastScanStartedAt: job.scanStartedAt };
  const context = await connect(orgId, ticket.trackerId);
  if (!context) return;
  const issue = await context.client.get({ id: ticket.id, key: ticket.key });
  if (issue.closed) {
    await saveTicket(
      next(ticket, {
        ...remoteFields(issue),
        state: 'CLOSED',
        closedBy: 'people',
        resolution: issue.resolution,
        ...counted,
      }),
    );
    await followClose(ticket, issue);
    return;
  }
  const missedScans = job.seen ? 0 : ticket.missedScans + 1;
  if (missedScans < context.tracker.closeAfterScans) {
    await saveTicket(next(ticket, { ...remoteFields(issue), missedScans, ...counted }));
    return;
  }
  const closed = await context.client.close({ id: ticket.id, key: ticket.key });
  await saveTicket(
    next(ticket, {
      ...remoteFields(closed),
      state: 'CLOSED',
      closedBy: 'service',
      resolution: 'done',
      missedScans,
      ...counted,
    }),
  );
}

async function run(message: TrackerMessage): Promise<void> {
  const { job, organizationId } = message;
  if (job.type === 'promote') await promote(organizationId, job, message.deliveryId);
  else if (job.type === 'scan') await scanCompleted(organizationId, job);
  else await sync(organizationId, job);
}

/** Records why a job failed for good on its ticket (never a credential: messages name calls and statuses). */
async function recordFailure(message: TrackerMessage, reason: string): Promise<void> {
  const { job } = message;
  if (job.type === 'scan') return;
  const finding = job.type === 'promote' ? await getFinding(job, job.findingHash) : undefined;
  const ticket =
    job.type === 'sync' ? await getTicket(job, job.ticketId) : finding && (await ticketOfFinding(finding, job));
  if (!ticket) return;
  const state = ticket.state === 'CREATING' ? 'FAILED' : ticket.state;
  try {
    await db.send(new PutCommand(putTicket({ ...next(ticket, { state }), error: reason.slice(0, 500) })));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Runs one tracker job from the queue: 'done' deletes the message, 'failed' leaves it for a retry or the redrive. */
export async function consumeTrackerMessage(
  record: QueueRecord,
  message: TrackerMessage,
  queue: DeliveryRetrier,
): Promise<'done' | 'failed'> {
  const receives = Number(record.attributes.ApproximateReceiveCount) || 1;
  try {
    await run(message);
    return 'done';
  } catch (error) {
    const attrs = { job: message.job.type, messageId: message.deliveryId, receives };
    if (error instanceof TrackerFailure) {
      logger.warn('tracker job failed for good', { ...attrs, reason: error.message });
      await recordFailure(message, error.message);
      return 'done';
    }
    if (!(error instanceof TrackerRetry)) throw error;
    if (receives >= deliveryAttempts()) {
      logger.warn('tracker job out of attempts', { ...attrs, reason: error.message });
      await recordFailure(message, `${error.message} (after ${receives} attempts)`);
      await queue.retryLater(record.receiptHandle, 0);
      return 'failed';
    }
    await queue.retryLater(
      record.receiptHandle,
      Math.max(retryDelayMs(receives, config.webhookRetryBaseMs), error.delayMs),
    );
    return 'failed';
  }
}
