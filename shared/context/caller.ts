import type { Permission } from './permissions.ts';
import type { MemberRoleName, Role } from './roles.ts';

// The caller as domain code sees it (the kernel's context, below every resource). How its organization access
// is read (the membership and organization items, revocations) belongs to the pipeline: shared/identity/caller.ts builds
// a Caller with that reader when the authentication middleware accepts a request's token.

export interface Membership {
  organizationId: string;
  userId: string;
  /** The public API's role (roles.ts): READ_ONLY, SCANNER and custom sets are MEMBER there. */
  role: Role;
  /** The named role (roles.ts); absent on memberships written before roles were named (roleNameOf). */
  roleName?: MemberRoleName;
  permissions: Permission[];
  /** The teams of this organization the user belongs to; kept in step with team writes (teams issue). */
  teamIds: string[];
  createdAt: number;
  /** API keys of this user revoked in the last token lifetime (shared/identity/revocations.ts). */
  revokedApiKeys?: Set<string>;
}

/**
 * A narrowed session's limits: only these permissions (within the member's own), only this application, only this
 * organization (a single sign-on session reaches only its provider's organization: docs/IDENTITY.md).
 */
export interface KeyScope {
  permissions?: Permission[];
  applicationId?: string;
  organizationId?: string;
}

export type OrganizationAccess =
  | { granted: true; membership: Membership }
  | { granted: false; reason: 'not-a-member' | 'no-api-access' | 'missing-permission' | 'key-revoked' };

/** A user's name and e-mail, as audit entries record them (shared/audit/model.ts, AuditActor). */
export interface ActorNames {
  fullName: string;
  email: string;
}

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
   * The user's name and e-mail for the audit entries the operation writes: read by the pipeline, in the request's
   * first round trip, for operations whose route declares an audit type (shared/http/prefetch.ts), and given by
   * whoever builds a Caller outside a request (a schedule's start). Absent otherwise: nothing reads the user then.
   */
  known?: ActorNames;
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

/**
 * Whether the member holds `permission` and the caller's key allows it too: what a use case checks when it needs a
 * permission besides its route's (a narrowed key grants no more than it names, whatever the member holds).
 */
export const holdsPermission = (caller: Pick<Caller, 'scope'>, membership: Membership, permission: Permission) =>
  membership.permissions.includes(permission) && scopeAllows(caller.scope, permission);
