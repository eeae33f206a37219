import { config } from '../../config.ts';
import type { Projected } from '../../db/entity-write.ts';
import { named } from '../../db/items.ts';
import { keys } from '../../db/keys.ts';
import type { TransactItem } from '../../db/transactions.ts';
import type { TeamRecord } from '../model.ts';

// A team's list of its applications (`applicationIds`; docs/API.md, Teams; docs/DATA-MODEL.md, Projections): a
// projection of the owners (`teamId`) of the applications a write creates or moves. An application created for a
// team joins its list (the team must still exist: else the write fails at `teamGone`); one another team's write
// takes leaves its old team's list (conditioned on that team's version read). The team whose own write moves
// applications (a team's create, update or delete) writes its whole list itself: its projection is left out.
// Every list's write moves its team's version, so that a replace-all update built on an earlier read conflicts
// instead of dropping what it did not see.

/** Applications' owning teams by application id (undefined: none; an id absent: no such application yet). */
export type Owners = ReadonlyMap<string, string | undefined>;

export interface TeamListsContext {
  organizationId: string;
  /** The teams read, by id: an application leaves only the list of a team read (a team gone has none to leave). */
  teams?: ReadonlyMap<string, Pick<TeamRecord, 'version'>>;
  /** The team whose own write holds its list. */
  writer?: string;
}

/**
 * The Updates of the lists of the teams whose applications change from `before` to `after`: one per team (its
 * applications joining, or its applications leaving; a team does both only by its own write).
 */
export function project(before: Owners | undefined, after: Owners | undefined, context: TeamListsContext): Projected {
  const joining = new Map<string, string[]>();
  const leaving = new Map<string, string[]>();
  const add = (lists: Map<string, string[]>, teamId: string | undefined, appId: string) => {
    if (teamId && teamId !== context.writer) lists.set(teamId, [...(lists.get(teamId) ?? []), appId]);
  };
  for (const [appId, owner] of after ?? []) {
    const was = before?.get(appId);
    if (was === owner) continue;
    add(joining, owner, appId);
    if (context.teams?.has(was ?? '')) add(leaving, was, appId);
  }
  const items = [
    ...[...joining].map(([teamId, appIds]) => teamApplicationsAdded(context.organizationId, teamId, appIds)),
    ...[...leaving].map(([teamId, appIds]) =>
      teamApplicationsRemoved(context.organizationId, teamId, context.teams!.get(teamId)!.version, appIds),
    ),
  ];
  return items.length > 0 ? { items } : {};
}

/** New applications created for the team: the team must still exist, its version moves. */
const teamApplicationsAdded = (orgId: string, teamId: string, appIds: string[]): TransactItem =>
  named('teamGone', {
    Update: {
      TableName: config.tableName,
      Key: keys.team(orgId, teamId),
      UpdateExpression: 'ADD applicationIds :apps, version :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':apps': new Set(appIds), ':one': 1 },
    },
  });

/** Applications taken from the team by another team's write (conditioned on the version read). */
const teamApplicationsRemoved = (orgId: string, teamId: string, version: number, appIds: string[]): TransactItem => ({
  Update: {
    TableName: config.tableName,
    Key: keys.team(orgId, teamId),
    UpdateExpression: 'DELETE applicationIds :apps ADD version :one',
    ConditionExpression: 'version = :read',
    ExpressionAttributeValues: { ':apps': new Set(appIds), ':one': 1, ':read': version },
  },
});
