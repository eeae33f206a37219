import { keys } from '../db/keys.ts';
import { config } from '../config.ts';
import type { TransactItem } from '../db/transactions.ts';
import type { FindingRecord, RuleHistoryEntry } from '../results/model.ts';
import { DAY_MS, isPausing } from './model.ts';
import { MIN_GOVERNANCE_DAYS } from './inputs.ts';

// Overdue findings (docs/GOVERNANCE.md, Overdue findings): the index that tells the overdue check which
// environments may have a finding come due, and what identifies a finding's overdue episode. Pure builders: the
// writes that start an episode (a scan's publication, a triage that reopens) add their entry through their
// projection (projections/overdue-wakes.ts), the check its own.

/** Where an entry points: an environment of an organization. */
export interface OverdueWakeRef {
  organizationId: string;
  applicationId: string;
  environmentId: string;
}

export interface OverdueWake extends OverdueWakeRef {
  checkAt: number;
  /**
   * ms: when the check that keyed it read the days in force (absent: a writer's entry at the earliest possible due
   * time, which no SLA change can make late).
   */
  daysReadAt?: number;
}

/**
 * The earliest a finding first seen at `firstSeen` can be due, whatever the policy: no SLA gives fewer than
 * MIN_GOVERNANCE_DAYS days, and stopped time only moves the date later. Never before `now`: an entry is never written
 * for a time the check may have passed already.
 */
export const earliestDue = (firstSeen: number, now: number) => Math.max(now, firstSeen + MIN_GOVERNANCE_DAYS * DAY_MS);

export const overdueWakePut = (wake: OverdueWake): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: {
      ...keys.overdueWake(wake.checkAt, wake.organizationId, wake.applicationId, wake.environmentId),
      entity: 'overdueWake',
      ...wake,
    },
  },
});

/** `once`: the check consumes the entry it read, so that a concurrent run does not handle it a second time. */
export const overdueWakeDelete = (wake: OverdueWake, once = false): TransactItem => {
  const { pk, sk } = keys.overdueWake(wake.checkAt, wake.organizationId, wake.applicationId, wake.environmentId);
  return {
    Delete: {
      TableName: config.tableName,
      Key: { pk, sk },
      ...(once && { ConditionExpression: 'attribute_exists(pk)' }),
    },
  };
};

/**
 * When the finding's current overdue episode began: when it last became current (its first sighting, or the scan
 * that reported it again after a fix) or, if later, when a triage last set its clock running again (a false
 * positive or accepted risk reopened). A finding fires findingOverdue at most once per episode.
 */
export function episodeStart(
  finding: Pick<FindingRecord, 'firstSeen' | 'currentSince'>,
  history: Pick<RuleHistoryEntry, 'oldResult' | 'newResult' | 'timestamp'>[],
): number {
  let start = finding.currentSince ?? finding.firstSeen;
  for (const entry of history)
    if (isPausing(entry.oldResult) && !isPausing(entry.newResult)) start = Math.max(start, entry.timestamp);
  return start;
}

/** A finding's last findingOverdue: the episode it was for (docs/GOVERNANCE.md, Overdue findings). */
export interface OverdueFiredMark {
  findingHash: string;
  episode: number;
  dueAt: number;
  firedAt: number;
  eventId: string;
}

/**
 * In the transaction of an SLA change (the policy, an override): the organization's later entries are to be
 * brought forward, since a shorter period may make a finding due sooner than its entry says.
 */
export const slaRecheckPut = (orgId: string, requestedAt: number): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: { ...keys.slaRecheck(orgId), entity: 'slaRecheck', organizationId: orgId, requestedAt },
  },
});
