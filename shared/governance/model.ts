import type { FindingRecord, RuleHistoryEntry, TriageStatus } from '../results/model.ts';
import { badRequest } from '../errors.ts';
import type { Severity } from '../input/severities.ts';
import { keys } from '../db/keys.ts';
import { config } from '../config.ts';
import type { TransactItem } from '../db/transactions.ts';

// Governance's model (docs/GOVERNANCE.md): the SLA policy and its days, the SLA clock, risk acceptances' expiry and the
// risk-expiry entries, as pure rules and records. Records, types and pure rules only (docs/LAYOUT.md, Layers): it
// imports the kernel and other resources' model.ts, never a repository.

// The SLA clock of a finding (docs/GOVERNANCE.md, Due dates): pure arithmetic over the finding's first sighting, its
// severity's days and its triage history, so that the report, the CLI gate and the tests compute it alike.

export const DAY_MS = 86_400_000;

/** Statuses that stop the clock: the finding is judged not to need fixing (for now). */
export const isPausing = (status: TriageStatus) => status === 'FALSE_POSITIVE' || status === 'RISK_ACCEPTED';

export interface SlaClock {
  /** ms when the finding is due; undefined while the clock is stopped (or for a severity without an SLA). */
  dueAt?: number;
  /** Whole days until the due date (negative: overdue by that many started days); 0 without a due date. */
  daysLeft: number;
  overdue: boolean;
}

/**
 * The clock of a finding first seen at `firstSeen` (ms) with `days` to fix it (undefined: no SLA for its
 * severity), as of `at` (ms): it runs from the first sighting and stands still while the finding is a false
 * positive or an accepted risk; when it is reopened it goes on from where it stopped (the stopped time is added to
 * the due date). Only history entries up to `at` count. `history` is oldest first (a rule's, at most 200 entries:
 * the status before the oldest kept entry is taken to have held since the first sighting).
 */
export function slaClock(
  firstSeen: number,
  days: number | undefined,
  history: Pick<RuleHistoryEntry, 'oldResult' | 'newResult' | 'timestamp'>[],
  at: number,
): SlaClock {
  if (days === undefined) return { daysLeft: 0, overdue: false };
  const start = clockStart(firstSeen, history, at);
  if (start === undefined) return { daysLeft: 0, overdue: false };
  const dueAt = start + days * DAY_MS;
  return { dueAt, daysLeft: Math.floor((dueAt - at) / DAY_MS), overdue: at > dueAt };
}

/**
 * When the clock of slaClock would have started had it never stood still: the first sighting plus the time it stood
 * still (undefined: it stands still at `at`). Independent of the days, so that a due date is this plus the days of
 * whatever policy applies (the overview's overdue digests keep it: shared/overview/model.ts).
 */
export function clockStart(
  firstSeen: number,
  history: Pick<RuleHistoryEntry, 'oldResult' | 'newResult' | 'timestamp'>[],
  at: number,
): number | undefined {
  let status: TriageStatus = history[0]?.oldResult ?? 'UNKNOWN';
  let since = firstSeen;
  let stopped = 0;
  for (const entry of history) {
    if (entry.timestamp > at) break;
    const t = Math.max(entry.timestamp, firstSeen);
    if (isPausing(status)) stopped += t - since;
    since = t;
    status = entry.newResult;
  }
  return isPausing(status) ? undefined : firstSeen + stopped;
}

export type SlaDays = Record<'High' | 'Medium' | 'Low', number>;

export interface SlaPolicy {
  days: SlaDays;
  /** Days a risk acceptance lasts when the triage names no expiry, and the longest one allowed (null: none). */
  riskAcceptance: { defaultDays: number | null; maxDays: number | null };
  /** Whether the organization set it (false: the defaults below apply). */
  configured: boolean;
  updatedAt: number;
  updatedBy: string;
}

/** Until an organization sets its own: common industry periods; acceptances never expire by default. */
export const DEFAULT_SLA_DAYS: SlaDays = { High: 30, Medium: 90, Low: 180 };

/** Days to fix a finding of this severity (undefined: Info findings have no due date). */
export const severityDays = (days: SlaDays, severity: Severity | string): number | undefined =>
  severity === 'High' || severity === 'Medium' || severity === 'Low' ? days[severity] : undefined;

