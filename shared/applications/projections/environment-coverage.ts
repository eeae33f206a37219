import { keys } from '../../db/keys.ts';
import { netCounters, type CounterChange, type Projected } from '../../db/entity-write.ts';
import { DAY, type EnvironmentRecord, HOUR } from '../model.ts';

// The overview's coverage counters (docs/GOVERNANCE.md, The overview; keys.coverageCounter): per organization, its
// live environments by the UTC day and by the hour their last scan started, and how many have a last scan. A
// projection of the environment's record: a write moves the environment from the day and hour of its last scan
// before it to those after; its delete (and its application's, applicationCoverageRemoval) takes it out. Only
// environments that count (`coverageCounted`: all but those written before the counters, which npm run migrate
// counts) are in them.

export const COVERAGE_ENTITY = 'coverageCounter';

/** What a live, counted environment in its state `env` adds to the counters (sign -1: what leaving them takes). */
export function coverageShare(env: EnvironmentRecord | undefined, sign: 1 | -1 = 1): CounterChange[] {
  const at = env?.lastScanTimestamp ?? 0;
  if (!env || env.deleting || !env.coverageCounted || at <= 0) return [];
  const counter = (key: { pk: string; sk: string }): CounterChange => ({
    key,
    entity: COVERAGE_ENTITY,
    add: { environments: sign },
  });
  return [
    counter(keys.coverageScanned(env.organizationId)),
    counter(keys.coverageCounter(env.organizationId, 'DAY', Math.floor(at / DAY))),
    counter(keys.coverageCounter(env.organizationId, 'HOUR', Math.floor(at / HOUR))),
  ];
}

/** The change of the counters from `before` to `after`: none unless the last scan's start or liveness changes. */
export const project = (before: EnvironmentRecord | undefined, after: EnvironmentRecord | undefined): Projected => ({
  counters: netCounters([...coverageShare(before, -1), ...coverageShare(after)]),
});
