import type { Projected } from '../../db/entity-write.ts';
import { keys } from '../../db/keys.ts';
import type { TriageRule } from '../../results/model.ts';

// The environment's triage version (keys.triageVersion; docs/DATA-MODEL.md, Projections): a counter a triage's
// change of any of its rules moves, which a scan's publication is conditioned on (triageVersionCheck), so that a
// scan never counts its findings under rules that changed since it read them. A projection of the rule: each change
// adds one (netted per environment: a write of several rules adds their number; only that it moved is read).

/** The version's counter change for the rule's change from `before` to `after` (none when it is not changed). */
export function project(
  before: Pick<TriageRule, 'version'> | undefined,
  after: Pick<TriageRule, 'version'> | undefined,
  env: { applicationId: string; environmentId: string },
): Projected {
  if (!after || before?.version === after.version) return {};
  const key = keys.triageVersion(env.applicationId, env.environmentId);
  return { counters: [{ key, entity: 'triageVersion', add: { version: 1 } }] };
}
