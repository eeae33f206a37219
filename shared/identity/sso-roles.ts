import type { RoleName } from '../context/roles.ts';

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
