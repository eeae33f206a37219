import { PERMISSIONS, type Permission } from '../identity/permissions.ts';

// The roles an identity provider's groups can give (docs/IDENTITY.md "Groups, teams and roles"), and what each
// role may do. Kept to one small table so that it can take named roles from elsewhere later.

export const SSO_ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
export type SsoRole = (typeof SSO_ROLES)[number];

/** What only owners and administrators do: manage members, integrations and deletions. */
const MANAGING: Permission[] = [
  'write:member',
  'write:integration',
  'delete:application',
  'delete:scan_config',
  'delete:team',
  'delete:scan',
];

export function permissionsOfRole(role: SsoRole): Permission[] {
  if (role === 'MEMBER') return PERMISSIONS.filter((p) => !MANAGING.includes(p));
  return [...PERMISSIONS];
}

/** The strongest role any of the groups maps to (OWNER over ADMIN over MEMBER), or undefined when none does. */
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
