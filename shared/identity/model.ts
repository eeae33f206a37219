import type { RoleName, Role } from '../context/roles.ts';
import { type Membership } from '../context/caller.ts';

// Identity's model (docs/IDENTITY.md): single sign-on's stored records and pure rules (roles and teams by group,
// session ids), the owning role of an organization. Records, types and pure rules only (docs/LAYOUT.md, Layers): it
// imports the kernel and other resources' model.ts, never a repository.

export interface SsoProviderRecord {
  organizationId: string;
  issuer: string;
  clientId: string;
  /** The client secret, sealed (shared/secrets/sealing.ts); never shown. */
  sealedClientSecret: string;
  redirectUri: string;
  scopes: string[];
  groupsClaim: string;
  /** Only e-mail addresses of these domains may sign in (empty: any the provider vouches for). */
  allowedEmailDomains: string[];
  /** The role of a member provisioned at sign-in when no group maps to one. */
  defaultRole: SsoRole;
  groupRoles: { group: string; role: SsoRole }[];
  groupTeams: { group: string; teamId: string }[];
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
  /** Incremented by every change: writes are conditional on the revision they read. */
  revision: number;
}

/** A sign-in under way: what the callback checks, kept until used once or expired. */
export interface SsoSignInRecord {
  organizationId: string;
  /** SHA-256 (base64url) of the binding the browser tab keeps: the callback must come from the tab that started. */
  bindingHash: string;
  nonce: string;
  /** The PKCE code verifier, sealed. */
  sealedCodeVerifier: string;
  /** Epoch seconds (the table's TTL attribute). */
  expiresAt: number;
}

/** A session that single sign-on started; its tokens carry `sso.<sessionId>` where an API key's id would be. */
export interface SsoSessionRecord {
  sessionId: string;
  userId: string;
  organizationId: string;
  createdAt: number;
  /** Epoch seconds: refresh is refused from then on (and the table's TTL removes it). */
  expiresAt: number;
}

// Which role and teams an identity provider's groups give (docs/IDENTITY.md "Groups, teams and roles"). The roles
// and their permissions are the organization's named roles (shared/context/roles.ts): a member who signs in with
// single sign-on holds exactly what an invited member of the same role holds.

/** Every named role, strongest first: a person in several mapped groups gets the first of these they map to. */
export const SSO_ROLES = ['OWNER', 'ADMIN', 'MEMBER', 'READ_ONLY', 'SCANNER'] as const satisfies readonly RoleName[];

export type SsoRole = (typeof SSO_ROLES)[number];

/** The strongest role any of the groups maps to, or undefined when none does. */
export function roleOfGroups(
  groups: readonly string[],
  groupRoles: readonly { group: string; role: SsoRole }[],
): SsoRole | undefined {
  const present = new Set(groups);
  const roles = groupRoles.filter((m) => present.has(m.group)).map((m) => m.role);
  return SSO_ROLES.find((role) => roles.includes(role));
}

/** The teams the groups map to. */
export function teamsOfGroups(
  groups: readonly string[],
  groupTeams: readonly { group: string; teamId: string }[],
): string[] {
  const present = new Set(groups);
  return [...new Set(groupTeams.filter((m) => present.has(m.group)).map((m) => m.teamId))];
}

export const SESSION_PREFIX = 'sso.';

/** How long a session started by single sign-on may be refreshed before the user signs in again. */
export const SSO_SESSION_SECONDS = 12 * 60 * 60;

/** Whether a token's session id (`akid`) names a single sign-on session rather than an API key. */
export const isSsoSessionId = (id: string) => id.startsWith(SESSION_PREFIX);

/**
 * The role that owns the organization: OWNER, or ADMIN in an organization that has no owner (its memberships were
 * all written before roles were named, when the first user of an organization was an admin). Its admins then act
 * as owners: they may make owners, and the last of them stays.
 */
export function owningRole(memberships: Membership[]): Role {
  return memberships.some((m) => m.role === 'OWNER') ? 'OWNER' : 'ADMIN';
}

export const ssoSealContext = (orgId: string, field: string) => `sso:${orgId}:${field}`;
