import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem, named } from '../db/items.ts';
import { batchGet, queryAll } from '../db/query.ts';
import { putNewItem, setAndRemove, type TransactItem } from '../db/transactions.ts';
import { config } from '../config.ts';
import { type TeamRecord } from './model.ts';

// The id lists are stored as string sets (an empty set cannot be stored: the attribute is then absent), so that
// an application can join or leave a team with ADD/DELETE without reading its list.
function toRecord(item: Record<string, unknown> | undefined): TeamRecord | undefined {
  const stored = fromItem<
    Omit<TeamRecord, 'userIds' | 'applicationIds'> & { userIds?: Set<string>; applicationIds?: Set<string> }
  >(item);
  if (!stored) return undefined;
  return {
    ...stored,
    userIds: [...(stored.userIds ?? [])].sort(),
    applicationIds: [...(stored.applicationIds ?? [])].sort(),
  };
}

const idSet = (ids: string[]) => (ids.length ? new Set(ids) : undefined);

/** The team, read strongly consistent: writes are built on it. */
export async function getTeam(orgId: string, teamId: string): Promise<TeamRecord | undefined> {
  const out = await db.send(
    new GetCommand({ TableName: config.tableName, Key: keys.team(orgId, teamId), ConsistentRead: true }),
  );
  return toRecord(out.Item);
}

/** The organization's teams with these ids (unknown ones are left out); order is not kept. */
export async function getTeams(orgId: string, teamIds: string[]): Promise<TeamRecord[]> {
  const items = await batchGet([...new Set(teamIds)].map((teamId) => keys.team(orgId, teamId)));
  return items.map((item) => toRecord(item)!);
}

/** Every team of the organization (one partition range). */
export async function teamsOfOrg(orgId: string): Promise<TeamRecord[]> {
  const { pk, skPrefix } = keys.teamsOfOrg(orgId);
  return (await queryAll({ partition: pk, skPrefix })).map((item) => toRecord(item)!);
}

// ---- Writes: each returns TransactWriteItems for the domain to commit with the copies and the audit entry.

export function teamPut(team: TeamRecord): TransactItem {
  const { userIds, applicationIds, ...fields } = team;
  return named(
    'teamChanged',
    putNewItem({
      ...keys.team(team.organizationId, team.teamId),
      entity: 'team',
      ...fields,
      userIds: idSet(userIds),
      applicationIds: idSet(applicationIds),
    }),
  );
}

/** Replaces the team's name and lists with `next`, conditioned on the version read (`read.version`). */
export function teamUpdate(read: TeamRecord, next: TeamRecord): TransactItem {
  const set = ['#name = :name', 'version = :next'];
  const remove: string[] = [];
  const values: Record<string, unknown> = { ':name': next.name, ':next': read.version + 1, ':read': read.version };
  for (const list of ['userIds', 'applicationIds'] as const) {
    const ids = idSet(next[list]);
    if (ids) {
      set.push(`${list} = :${list}`);
      values[`:${list}`] = ids;
    } else {
      remove.push(list);
    }
  }
  return named('teamChanged', {
    Update: {
      TableName: config.tableName,
      Key: keys.team(read.organizationId, read.teamId),
      UpdateExpression: setAndRemove(set, remove),
      ConditionExpression: 'version = :read',
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: values,
    },
  });
}

export function teamDelete(read: TeamRecord): TransactItem {
  return {
    Delete: {
      TableName: config.tableName,
      Key: keys.team(read.organizationId, read.teamId),
      ConditionExpression: 'version = :read',
      ExpressionAttributeValues: { ':read': read.version },
    },
  };
}

/** Claims the team's name in its organization: fails (ConditionalCheckFailed) if another team has it. */
export function teamNameClaim(team: TeamRecord): TransactItem {
  return named(
    'nameTaken',
    putNewItem({ ...keys.teamName(team.organizationId, team.name), entity: 'teamName', teamId: team.teamId }),
  );
}

export function teamNameRelease(team: TeamRecord): TransactItem {
  return { Delete: { TableName: config.tableName, Key: keys.teamName(team.organizationId, team.name) } };
}
