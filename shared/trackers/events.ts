import { derivedId } from '../webhooks/events.ts';

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
  /** A completed scan: count the missing findings' tickets, read them back, promote its new findings. */
  | { type: 'scan'; applicationId: string; environmentId: string; scanId: string }
  /** One ticket after a completed scan: read it back, then close it once the finding is gone long enough. */
  | {
      type: 'sync';
      applicationId: string;
      environmentId: string;
      findingHash: string;
      scanId: string;
      /** The scan's start: a job of an older scan than the last counted (delayed by retries) counts nothing. */
      scanStartedAt: number;
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

/** A job's id: the same job of the same change always has the same one (recorded and queued once). */
function jobName(job: TrackerJob, version: string): string {
  if (job.type === 'scan') return `trackerScan:${job.scanId}`;
  if (job.type === 'sync') return `trackerSync:${job.environmentId}:${job.findingHash}:${job.scanId}`;
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

export const trackerMessage = (event: TrackerOutboxEvent): TrackerMessage => ({
  kind: 'tracker',
  deliveryId: derivedId(`tracker:${event.eventId}`),
  organizationId: event.organizationId,
  job: event.job,
});
