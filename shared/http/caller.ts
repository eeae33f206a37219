import { getOrganizationAccess, type Membership } from '../identity/membership-repository.ts';
import { unauthorized } from '../errors.ts';
import { hints } from '../identity/hints.ts';
import type { Permission } from '../identity/permissions.ts';
import type { AccessTokenClaims, KeyScope } from '../auth/tokens.ts';
import { revokedHere } from '../identity/revocations.ts';

export type OrganizationAccess =
  | { granted: true; membership: Membership }
  | { granted: false; reason: 'not-a-member' | 'no-api-access' | 'missing-permission' | 'key-revoked' };

/**
 * The authenticated user of a request. Organization access is read per request (one BatchGetItem, memoized for
 * the request), so permission, team and plan changes apply to the next request rather than at token expiry.
 */
export interface Caller {
  userId: string;
  /** The API key the caller's session started with. */
  apiKeyId: string;
  /** The session's API key is narrowed (docs/IDENTITY.md "API keys"): its permissions and application. */
  scope?: KeyScope;
  /** The run whose hosted runner this session is (its launch token's claim): marks the device it registers. */
  launchedFor?: string;
  /**
   * Whether the caller may use this operation (its route's permission) in the organization, and why not.
   * `applicationId`: the application the operation addresses; a key narrowed to an application may use only
   * operations addressed to it.
   */
  access(orgId: string, applicationId?: string): Promise<OrganizationAccess>;
  /** The caller's membership, or 401 when access is not granted (deliberately vague: docs/API.md, Errors). */
  authorize(orgId: string): Promise<Membership>;
}

/**
 * Whether the session is narrowed to some permissions or one application (a narrowed key, a hosted runner): such a
 * session acts with less than its member's standing. A scope of one organization only (a single sign-on session)
 * is not: within that organization it is the member.
 */
export const narrowed = (scope: KeyScope | undefined) => Boolean(scope?.permissions || scope?.applicationId);

/** Whether a session of this scope may use `permission` (the member's own permissions are checked apart). */
export const scopeAllows = (scope: KeyScope | undefined, permission: Permission | undefined) =>
  !permission || !scope?.permissions || scope.permissions.includes(permission);

export function createCaller(
  claims: Pick<AccessTokenClaims, 'userId' | 'apiKeyId' | 'scope' | 'launchedFor'>,
  permission: Permission | undefined,
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
    access,
    async authorize(orgId) {
      const result = await access(orgId);
      if (!result.granted) throw unauthorized();
      return result.membership;
    },
  };
}
