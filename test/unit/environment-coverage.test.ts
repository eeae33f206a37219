import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY, type EnvironmentRecord } from '../../shared/applications/model.ts';
import * as coverage from '../../shared/applications/projections/environment-coverage.ts';
import { entityWrite } from '../../shared/db/entity-write.ts';
import { environment } from '../../shared/applications/entities.ts';
import { keys } from '../../shared/db/keys.ts';
import { applyCounterUpdate, isCounterUpdate, nonZero, type Counters } from './counters-in-memory.ts';

// The overview's coverage counters (projections/environment-coverage.ts) are a pure projection of the environment's
// record: applied in memory write after write (creates counted or from before the counters, scans at any time,
// including older than the last, deletes, the migration's count), they leave exactly what counting the live,
// counted environments afresh gives.

type Command =
  | { kind: 'create'; legacy: boolean }
  | { kind: 'scan'; env: number; at: number | undefined }
  | { kind: 'delete'; env: number }
  | { kind: 'count'; env: number };

const NOW = 1_800_000_000_000;
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('create' as const), legacy: fc.boolean() }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('scan' as const),
      env: fc.nat(10),
      at: fc.option(
        fc.oneof(fc.integer({ min: NOW - 40 * DAY, max: NOW }), fc.constant(NOW - 7 * DAY), fc.constant(0)),
        { nil: undefined },
      ),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), env: fc.nat(10) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('count' as const), env: fc.nat(10) }), weight: 1 },
);

const keyOf = (key: { pk: string; sk: string }) => `${key.pk}|${key.sk}`;

function recomputed(envs: EnvironmentRecord[]): Counters {
  const counters: Counters = new Map();
  for (const env of envs)
    for (const change of coverage.coverageShare(env)) {
      const counter = counters.get(keyOf(change.key)) ?? {};
      counter.environments = (counter.environments ?? 0) + 1;
      counters.set(keyOf(change.key), counter);
    }
  return counters;
}

describe('the coverage counters projection', () => {
  it('leaves what counting the environments afresh gives', () => {
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 40 }), (commands) => {
        const envs: EnvironmentRecord[] = [];
        const counters: Counters = new Map();
        const write = (index: number, after: EnvironmentRecord) => {
          const before = envs[index];
          const items = entityWrite(
            environment,
            { key: keys.environment('app', after.environmentId), before, after, name: 'w' },
            undefined,
          );
          for (const item of items.filter(isCounterUpdate)) applyCounterUpdate(counters, item);
          envs[index] = after;
        };
        for (const command of commands) {
          if (command.kind === 'create') {
            const env: EnvironmentRecord = {
              environmentId: `env-${envs.length}`,
              applicationId: 'app',
              organizationId: 'org',
              name: `env-${envs.length}`,
              applicationType: 'STANDARD',
              createdAt: 1,
              ...(command.legacy ? {} : { coverageCounted: true }),
            };
            write(envs.length, env);
            continue;
          }
          const env = envs[command.env];
          if (!env || env.deleting) continue;
          if (command.kind === 'scan') write(command.env, { ...env, lastScanTimestamp: command.at });
          else if (command.kind === 'delete') write(command.env, { ...env, deleting: true });
          else write(command.env, { ...env, coverageCounted: true });
        }
        expect(nonZero(counters)).toEqual(recomputed(envs));
        // Every live scanned counted environment is in the total, its day and its hour.
        const scanned = envs.filter((e) => e.coverageCounted && !e.deleting && (e.lastScanTimestamp ?? 0) > 0);
        expect(nonZero(counters).get(keyOf(keys.coverageScanned('org')))?.environments ?? 0).toBe(scanned.length);
      }),
      { numRuns: 300 },
    );
  });
});
