import { config } from '../../config.ts';
import type { Membership } from '../../context/caller.ts';
import type { Projected } from '../../db/entity-write.ts';
import { keys } from '../../db/keys.ts';
import type { TransactItem } from '../../db/transactions.ts';
import type { TeamRecord } from '../model.ts';

// A team's members as their memberships copy them (`teamIds`; docs/DATA-MODEL.md, Teams and Projections): a
// projection of the team's `userIds`, which per-request authorization reads through the membership. The copy stays a
// list (first-joined team first: it owns what the user creates), so a removal addresses the index the write read.
// The memberships belong to shared/identity/, which keeps `teamIds` as the team items leave it (putMembership).

/** The team's members (undefined: no team). */
export type TeamMembers = Pick<TeamRecord, 'teamId' | 'userIds'>;

export interface TeamMembersContext {
  /** The memberships read of the users the team has before or after the write, by user id. */
  memberships: ReadonlyMap<string, Membership>;
}

/**
 * The Updates of the memberships of the users who join the team (those whose membership lacks it when read) and of
 * those who leave it (those whose membership has it when read), joining first.
 */
export function project(
  before: TeamMembers | undefined,
  after: TeamMembers | undefined,
  { memberships }: TeamMembersContext,
): Projected {
  const teamId = (after ?? before)?.teamId;
  if (!teamId) return {};
  const staying = after?.userIds ?? [];
  const read = (userIds: readonly string[]) => userIds.flatMap((id) => memberships.get(id) ?? []);
  const joining = read(staying).filter((m) => !m.teamIds.includes(teamId));
  const leaving = read((before?.userIds ?? []).filter((id) => !staying.includes(id))).filter((m) =>
    m.teamIds.includes(teamId),
  );
  const items = [...joining.map((m) => teamAdded(m, teamId)), ...leaving.map((m) => teamRemoved(m, teamId))];
  return items.length > 0 ? { items } : {};
}

/** The membership item's primary key (without its index keys). */
function membershipKey({ organizationId, userId }: Membership) {
  const { pk, sk } = keys.membership(organizationId, userId);
  return { pk, sk };
}

/** Adds the team to a membership that lacked it when read. */
const teamAdded = (membership: Membership, teamId: string): TransactItem => ({
  Update: {
    TableName: config.tableName,
    Key: membershipKey(membership),
    UpdateExpression: 'SET teamIds = list_append(if_not_exists(teamIds, :none), :team)',
    ConditionExpression: 'attribute_exists(pk) AND NOT contains(teamIds, :teamId)',
    ExpressionAttributeValues: { ':none': [], ':team': [teamId], ':teamId': teamId },
  },
});

/** Removes the team from a membership that had it when read (conditioned on its position being unchanged). */
function teamRemoved(membership: Membership, teamId: string): TransactItem {
  const index = membership.teamIds.indexOf(teamId);
  return {
    Update: {
      TableName: config.tableName,
      Key: membershipKey(membership),
      UpdateExpression: `REMOVE teamIds[${index}]`,
      ConditionExpression: `teamIds[${index}] = :teamId`,
      ExpressionAttributeValues: { ':teamId': teamId },
    },
  };
}
