import { describe, expect, it } from 'vitest';
import { SSO_ROLES, roleOfGroups, teamsOfGroups } from '../../shared/identity/model.ts';
import { ROLE_NAMES } from '../../shared/context/roles.ts';

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

  it('maps groups to every named role, a scanner or read-only group below a member one', () => {
    expect([...SSO_ROLES].sort()).toEqual([...ROLE_NAMES].sort());
    const roles = [
      { group: 'auditors', role: 'READ_ONLY' as const },
      { group: 'ci', role: 'SCANNER' as const },
      { group: 'staff', role: 'MEMBER' as const },
    ];
    expect(roleOfGroups(['auditors'], roles)).toBe('READ_ONLY');
    expect(roleOfGroups(['ci'], roles)).toBe('SCANNER');
    expect(roleOfGroups(['ci', 'auditors'], roles)).toBe('READ_ONLY');
    expect(roleOfGroups(['ci', 'auditors', 'staff'], roles)).toBe('MEMBER');
  });
});
