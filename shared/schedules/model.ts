import type { KeyScope } from '../context/caller.ts';

// Schedules' model (docs/HOSTED-SCANS.md, Schedules): the kinds, a schedule as stored, a due time's event and its
// outcomes. Records, types and pure rules only (docs/LAYOUT.md, Layers): it imports the kernel and other resources'
// model.ts, never a repository.

export const SCHEDULE_KINDS = ['SCAN', 'PROFILE'] as const;

export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];

/** What became of the schedule's last time: a run STARTED, SKIPPED (a run was active), FAILED (the start refused). */
export type ScheduleResult = 'STARTED' | 'SKIPPED' | 'FAILED';

export interface ScheduleRecord {
  organizationId: string;
  applicationId: string;
  scheduleId: string;
  env: string;
  cron: string;
  timezone: string;
  kind: ScheduleKind;
  scanConfig?: string;
  enabled: boolean;
  /** Whose runs it starts: its creator's, with the creator's key's narrowing, checked again at every start. */
  userId: string;
  scope?: KeyScope;
  /** When it is next due, as of its last write (the local clock's entry; the answers compute it afresh). */
  dueAt?: number;
  /** The last time it was due and acted on (a run started, or a skip or failure recorded): never acted on twice. */
  lastDueAt?: number;
  lastRunAt?: number;
  lastRunScanKey?: string;
  lastResult?: ScheduleResult;
  lastMessage?: string;
  createdAt: number;
  updatedAt: number;
  revision: number;
}

export type ScheduleRef = Pick<ScheduleRecord, 'organizationId' | 'applicationId' | 'scheduleId'>;

/** What EventBridge Scheduler invokes the function with: the entry, and the time it was due (its placeholder). */
export interface ScheduledScanEvent extends ScheduleRef {
  dueAt: string;
}

/** A due time missed by longer than this (the service was down, a late delivery) is not made up: the next one is. */
export const MISSED_AFTER_MS = 60_000;

/** What a due time did: a run STARTED, SKIPPED or FAILED (recorded on the schedule), or nothing, and why. */
export type FireOutcome = ScheduleResult | 'GONE' | 'PAUSED' | 'NOT_DUE' | 'MISSED' | 'CHANGED';
