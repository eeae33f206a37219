import { useUser } from './user';

// The caller's permissions in an organization, as GET /api/v1/user lists them (READ_MEMBER, WRITE_TRIAGE, ...).
// Pages ask here first and offer only what the caller may do, rather than a form the service refuses (401).
export type PermissionName =
  | 'READ_MEMBER'
  | 'WRITE_MEMBER'
  | 'WRITE_TRIAGE'
  | 'READ_REPORT'
  | 'WRITE_APPLICATION'
  | 'WRITE_SCAN'
  | 'READ_SCAN_CONFIG'
  | 'WRITE_SCAN_CONFIG'
  | 'READ_DEVICE'
  | 'WRITE_DEVICE'
  | 'READ_POLICY'
  | 'WRITE_POLICY'
  | 'WRITE_INTEGRATION';

/** Whether the signed-in user holds `permission` in `orgId`; undefined while the user is loading. */
export function useHasPermission(orgId: string, permission: PermissionName): boolean | undefined {
  const user = useUser();
  if (!user.data) return undefined;
  const membership = user.data.user?.external?.organizations?.find((o) => o.organization?.id === orgId);
  return (membership?.permissions ?? []).includes(permission);
}
