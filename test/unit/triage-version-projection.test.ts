import { describe, expect, it } from 'vitest';
import { entityKind, entityWrites } from '../../shared/db/entity-write.ts';
import { keys } from '../../shared/db/keys.ts';
import * as triageVersion from '../../shared/findings/projections/triage-version.ts';

// The environment's triage version is a projection of its rules (shared/findings/projections/triage-version.ts):
// any change of a rule moves it, once per environment and transaction, so a scan's publication conditioned on the
// version it read fails after any triage since.

const env = { applicationId: 'app', environmentId: 'env' };
const rule = (hash: string, version: number) => ({ findingHash: hash, version });

describe('the triage version projection', () => {
  it('moves the version for a changed rule, not for an unchanged or removed one', () => {
    expect(triageVersion.project(undefined, rule('a', 1), env).counters).toEqual([
      { key: keys.triageVersion('app', 'env'), entity: 'triageVersion', add: { version: 1 } },
    ]);
    expect(triageVersion.project(rule('a', 1), rule('a', 2), env).counters).toHaveLength(1);
    expect(triageVersion.project(rule('a', 2), rule('a', 2), env)).toEqual({});
    expect(triageVersion.project(rule('a', 2), undefined, env)).toEqual({});
  });

  it('is one Update of the version per environment, whatever the rules written together', () => {
    const writes = ['a', 'b', 'c'].map((hash, i) => ({
      change: { key: { pk: 'rule', sk: hash }, before: undefined, after: rule(hash, 1), name: `r${i}` },
      context: env,
    }));
    // The rules' kind with this projection alone (the triageRule kind registers it with the rule's others).
    const kind = entityKind<ReturnType<typeof rule>, typeof env>('triageRule', { version: triageVersion.project });
    const key = JSON.stringify(keys.triageVersion('app', 'env'));
    const updates = entityWrites(kind, writes).filter((item) => JSON.stringify(item.Update?.Key) === key);
    expect(updates).toHaveLength(1);
    expect(updates[0]!.Update!.ExpressionAttributeValues).toMatchObject({ ':entity': 'triageVersion', ':c0': 3 });
  });
});
