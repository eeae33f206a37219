import { describe, expect, it } from 'vitest';
import { DAY_MS, type WakeFinding } from '../../shared/governance/model.ts';
import { earliestDue } from '../../shared/governance/overdue.ts';
import * as overdueWakes from '../../shared/governance/projections/overdue-wakes.ts';
import { keys } from '../../shared/db/keys.ts';
import type { TriageStatus } from '../../shared/results/model.ts';

// The overdue check's entry is a projection of an environment's findings and their triage statuses
// (docs/GOVERNANCE.md, Overdue findings; docs/DATA-MODEL.md, Projections). Here a triage's: the findings are the
// same records before and after, only their statuses move.

const T0 = Date.UTC(2026, 0, 1);
const day = (n: number) => T0 + n * DAY_MS;
const env = { organizationId: 'org', applicationId: 'app', environmentId: 'env' };
const finding = (hash: string, fields: Partial<WakeFinding> = {}): WakeFinding => ({
  findingHash: hash,
  severity: 'High',
  firstSeen: T0,
  currentSince: T0,
  ...fields,
});

/** The items of a triage of `records` from the statuses `from` to `to` (by hash) at `now`. */
function triage(records: WakeFinding[], from: TriageStatus[], to: TriageStatus[], now = day(2)) {
  const findings = new Map(records.map((f) => [f.findingHash, f]));
  const statuses = (list: TriageStatus[]) => new Map(records.map((f, i) => [f.findingHash, list[i]!]));
  return overdueWakes.project(
    { findings, statuses: statuses(from) },
    { findings, statuses: statuses(to) },
    { env, now },
  ).items;
}

describe('the overdue wake projection', () => {
  it('puts one entry for the environment when a triage makes findings set aside open again, at the earliest', () => {
    const items = triage(
      [finding('a', { firstSeen: day(-1) }), finding('b', { firstSeen: day(-5) })],
      ['FALSE_POSITIVE', 'RISK_ACCEPTED'],
      ['UNKNOWN', 'ADD_COMMENT'],
      day(2),
    );
    expect(items).toHaveLength(1);
    const checkAt = earliestDue(day(-5), day(2));
    expect(items![0]!.Put!.Item).toEqual({
      ...keys.overdueWake(checkAt, env.organizationId, env.applicationId, env.environmentId),
      entity: 'overdueWake',
      ...env,
      checkAt,
    });
  });

  it('writes nothing when no clock starts running', () => {
    // Set aside, kept aside, triaged while open: no episode starts (the check drops what it no longer needs).
    expect(triage([finding('a')], ['UNKNOWN'], ['FALSE_POSITIVE'])).toBeUndefined();
    expect(triage([finding('a')], ['FALSE_POSITIVE'], ['RISK_ACCEPTED'])).toBeUndefined();
    expect(triage([finding('a')], ['UNKNOWN'], ['ADD_COMMENT'])).toBeUndefined();
    // A record older than the episodes starts one at its next scan, not at a triage that leaves its clock running.
    expect(triage([finding('a', { currentSince: undefined })], ['UNKNOWN'], ['PROMOTED'])).toBeUndefined();
    // Made open again, but fixed, or of a severity without days.
    expect(triage([finding('a', { fixedAt: day(1) })], ['FALSE_POSITIVE'], ['UNKNOWN'])).toBeUndefined();
    expect(triage([finding('a', { severity: 'Info' })], ['FALSE_POSITIVE'], ['UNKNOWN'])).toBeUndefined();
    // No record after the write (an environment's delete): nothing.
    expect(overdueWakes.project(undefined, undefined, { env, now: T0 })).toEqual({});
  });
});
