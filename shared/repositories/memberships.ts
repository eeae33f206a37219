import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem, cancellationReasons } from '../db/items.ts';
import { batchGet, queryAllByIndexPrefix } from '../db/reads.ts';
import { config } from '../config.ts';
import { badRequest } from '../errors.ts';
import { requireItem } from '../db/transactions.ts';
import type { Permission } from '../permissions.ts';
import type { Organization } from './organizations.ts';

export type Role = 'OWNER' | 'ADMIN' | 'MEMBER';

export interface Membership {
  organizationId: string;
  userId: string;
  role: Role;
  permissions: Permission[];
  /** The teams of this organization the user belongs to; kept in step with team writes (teams issue). */
  teamIds: string[];
  createdAt: number;
}

/** Adds (or replaces) a membership; the organization and the user must exist. */
export async function putMembership(membership: Membership): Promise<void> {
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          requireItem(keys.organization(membership.organizationId)),
          requireItem(keys.user(membership.userId)),
          {
            Put: {
              TableName: config.tableName,
              Item: { ...keys.membership(membership.organizationId, membership.userId), entity: 'membership', ...membership },
            },
          },
        ],
      }),
    );
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons?.[0] === 'ConditionalCheckFailed') throw badRequest(`organization ${membership.organizationId} does not exist`);
    if (reasons?.[1] === 'ConditionalCheckFailed') throw badRequest(`user ${membership.userId} does not exist`);
    throw error;
  }
}

/**
 * The organization and the caller's membership of it, in one BatchGetItem: this is the per-request
 * authorization read, so permission and team changes apply to the very next request.
 */
export async function getOrganizationAccess(
  orgId: string,
  userId: string,
): Promise<{ organization?: Organization; membership?: Membership }> {
  const { pk, sk } = keys.membership(orgId, userId);
  const items = await batchGet([keys.organization(orgId), { pk, sk }]);
  return {
    organization: fromItem<Organization>(items.find((item) => item.sk === '#ORG')),
    membership: fromItem<Membership>(items.find((item) => item.sk !== '#ORG')),
  };
}

export async function listMembershipsOfUser(userId: string): Promise<Membership[]> {
  const { gsi1pk, gsi1skPrefix } = keys.membershipsOfUser(userId);
  const items = await queryAllByIndexPrefix('gsi1', gsi1pk, gsi1skPrefix);
  return items.map((item) => fromItem<Membership>(item)!);
}

export async function getOrganizations(orgIds: string[]): Promise<Organization[]> {
  const items = await batchGet(orgIds.map((id) => keys.organization(id)));
  return items.map((item) => fromItem<Organization>(item)!);
}
