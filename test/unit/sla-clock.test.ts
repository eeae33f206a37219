import { describe, expect, it } from 'vitest';
import { DAY_MS, slaClock, acceptanceExpiry, type WakeFinding } from '../../shared/governance/model.ts';
import type { TriageStatus } from '../../shared/results/model.ts';
import type { Severity } from '../../shared/input/severities.ts';
import { earliestDue, episodeStart } from '../../shared/governance/overdue.ts';
import * as overdueWakes from '../../shared/governance/projections/overdue-wakes.ts';

// The SLA clock (docs/GOVERNANCE.md, Due dates) over triage changes, with a controlled clock: times in days from the
// first sighting.

const T0 = Date.UTC(2026, 0, 1);
const day = (n: number) => T0 + n * DAY_MS;
/** A rule history: [day, from, to] changes, oldest first. */
const history = (...changes: [number, TriageStatus, TriageStatus][]) =>
  changes.map(([d, oldResult, newResult]) => ({ timestamp: day(d), oldResult, newResult }));

describe('SLA clock', () => {
  it('runs from the first sighting: due after the days of the severity, overdue after that', () => {
    expect(slaClock(T0, 30, [], day(10))).toEqual({ dueAt: day(30), daysLeft: 20, overdue: false });
    expect(slaClock(T0, 30, [], day(30))).toEqual({ dueAt: day(30), daysLeft: 0, overdue: false });
    expect(slaClock(T0, 30, [], day(30) + 1)).toEqual({ dueAt: day(30), daysLeft: -1, overdue: true });
    expect(slaClock(T0, 30, [], day(45.5))).toEqual({ dueAt: day(30), daysLeft: -16, overdue: true });
  });

  it('has no due date for a severity without days (Info)', () => {
    expect(slaClock(T0, undefined, [], day(400))).toEqual({ daysLeft: 0, overdue: false });
  });

  it('stops while a false positive or an accepted risk, and goes on from where it stopped when reopened', () => {
    const fp = history([5, 'UNKNOWN', 'FALSE_POSITIVE']);
    expect(slaClock(T0, 30, fp, day(100))).toEqual({ daysLeft: 0, overdue: false });
    // Reopened on day 25: 20 days stopped, so due on day 50.
    const reopened = history([5, 'UNKNOWN', 'FALSE_POSITIVE'], [25, 'FALSE_POSITIVE', 'UNKNOWN']);
    expect(slaClock(T0, 30, reopened, day(40))).toEqual({ dueAt: day(50), daysLeft: 10, overdue: false });
    // An acceptance that expired (RISK_ACCEPTED -> UNKNOWN) counts the same; two pauses add up.
    const twice = history(
      [5, 'UNKNOWN', 'FALSE_POSITIVE'],
      [25, 'FALSE_POSITIVE', 'UNKNOWN'],
      [30, 'UNKNOWN', 'RISK_ACCEPTED'],
      [40, 'RISK_ACCEPTED', 'UNKNOWN'],
    );
    expect(slaClock(T0, 30, twice, day(61))).toEqual({ dueAt: day(60), daysLeft: -1, overdue: true });
  });

  it('keeps running through comments and while assigned (PROMOTED): those are still open work', () => {
    const worked = history([3, 'UNKNOWN', 'ADD_COMMENT'], [4, 'ADD_COMMENT', 'PROMOTED']);
    expect(slaClock(T0, 7, worked, day(8))).toEqual({ dueAt: day(7), daysLeft: -1, overdue: true });
  });

  it('as of a moment: only the changes made by then count', () => {
    const reopened = history([5, 'UNKNOWN', 'FALSE_POSITIVE'], [25, 'FALSE_POSITIVE', 'UNKNOWN']);
    expect(slaClock(T0, 30, reopened, day(4))).toEqual({ dueAt: day(30), daysLeft: 26, overdue: false });
    expect(slaClock(T0, 30, reopened, day(10))).toEqual({ daysLeft: 0, overdue: false });
  });

  it('takes the status before the oldest kept history entry to have held since the first sighting', () => {
    // History cut (at most 200 entries kept): the oldest kept says the finding was a false positive before day 20.
    const cut = history([20, 'FALSE_POSITIVE', 'UNKNOWN']);
    expect(slaClock(T0, 30, cut, day(21))).toEqual({ dueAt: day(50), daysLeft: 29, overdue: false });
  });
});

describe('risk acceptance expiry', () => {
  const now = day(0);
  const policy = (defaultDays: number | null, maxDays: number | null) => ({ riskAcceptance: { defaultDays, maxDays } });

  it('takes the requested time, else the default, else the maximum, else never', () => {
    expect(acceptanceExpiry(policy(10, 90), day(30), now, 'expiresAt')).toBe(day(30));
    expect(acceptanceExpiry(policy(10, 90), undefined, now, 'expiresAt')).toBe(day(10));
    expect(acceptanceExpiry(policy(null, 90), undefined, now, 'expiresAt')).toBe(day(90));
    expect(acceptanceExpiry(policy(null, null), undefined, now, 'expiresAt')).toBeUndefined();
    expect(acceptanceExpiry(policy(null, null), day(5000), now, 'expiresAt')).toBe(day(5000));
  });

  it('refuses a time in the past or beyond the maximum, naming the field', () => {
    expect(() => acceptanceExpiry(policy(null, null), now, now, 'actions[0].expiresAt')).toThrow(
      /actions\[0\]\.expiresAt: must be in the future/,
    );
    expect(() => acceptanceExpiry(policy(null, 90), day(91), now, 'actions[1].expiresAt')).toThrow(
      /actions\[1\]\.expiresAt: must be at most 90 days ahead/,
    );
  });
});

