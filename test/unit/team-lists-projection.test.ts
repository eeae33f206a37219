import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys.ts';
import * as teamLists from '../../shared/applications/projections/team-application-lists.ts';

// A team's application list is a projection of its applications' owners (docs/DATA-MODEL.md, Projections;
// docs/API.md, Teams): for any move of applications between teams, applying the items to the lists before it leaves
// each team other than the writer listing exactly its applications after it, with one Update per team.

const TEAMS = ['t1', 't2', 't3'];
const owner = fc.option(fc.constantFrom(...TEAMS), { nil: undefined });
const owners = fc.dictionary(fc.constantFrom('a1', 'a2', 'a3', 'a4'), owner);

describe('the team application lists projection', () => {
  it('creates: the team gains its new applications in one Update, which fails at teamGone when it is gone', () => {
    const { items = [] } = teamLists.project(
      new Map(),
      new Map([
        ['a1', 't1'],
        ['a2', 't1'],
        ['a3', undefined],
      ]),
      {
        organizationId: 'org',
      },
    );
    expect(items).toHaveLength(1);
    const update = items[0]!.Update!;
    expect(update.Key).toEqual(keys.team('org', 't1'));
    expect(update.UpdateExpression).toBe('ADD applicationIds :apps, version :one');
    expect(update.ConditionExpression).toBe('attribute_exists(pk)');
    expect(update.ExpressionAttributeValues![':apps']).toEqual(new Set(['a1', 'a2']));
  });

  it("a team's write: the teams its applications are taken from lose them, on their version read; its own is left", () => {
    fc.assert(
      fc.property(owners, fc.constantFrom(...TEAMS), (was, writer) => {
        // The writer's update takes some applications and lets its own go (the moves teams.ts makes).
        const before = new Map(Object.entries(was));
        const after = new Map([...before].map(([app, team]) => [app, team === writer ? undefined : writer]));
        const teams = new Map(TEAMS.map((teamId, i) => [teamId, { version: i + 10 }]));
        const { items = [] } = teamLists.project(before, after, { organizationId: 'org', teams, writer });
        const lists = new Map(TEAMS.map((t) => [t, new Set([...before].filter(([, o]) => o === t).map(([a]) => a))]));
        const touched = new Set<string>();
        for (const { Update: update } of items) {
          const teamId = TEAMS.find((t) => JSON.stringify(keys.team('org', t)) === JSON.stringify(update!.Key))!;
          expect(touched.has(teamId)).toBe(false);
          touched.add(teamId);
          expect(teamId).not.toBe(writer);
          expect(update!.UpdateExpression).toBe('DELETE applicationIds :apps ADD version :one');
          expect(update!.ExpressionAttributeValues![':read']).toBe(teams.get(teamId)!.version);
          for (const app of update!.ExpressionAttributeValues![':apps'] as Set<string>) lists.get(teamId)!.delete(app);
        }
        for (const t of TEAMS.filter((t) => t !== writer))
          expect([...lists.get(t)!].sort()).toEqual(
            [...after]
              .filter(([, o]) => o === t)
              .map(([a]) => a)
              .sort(),
          );
      }),
    );
  });

  it('leaves a team it did not read (gone) and writes nothing when no owner changes', () => {
    const moved = teamLists.project(new Map([['a1', 'gone']]), new Map([['a1', 't1']]), {
      organizationId: 'org',
      teams: new Map(),
      writer: 't1',
    });
    expect(moved).toEqual({});
    const same = new Map([['a1', 't1']]);
    expect(teamLists.project(same, same, { organizationId: 'org' })).toEqual({});
  });
});
