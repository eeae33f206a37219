import { expect } from 'vitest';
import { api, type ApiResponse } from './client.ts';
import { addUserTo, createTenant } from './fixtures.ts';

// Helpers of the team tests: every call goes over HTTP.

export interface TeamView {
  id: string;
  name: string;
  organizationId: string;
  users: { userId: string; userName: string; email: string; role: string }[];
  applications: { applicationId: string; applicationName: string; environments: string[]; lastScanTimestamp: string }[];
}

export interface TeamState {
  name: string;
  userIds?: string[];
  applicationIds?: string[];
}

export async function newApp(orgId: string, token: string, name: string, env?: string): Promise<string> {
  const out = await api('POST', `/api/v1/org/${orgId}/app`, { token, body: { name, env } });
  expect(out.status, out.text).toBe(200);
  return out.body.applicationId;
}

export async function newTeam(orgId: string, token: string, state: TeamState): Promise<TeamView> {
  const out = await api('POST', `/api/v1/org/${orgId}/team`, { token, body: { organizationId: orgId, ...state } });
  expect(out.status, out.text).toBe(200);
  return out.body.team;
}

export async function readTeam(orgId: string, token: string, teamId: string): Promise<TeamView> {
  const out = await api('GET', `/api/v1/org/${orgId}/team/${teamId}`, { token });
  expect(out.status, out.text).toBe(200);
  return out.body.team;
}

/** PUT with the whole state, as public clients send it. */
export function putTeam(
  orgId: string,
  token: string,
  teamId: string,
  state: TeamState,
): Promise<ApiResponse<{ team: TeamView; message?: string }>> {
  return api('PUT', `/api/v1/org/${orgId}/team/${teamId}`, {
    token,
    body: { teamId, organizationId: orgId, userIds: [], applicationIds: [], ...state },
  });
}

export const userIdsOf = (team: TeamView) => team.users.map((u) => u.userId).sort();
export const appIdsOf = (team: TeamView) => team.applications.map((a) => a.applicationId).sort();

/** The ids of the teams the token's user belongs to in the organization (first page of up to 1000). */
export async function myTeamIds(orgId: string, user: { userId: string; token: string }): Promise<string[]> {
  const out = await api('GET', `/api/v1/org/${orgId}/user/${user.userId}/teams`, {
    token: user.token,
    query: { pageSize: 1000 },
  });
  expect(out.status, out.text).toBe(200);
  return out.body.teams.map((t: TeamView) => t.id).sort();
}

export async function canReadApp(token: string, appId: string): Promise<boolean> {
  const status = (await api('GET', `/api/v1/app/${appId}`, { token })).status;
  expect([200, 401]).toContain(status);
  return status === 200;
}

/** An organization whose team has one member, who created an application with one environment (so the team owns it). */
export async function teamOwningApp(teamName: string) {
  const owner = await createTenant();
  const member = await addUserTo(owner.orgId);
  const outsider = await addUserTo(owner.orgId);
  const team = await newTeam(owner.orgId, owner.token, { name: teamName, userIds: [member.userId] });
  const app = await newApp(owner.orgId, member.token, `${teamName} app`, 'dev');
  return { owner, member, outsider, team, app };
}
