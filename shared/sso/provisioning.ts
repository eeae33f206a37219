import { randomUUID } from 'node:crypto';
import { keys } from '../db/keys.ts';
import { config } from '../config.ts';
import { failedCondition, retryOnConflict } from '../db/retry.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { auditEntry } from '../audit/entries.ts';
import { conflict, unauthorized } from '../errors.ts';
import { getOrganizationAccess } from '../identity/membership-repository.ts';
import { type Membership } from '../context/caller.ts';
import { actorNames, newUserItems, userIdOfEmail, userOrganizationUpdate } from '../identity/user-repository.ts';
import { getTeams, teamUpdate } from '../applications/team-repository.ts';
import { roleOfGroups, teamsOfGroups, type SsoProviderRecord } from '../identity/model.ts';
import { grantOf, roleNameOf, type MemberRoleName } from '../context/roles.ts';
import { getSsoIdentity, putSsoIdentity } from '../identity/sso-repository.ts';
import { type SignedInIdentity, LinkRequired } from './model.ts';

// Just-in-time provisioning at sign-in (docs/IDENTITY.md "Groups, teams and roles"): the provider's identity
// (issuer and subject) is linked to a user, made on first sign-in; the user becomes a member with the role the
// groups map to (else the default role); the teams the groups map to are joined and the mapped teams whose group is
// gone are left. Everything lands in one transaction with its audit entry.

/**
 * Where the identity's user comes from: the user already linked to it, else a new user, which single sign-on alone
 * signs in (no API key; its sessions reach only this organization) and which claims no e-mail address: the
 * provider's word would otherwise keep the address's owner from ever accepting another organization's invitation.
 * An existing user of the address (one that claimed it): LinkRequired.
 */
async function userOf(provider: SsoProviderRecord, identity: SignedInIdentity) {
  const orgId = provider.organizationId;
  const linked = await getSsoIdentity(orgId, identity.issuer, identity.subject);
  if (linked) return { userId: linked, items: [] as TransactItem[], created: false, user: undefined };
  const existing = await userIdOfEmail(identity.email);
  if (existing) throw new LinkRequired(existing);
  const userId = randomUUID();
  const user = {
    userId,
    email: identity.email,
    fullName: identity.name || identity.email.split('@')[0]!,
    createdAt: Date.now(),
    // The provider's word on the address: it claims none (another organization may invite its owner).
    provisionedBy: orgId,
  };
  return {
    userId,
    items: [...newUserItems(user, [orgId]), putSsoIdentity(orgId, identity.issuer, identity.subject, userId)],
    created: true,
    user,
  };
}

/** The membership as it should be after this sign-in. */
function membershipWrite(
  orgId: string,
  userId: string,
  current: Membership | undefined,
  role: MemberRoleName,
  teamIds: string[],
  now: number,
): TransactItem {
  const { pk, sk, gsi1pk, gsi1sk } = keys.membership(orgId, userId);
  const currentRole = current && roleNameOf(current);
  // The role's permissions, unless the role stays: then a member's custom permissions stay too.
  const grant = currentRole === role || role === 'CUSTOM' ? { ...current!, roleName: role } : grantOf({ role });
  return {
    Update: {
      TableName: config.tableName,
      Key: { pk, sk },
      UpdateExpression:
        'SET entity = :entity, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk, organizationId = :org, userId = :user, #role = :role, ' +
        'roleName = :roleName, #permissions = :permissions, createdAt = if_not_exists(createdAt, :now), teamIds = :teams',
      // Written over what was read: a concurrent change of the member's teams, role or permissions makes it try again.
      ConditionExpression: current
        ? 'attribute_exists(pk) AND #role = :readRole AND #permissions = :readPermissions AND teamIds = :readTeams'
        : 'attribute_not_exists(pk)',
      ExpressionAttributeNames: { '#role': 'role', '#permissions': 'permissions' },
      ExpressionAttributeValues: {
        ':entity': 'membership',
        ':gsi1pk': gsi1pk,
        ':gsi1sk': gsi1sk,
        ':org': orgId,
        ':user': userId,
        ':role': grant.role,
        ':roleName': grant.roleName,
        ':permissions': grant.permissions,
        ':now': now,
        ':teams': teamIds,
        ...(current
          ? { ':readRole': current.role, ':readPermissions': current.permissions, ':readTeams': current.teamIds ?? [] }
          : {}),
      },
    },
  };
}

/** Links, creates and updates what the sign-in needs; answers the user's id. */
export async function provision(provider: SsoProviderRecord, identity: SignedInIdentity): Promise<string> {
  const orgId = provider.organizationId;
  const retry = {
    conflict: failedCondition(),
    exhausted: () => conflict('your account is being changed concurrently; sign in again'),
  };
  return retryOnConflict(retry, async () => {
    const source = await userOf(provider, identity);
    const { userId } = source;
    const { organization, membership } = await getOrganizationAccess(orgId, userId);
    if (!organization?.apiAccess) throw unauthorized('Unauthorized: API access is not enabled for this organization');
    const now = Date.now();
    // An owner keeps the role whatever the groups say: the organization must not lose its owners to a group change.
    const mapped = roleOfGroups(identity.groups, provider.groupRoles);
    const held = membership && roleNameOf(membership);
    const role: MemberRoleName = held === 'OWNER' ? 'OWNER' : (mapped ?? held ?? provider.defaultRole);
    const mappedTeams = [...new Set(provider.groupTeams.map((m) => m.teamId))];
    const wanted = new Set(teamsOfGroups(identity.groups, provider.groupTeams));
    const teams = await getTeams(orgId, mappedTeams);
    const before = membership?.teamIds ?? [];
    const joined = teams.filter((t) => wanted.has(t.teamId) && !t.userIds.includes(userId));
    const left = teams.filter((t) => !wanted.has(t.teamId) && t.userIds.includes(userId));
    const teamIds = [
      ...before.filter((id) => !left.some((t) => t.teamId === id)),
      ...joined.map((t) => t.teamId).filter((id) => !before.includes(id)),
    ];
    const changed = !membership || held !== role || joined.length > 0 || left.length > 0;
    if (!changed && !source.items.length) return userId;
    const items: TransactItem[] = [...source.items];
    if (changed) {
      items.push(
        membershipWrite(orgId, userId, membership, role, teamIds, now),
        ...(membership || source.created ? [] : [userOrganizationUpdate(userId, orgId, 'ADD')]),
        ...joined.map((t) => teamUpdate(t, { ...t, userIds: [...t.userIds, userId] })),
        ...left.map((t) => teamUpdate(t, { ...t, userIds: t.userIds.filter((id) => id !== userId) })),
      );
      // The user this sign-in made names itself; one linked before is read, only when the entry is written.
      const actor = {
        userId,
        known: source.user ? { fullName: source.user.fullName, email: source.user.email } : await actorNames(userId),
      };
      items.push(
        auditEntry(
          actor,
          orgId,
          membership ? 'USER_MODIFIED' : 'USER_JOINED_ORG',
          {
            via: 'sso',
            userId,
            email: identity.email,
            role,
            teamsJoined: joined.map((t) => t.teamId),
            teamsLeft: left.map((t) => t.teamId),
          },
          now,
        ),
      );
    }
    await transactWrite(items);
    return userId;
  });
}
