import { getOrganizationAccess } from './membership-repository.ts';
import { unauthorized } from '../errors.ts';
import { hints } from './hints.ts';
import type { Permission } from '../context/permissions.ts';
import type { AccessTokenClaims } from '../auth/tokens.ts';
import { revokedHere } from './revocations.ts';
import { actorNames } from './user-repository.ts';
import { scopeAllows, type ActorNames, type Caller, type OrganizationAccess } from '../context/caller.ts';

/**
 * The request's Caller (shared/context/caller.ts) with its organization access reader: the organization and the
 * membership (identity's items), the plan's API access and the key's revocation. The authentication middleware
 * builds it per request (shared/http/middlewares.ts); `known`: the user's names, for a Caller built outside a request
 * that writes audit entries (a schedule's start).
 */
export function createCaller(
  claims: Pick<AccessTokenClaims, 'userId' | 'apiKeyId' | 'scope' | 'launchedFor'>,
  permission: Permission | undefined,
  known?: ActorNames,
): Caller {
  const { userId, apiKeyId, scope, launchedFor } = claims;
  const cache = new Map<string, Promise<OrganizationAccess>>();
  const organizationAccess = (orgId: string): Promise<OrganizationAccess> => {
    let pending = cache.get(orgId);
    // A session of one organization (single sign-on) reaches no other, whatever the user's memberships there.
    if (!pending && scope?.organizationId && scope.organizationId !== orgId)
      cache.set(orgId, (pending = Promise.resolve<OrganizationAccess>({ granted: false, reason: 'not-a-member' })));
    if (!pending) {
      pending = getOrganizationAccess(orgId, userId).then(({ organization, membership }): OrganizationAccess => {
        if (!organization || !membership) return { granted: false, reason: 'not-a-member' };
        if (!organization.apiAccess) return { granted: false, reason: 'no-api-access' };
        // A key revoked since the token was issued: its sessions end at once wherever this read is made.
        if (revokedHere(membership, apiKeyId)) return { granted: false, reason: 'key-revoked' };
        hints.addOrganizationOf(userId, orgId);
        if (permission && !membership.permissions.includes(permission))
          return { granted: false, reason: 'missing-permission' };
        if (!scopeAllows(scope, permission)) return { granted: false, reason: 'missing-permission' };
        return { granted: true, membership };
      });
      cache.set(orgId, pending);
    }
    return pending;
  };
  const access = async (orgId: string, applicationId?: string): Promise<OrganizationAccess> => {
    const result = await organizationAccess(orgId);
    if (result.granted && scope?.applicationId && scope.applicationId !== applicationId)
      return { granted: false, reason: 'missing-permission' };
    return result;
  };
  return {
    userId,
    apiKeyId,
    ...(scope ? { scope } : {}),
    ...(launchedFor ? { launchedFor } : {}),
    ...(known ? { known } : {}),
    access,
    async authorize(orgId) {
      const result = await access(orgId);
      if (!result.granted) throw unauthorized();
      return result.membership;
    },
  };
}

/** A caller acting outside a request (a schedule's start), named in its audit entries: its user item is read here. */
export async function createNamedCaller(
  claims: Pick<AccessTokenClaims, 'userId' | 'apiKeyId' | 'scope' | 'launchedFor'>,
  permission: Permission | undefined,
): Promise<Caller> {
  return createCaller(claims, permission, await actorNames(claims.userId));
}
