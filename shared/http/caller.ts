import { getOrganizationAccess, type Membership } from '../identity/membership-repository.ts';
import { unauthorized } from '../errors.ts';
import { hints } from '../identity/hints.ts';
import type { Permission } from '../identity/permissions.ts';

export type OrganizationAccess =
  | { granted: true; membership: Membership }
  | { granted: false; reason: 'not-a-member' | 'no-api-access' | 'missing-permission' };

/**
 * The authenticated user of a request. Organization access is read per request (one BatchGetItem, memoized for
 * the request), so permission, team and plan changes apply to the next request rather than at token expiry.
 */
export interface Caller {
  userId: string;
  /** The API key the caller's session started with. */
  apiKeyId: string;
  /** Whether the caller may use this operation (its route's permission) in the organization, and why not. */
  access(orgId: string): Promise<OrganizationAccess>;
  /** The caller's membership, or 401 when access is not granted (SPEC 5.7: deliberately vague). */
  authorize(orgId: string): Promise<Membership>;
}

export function createCaller(userId: string, apiKeyId: string, permission: Permission | undefined): Caller {
  const cache = new Map<string, Promise<OrganizationAccess>>();
  const access = (orgId: string): Promise<OrganizationAccess> => {
    let pending = cache.get(orgId);
    if (!pending) {
      pending = getOrganizationAccess(orgId, userId).then(({ organization, membership }): OrganizationAccess => {
        if (!organization || !membership) return { granted: false, reason: 'not-a-member' };
        if (!organization.apiAccess) return { granted: false, reason: 'no-api-access' };
        hints.addOrganizationOf(userId, orgId);
        if (permission && !membership.permissions.includes(permission))
          return { granted: false, reason: 'missing-permission' };
        return { granted: true, membership };
      });
      cache.set(orgId, pending);
    }
    return pending;
  };
  return {
    userId,
    apiKeyId,
    access,
    async authorize(orgId) {
      const result = await access(orgId);
      if (!result.granted) throw unauthorized();
      return result.membership;
    },
  };
}