/** hawk.SlaPolicy of a policy. */
export const toSlaPolicyView = (orgId: string, policy: SlaPolicy) => ({
  organizationId: orgId,
  days: policy.days,
  riskAcceptance: {
    defaultDays: policy.riskAcceptance.defaultDays ?? 0,
    maxDays: policy.riskAcceptance.maxDays ?? 0,
  },
  configured: policy.configured,
  updatedAt: policy.updatedAt ? new Date(policy.updatedAt).toISOString() : '',
  updatedBy: policy.updatedBy,
});

/**
 * When a risk accepted at `now` expires (docs/GOVERNANCE.md, Risk acceptance that expires): the `requested` time
 * (ms), or the organization's default period, or its maximum; undefined: never. A requested time in the past or
 * beyond the maximum is refused (400), `field` naming it.
 */
export function acceptanceExpiry(
  policy: Pick<SlaPolicy, 'riskAcceptance'>,
  requested: number | undefined,
  now: number,
  field: string,
): number | undefined {
  const { defaultDays, maxDays } = policy.riskAcceptance;
  const latest = maxDays ? now + maxDays * DAY_MS : undefined;
  if (requested !== undefined) {
    if (requested <= now)
      throw badRequest(`${field}: must be in the future (${new Date(requested).toISOString()} is not)`);
    if (latest !== undefined && requested > latest)
      throw badRequest(
        `${field}: must be at most ${maxDays} days ahead (the organization's maximum risk acceptance), i.e. by ${new Date(latest).toISOString()}`,
      );
    return requested;
  }
  if (defaultDays) return now + defaultDays * DAY_MS;
  return latest;
}

// The index of risk acceptances by expiry time (docs/GOVERNANCE.md, Risk acceptance that expires): an entry per
// accepted finding with an expiry, written and removed in the transaction of the triage that sets or ends it.

/** Who the audit log and the report name for an expiry: the service itself (the nil UUID, which no user has). */
export const EXPIRY_ACTOR = {
  userId: '00000000-0000-0000-0000-000000000000',
  name: 'hawk-api (risk acceptance expiry)',
};

export interface RiskExpiryEntry {
  organizationId: string;
  applicationId: string;
  environmentId: string;
  findingHash: string;
  expiresAt: number;
}

/** The fields of a triage rule a risk acceptance's expiry entry follows (projections/risk-expiry-entries.ts). */
export interface RuleExpiry {
  status: string;
  expiresAt?: number;
}

/** The finding an expiry entry is for, and whether the change is the expiry itself, which consumes its own entry. */
export type RiskExpiryContext = Omit<RiskExpiryEntry, 'expiresAt'> & { expiring: boolean };

type EntryRef = Omit<RiskExpiryEntry, 'expiresAt'>;

const entryKey = (ref: EntryRef, expiresAt: number) =>
  keys.riskExpiry(expiresAt, ref.applicationId, ref.environmentId, ref.findingHash);

export const riskExpiryPut = (ref: EntryRef, expiresAt: number): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: {
      ...entryKey(ref, expiresAt),
      entity: 'riskExpiry',
      organizationId: ref.organizationId,
      applicationId: ref.applicationId,
      environmentId: ref.environmentId,
      findingHash: ref.findingHash,
      expiresAt,
    },
  },
});

/** `once`: the expiry itself consumes the entry, so that a second run (or a concurrent one) cannot fire it again. */
export const riskExpiryDelete = (ref: EntryRef, expiresAt: number, once = false): TransactItem => ({
  Delete: {
    TableName: config.tableName,
    Key: entryKey(ref, expiresAt),
    ...(once && { ConditionExpression: 'attribute_exists(pk)' }),
  },
});

/** A finding as the overdue check's entry follows it (projections/overdue-wakes.ts). */
export type WakeFinding = Pick<FindingRecord, 'findingHash' | 'severity' | 'firstSeen' | 'fixedAt' | 'currentSince'>;

/** An environment's findings as the overdue check's entry follows them, before or after a write. */
export interface OverdueInputs {
  /** Finding records by hash: after the write, those it writes or triages (before it, as they were). */
  findings: ReadonlyMap<string, WakeFinding>;
  /** Their triage statuses by hash (none: UNKNOWN). */
  statuses: ReadonlyMap<string, TriageStatus>;
}
