import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys.ts';
import * as runSlot from '../../shared/perch/projections/run-slot.ts';
import type { PerchRun, RunState } from '../../shared/perch/model.ts';

// A run's slot in its organization's limit is a projection of the run (docs/HOSTED-SCANS.md, Concurrency;
// docs/DATA-MODEL.md, Projections): for any change of a run, the organization's running count moves by what the run
// counts after less what it counted before, and a change that keeps it writes nothing.

const STATES: RunState[] = ['QUEUED', 'RUNNING', 'COMPLETED', 'ERROR', 'STOPPED'];
const run = (state: RunState, holdsSlot: boolean | undefined) =>
  ({ organizationId: 'org', applicationId: 'app', scanKey: 'key', state, holdsSlot }) as PerchRun;
const anyRun = fc.option(
  fc.record({ state: fc.constantFrom(...STATES), holdsSlot: fc.option(fc.boolean(), { nil: undefined }) }),
  { nil: undefined },
);
const counts = (r: PerchRun | undefined) => (r?.state === 'RUNNING' && r.holdsSlot ? 1 : 0);

/** What the items add to the organization's `running`: +1 per take, -1 per release (both on its slots item). */
function moved(items: NonNullable<ReturnType<typeof runSlot.project>['items']>) {
  return items.reduce((sum, item) => {
    expect(item.Update!.Key).toEqual(keys.perchSlots('org'));
    return sum + (item.Update!.ConditionExpression ? 1 : -1);
  }, 0);
}

describe('the run slot projection', () => {
  it('takes a slot when the run comes to hold one, conditioned on the limit, and gives it back when it ends', () => {
    const { items: take = [] } = runSlot.project(run('QUEUED', undefined), run('RUNNING', true));
    expect(take).toHaveLength(1);
    expect(take[0]!.Update!.UpdateExpression).toContain('+ :one');
    expect(take[0]!.Update!.ConditionExpression).toContain('#running < #limit');
    for (const end of ['COMPLETED', 'ERROR', 'STOPPED'] as const) {
      const { items: release = [] } = runSlot.project(run('RUNNING', true), run(end, true));
      expect(release.map((item) => item.Update!.UpdateExpression)).toEqual([
        'SET #running = if_not_exists(#running, :one) - :one ADD queueVersion :one',
      ]);
    }
    // Its application's delete takes the slot from a run that still runs.
    expect(runSlot.project(run('RUNNING', true), run('RUNNING', false)).items).toHaveLength(1);
  });

  it('moves the running count by what the run counts after less before, for any change', () => {
    fc.assert(
      fc.property(anyRun, anyRun, (b, a) => {
        const before = b && run(b.state, b.holdsSlot);
        const after = a && run(a.state, a.holdsSlot);
        const { items = [] } = runSlot.project(before, after);
        expect(moved(items)).toBe(counts(after) - counts(before));
        if (counts(after) === counts(before)) expect(items).toEqual([]);
      }),
    );
  });
});