describe('overdue episodes', () => {
  const env = { organizationId: 'org', applicationId: 'app', environmentId: 'env' };

  it('an episode starts when the finding became current, or later when a triage set its clock running again', () => {
    expect(episodeStart({ firstSeen: T0 }, [])).toBe(T0);
    expect(episodeStart({ firstSeen: T0, currentSince: day(40) }, [])).toBe(day(40)); // reported again after a fix
    // Comments and assignments keep the episode; a false positive reopened starts a new one.
    expect(
      episodeStart({ firstSeen: T0 }, history([3, 'UNKNOWN', 'ADD_COMMENT'], [4, 'ADD_COMMENT', 'PROMOTED'])),
    ).toBe(T0);
    const reopened = history([5, 'UNKNOWN', 'FALSE_POSITIVE'], [25, 'FALSE_POSITIVE', 'UNKNOWN']);
    expect(episodeStart({ firstSeen: T0 }, reopened)).toBe(day(25));
    expect(episodeStart({ firstSeen: T0, currentSince: day(30) }, reopened)).toBe(day(30));
  });

  it('no policy makes a finding due sooner than a day after its first sighting; an entry is never in the past', () => {
    expect(earliestDue(T0, day(0.5))).toBe(day(1));
    expect(earliestDue(T0, day(3))).toBe(day(3));
    // Whatever a policy shortens to (at least 1 day), the entry comes no later than the due date.
    for (const days of [1, 2, 30]) expect(earliestDue(T0, T0)).toBeLessThanOrEqual(slaClock(T0, days, [], T0).dueAt!);
  });

  it("a publication adds one entry for its environment when an episode starts there, at the earliest finding's time", () => {
    // The entry of the projection (overdue-wakes.ts) from the records known to the ones the publication writes.
    const publicationWake = (
      ref: typeof env,
      known: Map<string, Partial<WakeFinding>>,
      found: WakeFinding[],
      statusOf: (hash: string) => TriageStatus,
      now: number,
    ) => {
      const hashes = [...known.keys(), ...found.map((f) => f.findingHash)];
      const statuses = new Map(hashes.map((hash) => [hash, statusOf(hash)]));
      const after = { findings: new Map(found.map((f) => [f.findingHash, f])), statuses };
      const before = { findings: known as Map<string, WakeFinding>, statuses };
      const { items = [] } = overdueWakes.project(before, after, { env: ref, now });
      const wake = items[0]?.Put?.Item;
      return wake && { ...ref, checkAt: wake.checkAt as number };
    };
    // A reported record is current since its first sighting (or its sighting after a fix).
    const found = (hash: string, severity: Severity, firstSeen: number) => ({
      findingHash: hash,
      severity,
      firstSeen,
      currentSince: firstSeen,
    });
    const open = () => 'UNKNOWN' as const;
    const current = { severity: 'High', currentSince: T0 } as const;
    // A rescan of current findings starts nothing.
    expect(publicationWake(env, new Map([['a', current]]), [found('a', 'High', T0)], open, day(2))).toBeUndefined();
    // New and reported-again findings do, at the earliest one's first sighting plus a day (never before now).
    const known = new Map<string, { severity: string; fixedAt?: number; currentSince?: number }>([
      ['a', current],
      ['b', { severity: 'High', fixedAt: day(1), currentSince: T0 }],
    ]);
    const wake = publicationWake(env, known as never, [found('a', 'High', T0), found('b', 'High', T0)], open, day(2));
    expect(wake).toEqual({ ...env, checkAt: day(2) });
    expect(
      publicationWake(env, new Map(), [found('c', 'Low', day(5)), found('d', 'High', day(6))], open, day(6)),
    ).toEqual({ ...env, checkAt: day(6) });
    // Info findings and findings set aside have no running clock; a record older than the episodes has one to start.
    expect(publicationWake(env, new Map(), [found('i', 'Info', T0)], open, T0)).toBeUndefined();
    expect(publicationWake(env, new Map(), [found('f', 'High', T0)], () => 'FALSE_POSITIVE', T0)).toBeUndefined();
    expect(
      publicationWake(env, new Map([['a', { severity: 'High' }]]) as never, [found('a', 'High', T0)], open, T0),
    ).toEqual({
      ...env,
      checkAt: day(1),
    });
    // A severity changed (Low to High) may bring the due date forward.
    const low = new Map([['a', { severity: 'Low', currentSince: T0 }]]);
    expect(publicationWake(env, low as never, [found('a', 'High', T0)], open, day(2))).toEqual({
      ...env,
      checkAt: day(2),
    });
  });
});
