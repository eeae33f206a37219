import { describe, expect, it } from 'vitest';
import { permissionsOfRole, roleOfGroups, teamsOfGroups } from '../../shared/sso/roles.ts';
import { PERMISSIONS } from '../../shared/identity/permissions.ts';

// How an identity provider's groups map to a role and teams (docs/IDENTITY.md "Groups, teams and roles").

describe('single sign-on group mappings', () => {
  const groupRoles = [
    { group: 'staff', role: 'MEMBER' as const },
    { group: 'admins', role: 'ADMIN' as const },
    { group: 'founders', role: 'OWNER' as const },
  ];

  it('takes the strongest role any group maps to, and none when no group is mapped', () => {
    expect(roleOfGroups(['staff'], groupRoles)).toBe('MEMBER');
    expect(roleOfGroups(['staff', 'admins'], groupRoles)).toBe('ADMIN');
    expect(roleOfGroups(['admins', 'founders', 'staff'], groupRoles)).toBe('OWNER');
    expect(roleOfGroups(['visitors'], groupRoles)).toBeUndefined();
    expect(roleOfGroups([], [])).toBeUndefined();
  });

  it('lists each mapped team once', () => {
    const groupTeams = [
      { group: 'web', teamId: 't1' },
      { group: 'frontend', teamId: 't1' },
      { group: 'api', teamId: 't2' },
    ];
    expect(teamsOfGroups(['web', 'frontend'], groupTeams)).toEqual(['t1']);
    expect(teamsOfGroups(['api', 'other'], groupTeams)).toEqual(['t2']);
    expect(teamsOfGroups([], groupTeams)).toEqual([]);
  });

  it('gives members everything but managing members and integrations and deleting', () => {
    expect(permissionsOfRole('OWNER')).toEqual([...PERMISSIONS]);
    expect(permissionsOfRole('ADMIN')).toEqual([...PERMISSIONS]);
    const member = permissionsOfRole('MEMBER');
    expect(member).toContain('write:scan');
    expect(member).toContain('write:triage');
    for (const p of ['write:member', 'write:integration', 'delete:application', 'delete:scan'] as const)
      expect(member).not.toContain(p);
  });
});
