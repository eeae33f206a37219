// The permission names of docs/API.md, Permissions: the application, scan configuration and team ones plus those the
// public API uses for scans, audit, organization scan configurations, scan policies and repositories. A membership
// carries a subset; the route table names the one each operation needs.
export const PERMISSIONS = [
  'read:application',
  'write:application',
  'delete:application',
  'read:scan_config',
  'write:scan_config',
  'delete:scan_config',
  'read:team',
  'write:team',
  'delete:team',
  'read:scan',
  'write:scan',
  'delete:scan',
  'read:audit',
  'read:policy',
  'write:policy',
  'read:repository',
  'write:repository',
  'write:triage',
  'read:report',
  'read:member',
  /** Manage the organization's members: invitations, roles, removal, and their API keys. */
  'write:member',
  'read:integration',
  'write:integration',
  'read:device',
  'write:device',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/** The public API's name of a permission in user.UserOrganization.permissions: `read:scan_config` -> `READ_SCAN_CONFIG`. */
export const publicPermissionName = (permission: Permission) => permission.replace(':', '_').toUpperCase();

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}
