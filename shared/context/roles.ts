import { PERMISSIONS, type Permission } from './permissions.ts';

// Named roles (docs/IDENTITY.md "Members and roles"): what each grants, and the role the public API shows for it.
// The one place that says so: member management, invitations and single sign-on's group mapping all read it.

/** The public API's roles (user.UserOrganization.role), as a membership's `role` stores them. */
export const ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
export type Role = (typeof ROLES)[number];

/** Named roles a member manager assigns; CUSTOM is a permission set of its own, shown as MEMBER publicly. */
export const ROLE_NAMES = ['OWNER', 'ADMIN', 'MEMBER', 'READ_ONLY', 'SCANNER'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];
export type MemberRoleName = RoleName | 'CUSTOM';

const reads = PERMISSIONS.filter((p) => p.startsWith('read:'));

/** Each named role's permissions. Owners and admins differ only in who may make and change owners. */
export const ROLE_PERMISSIONS: Record<RoleName, readonly Permission[]> = {
  OWNER: PERMISSIONS,
  ADMIN: PERMISSIONS,
  /** Works with applications, scans, configurations and findings; manages no one, deletes nothing. */
  MEMBER: [
    ...reads,
    'write:application',
    'write:scan_config',
    'write:scan',
    'write:triage',
    'write:repository',
    'write:device',
  ],
  READ_ONLY: reads,
  /** The scanner and CI: reads what a scan needs, reports and imports scans, runs as a hosted-scan agent. */
  SCANNER: [
    'read:application',
    'read:scan_config',
    'read:policy',
    'read:scan',
    'write:scan',
    'read:device',
    'write:device',
  ],
};

/** The public API's role for a named role (it knows no READ_ONLY, SCANNER or custom sets: those are members). */
export const publicRoleOf = (name: MemberRoleName): Role => (name === 'OWNER' || name === 'ADMIN' ? name : 'MEMBER');

/** A role's permissions in PERMISSIONS order (how memberships store them). */
export const permissionsOfRole = (name: RoleName): Permission[] => ordered(ROLE_PERMISSIONS[name]);

/** Permissions deduplicated, in PERMISSIONS order. */
export function ordered(permissions: readonly Permission[]): Permission[] {
  const set = new Set(permissions);
  return PERMISSIONS.filter((p) => set.has(p));
}

/** What a membership grants: from a named role, or a custom permission set (which keeps the name of a role it equals). */
export function grantOf(input: { role: RoleName } | { permissions: readonly Permission[] }): {
  role: Role;
  roleName: MemberRoleName;
  permissions: Permission[];
} {
  if ('role' in input)
    return { role: publicRoleOf(input.role), roleName: input.role, permissions: permissionsOfRole(input.role) };
  const permissions = ordered(input.permissions);
  const same = (['MEMBER', 'READ_ONLY', 'SCANNER'] as const).find(
    (name) => permissionsOfRole(name).join() === permissions.join(),
  );
  return { role: 'MEMBER', roleName: same ?? 'CUSTOM', permissions };
}

/**
 * A membership's named role. Memberships written before roles were named (the admin CLI) carry only the public
 * role: an owner or admin is one, a member is the named role its permissions equal, else CUSTOM.
 */
export function roleNameOf(membership: {
  role: Role;
  roleName?: MemberRoleName;
  permissions: readonly Permission[];
}): MemberRoleName {
  if (membership.roleName) return membership.roleName;
  if (membership.role !== 'MEMBER') return membership.role;
  return grantOf({ permissions: membership.permissions }).roleName;
}
