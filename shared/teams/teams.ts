import { randomUUID } from 'node:crypto';
import {
  getTeam,
  getTeams,
  teamDelete,
  teamNameClaim,
  teamNameRelease,
  teamPut,
  teamUpdate,
  teamsOfOrg,
} from '../applications/team-repository.ts';
import type { TeamRecord } from '../applications/model.ts';
import { getMemberships } from '../identity/membership-repository.ts';
import { getApplication, getApplications } from '../applications/application-repository.ts';
import { environmentsOfApp } from '../applications/environment-repository.ts';
import { getUsers } from '../identity/user-repository.ts';
import { auditEntry } from '../audit/entries.ts';
import { derivedWrites } from '../db/entity-write.ts';
import { teamApplications, teamMembers } from '../applications/entities.ts';
import { cancelledItems, conditionFailed } from '../db/items.ts';
import { retryOnConflict } from '../db/retry.ts';
import { transactWrite, MAX_TRANSACTION_ITEMS, type TransactItem } from '../db/transactions.ts';
import { badRequest, conflict, notFound, unauthorized } from '../errors.ts';
import { compareBy, nameOrderKey, pageOf, v1NextPageToken } from '../lists.ts';
import type { Caller } from '../context/caller.ts';
import type {
  CreateTeamBody,
  ListTeamsForOrgQuery,
  ListTeamsForUserQuery,
  UpdateApplicationTeamBody,
  UpdateTeamBody,
} from './inputs.ts';
import { checkOrganization, without, namePattern } from './model.ts';

// Teams (docs/API.md, Teams; docs/DATA-MODEL.md, Teams). The team item holds the authoritative member and application
// lists; every write also changes, in the same transaction, the copies that per-request authorization reads
// (memberships' `teamIds`, applications' `teamId` and the organization counters), so a membership change applies
// to the caller's very next request. Every write is conditioned on the team version it read.

const TEAM_CHANGED =
  'the team was changed by another request while this one was applied: read it again (GET) and send the update based on that';

/** organization.Team, with its members and (live) applications. */
async function describeTeams(orgId: string, teams: TeamRecord[]) {
  const userIds = teams.flatMap((team) => team.userIds);
  const [users, memberships, apps] = await Promise.all([
    getUsers(userIds),
    getMemberships(orgId, userIds),
    getApplications(teams.flatMap((team) => team.applicationIds)),
  ]);
  const userById = new Map(users.map((user) => [user.userId, user]));
  const membershipByUser = new Map(memberships.map((m) => [m.userId, m]));
  const envsByApp = new Map(
    await Promise.all(
      apps.map(async (app) => [app.applicationId, await environmentsOfApp(app.applicationId)] as const),
    ),
  );
  return teams.map((team) => ({
    id: team.teamId,
    name: team.name,
    organizationId: team.organizationId,
    users: team.userIds
      .filter((userId) => membershipByUser.has(userId))
      .map((userId) => ({
        userId,
        userName: userById.get(userId)?.fullName ?? '',
        email: userById.get(userId)?.email ?? '',
        role: membershipByUser.get(userId)!.role,
      }))
      .sort(
        compareBy(
          (user) => user.userName.toLowerCase(),
          (user) => user.userId,
          'ASC',
        ),
      ),
    applications: apps
      .filter((app) => app.teamId === team.teamId && app.organizationId === orgId)
      .sort(
        compareBy(
          (app) => nameOrderKey(app.name, app.applicationId),
          (app) => app.applicationId,
          'ASC',
        ),
      )
      .map((app) => {
        const envs = envsByApp.get(app.applicationId) ?? [];
        return {
          applicationId: app.applicationId,
          applicationName: app.name,
          environments: envs.map((env) => env.name).sort(),
          lastScanTimestamp: Math.max(0, ...envs.map((env) => env.lastScanTimestamp ?? 0)),
        };
      }),
  }));
}

async function requireTeam(orgId: string, teamId: string): Promise<TeamRecord> {
  const team = await getTeam(orgId, teamId);
  if (!team) throw notFound(`team ${teamId} not found`);
  return team;
}

/**
 * The writes that take team `current` (absent: a new team) to `next`, besides the team item itself: its copies, as
 * the registered kinds derive them (shared/applications/entities.ts): the members' memberships (teamMembers), the
 * applications' ownership with the organization's counters and the lists of the teams applications are taken from
 * (teamApplications). Reads what they need and validates `next` first: its users must be members of the
 * organization, its applications live applications of it (400).
 */
async function teamCopiesWrites(
  orgId: string,
  current: TeamRecord | undefined,
  next: TeamRecord,
): Promise<TransactItem[]> {
  const [memberships, apps] = await Promise.all([
    getMemberships(orgId, [...(current?.userIds ?? []), ...next.userIds]),
    getApplications([...(current?.applicationIds ?? []), ...next.applicationIds]),
  ]);
  const membershipByUser = new Map(memberships.map((m) => [m.userId, m]));
  const unknownUsers = next.userIds.filter((id) => !membershipByUser.has(id));
  if (unknownUsers.length)
    throw badRequest(`userIds: not members of organization ${orgId}: ${unknownUsers.join(', ')}`);
  const appById = new Map(apps.filter((app) => app.organizationId === orgId).map((app) => [app.applicationId, app]));
  const unknownApps = next.applicationIds.filter((id) => !appById.has(id));
  if (unknownApps.length)
    throw badRequest(`applicationIds: no such applications in organization ${orgId}: ${unknownApps.join(', ')}`);
  // An application belongs to at most one team: one taken from another team leaves that team's list too.
  const taken = next.applicationIds.flatMap((id) => {
    const owner = appById.get(id)!.teamId;
    return owner && owner !== next.teamId ? [owner] : [];
  });
  const owners = await getTeams(orgId, [...new Set(taken)]);
  return [
    ...derivedWrites(teamMembers, current, next, { memberships: membershipByUser }),
    ...derivedWrites(teamApplications, current, next, {
      applications: appById,
      owners: new Map(owners.map((team) => [team.teamId, team])),
      now: Date.now(),
    }),
  ];
}

interface TeamWrite {
  items: TransactItem[];
  /** The name the write claims, if any (its claim fails at `nameTaken` when another team has it). */
  name?: string;
}

/**
 * Builds a team write from fresh reads and commits it in one transaction. A failed condition means a concurrent
 * change to one of the items read (the team, a membership, an application, another team): the write is built
 * again from new reads, up to CONFLICT_ATTEMPTS times; `build` decides whether a changed team is a conflict (409).
 */
async function commitTeamWrite(build: () => Promise<TeamWrite>, tooLarge: string): Promise<void> {
  const retry = {
    // Any cancellation: a condition on one of the items read failed.
    conflict: (error: unknown) =>
      cancelledItems(error)
        ?.map(({ code, name }) => `${code} at ${name}`)
        .join(', '),
    exhausted: () => conflict(TEAM_CHANGED),
    backoffMs: 20,
  };
  await retryOnConflict(retry, async () => {
    const { items, name } = await build();
    if (items.length === 0) return;
    if (items.length > MAX_TRANSACTION_ITEMS) {
      throw badRequest(
        `${tooLarge}: it needs ${items.length} writes in one transaction, and at most ${MAX_TRANSACTION_ITEMS} are possible`,
      );
    }
    try {
      await transactWrite(items);
    } catch (error) {
      // The team itself changed meanwhile: read again (the name may be free now); else the name is another team's.
      if (!conditionFailed(error, 'teamChanged') && conditionFailed(error, 'nameTaken'))
        throw badRequest(`name: the organization already has a team named "${name}"`);
      throw error;
    }
  });
}

const TOO_MANY_CHANGES =
  'too many changes for one atomic update (each user added or removed is one write, each application moved one to three)' +
  ': add or remove fewer users and applications per request';

export async function createTeam(caller: Caller, orgId: string, body: CreateTeamBody) {
  checkOrganization(body.organizationId, orgId);
  const team: TeamRecord = {
    teamId: randomUUID(),
    organizationId: orgId,
    name: body.name,
    userIds: body.userIds,
    applicationIds: body.applicationIds,
    version: 1,
    createdAt: Date.now(),
  };
  const payload = {
    teamId: team.teamId,
    teamName: team.name,
    userIds: team.userIds,
    applicationIds: team.applicationIds,
  };
  await commitTeamWrite(
    async () => ({
      items: [
        teamPut(team),
        teamNameClaim(team),
        ...(await teamCopiesWrites(orgId, undefined, team)),
        auditEntry(caller, orgId, 'TEAM_ADDED', payload),
      ],
      name: team.name,
    }),
    TOO_MANY_CHANGES,
  );
  return { team: (await describeTeams(orgId, [team]))[0] };
}

export async function readTeam(orgId: string, teamId: string) {
  return { team: (await describeTeams(orgId, [await requireTeam(orgId, teamId.toLowerCase())]))[0] };
}

/**
 * Replace-all (as public clients expect): the body is the team's whole new state. A concurrent write of the same
 * team between this request's read and its write answers 409 rather than overwrite what it did not see.
 */
export async function updateTeam(caller: Caller, orgId: string, teamIdParam: string, body: UpdateTeamBody) {
  const teamId = teamIdParam.toLowerCase();
  if (body.teamId && body.teamId !== teamId)
    throw badRequest(`teamId: ${body.teamId} does not match the team in the path (${teamId})`);
  checkOrganization(body.organizationId, orgId);
  let firstVersion: number | undefined;
  let updated!: TeamRecord;
  await commitTeamWrite(async () => {
    const current = await requireTeam(orgId, teamId);
    firstVersion ??= current.version;
    if (current.version !== firstVersion) throw conflict(TEAM_CHANGED);
    updated = {
      ...current,
      name: body.name,
      userIds: body.userIds,
      applicationIds: body.applicationIds,
      version: current.version + 1,
    };
    const renamed = current.name.toLowerCase() !== updated.name.toLowerCase();
    const payload = {
      teamId,
      teamName: updated.name,
      previousTeamName: current.name,
      addedUserIds: without(updated.userIds, current.userIds),
      removedUserIds: without(current.userIds, updated.userIds),
      addedApplicationIds: without(updated.applicationIds, current.applicationIds),
      removedApplicationIds: without(current.applicationIds, updated.applicationIds),
    };
    return {
      items: [
        teamUpdate(current, updated),
        ...(renamed ? [teamNameClaim(updated), teamNameRelease(current)] : []),
        ...(await teamCopiesWrites(orgId, current, updated)),
        auditEntry(caller, orgId, 'TEAM_UPDATED', payload),
      ],
      name: renamed ? updated.name : undefined,
    };
  }, TOO_MANY_CHANGES);
  return { team: (await describeTeams(orgId, [updated]))[0] };
}

/** Deletes the team only: its applications lose their owner (visible to the whole organization), nothing else goes. */
export async function deleteTeam(caller: Caller, orgId: string, teamIdParam: string) {
  const teamId = teamIdParam.toLowerCase();
  await commitTeamWrite(async () => {
    const team = await requireTeam(orgId, teamId);
    const cleared = { ...team, userIds: [], applicationIds: [] };
    return {
      items: [
        teamDelete(team),
        teamNameRelease(team),
        ...(await teamCopiesWrites(orgId, team, cleared)),
        auditEntry(caller, orgId, 'TEAM_DELETED', { teamId, teamName: team.name }),
      ],
    };
  }, 'the team has too many users and applications to delete in one atomic write: remove some of them (PUT) first');
  return {};
}

/** Moves an application into the team; only its members may (docs/API.md, Team rules). Already there: no write. */
export async function updateApplicationTeam(
  caller: Caller,
  orgId: string,
  teamIdParam: string,
  body: UpdateApplicationTeamBody,
) {
  const teamId = teamIdParam.toLowerCase();
  if (body.teamId && body.teamId !== teamId)
    throw badRequest(`teamId: ${body.teamId} does not match the team in the path (${teamId})`);
  const membership = await caller.authorize(orgId);
  await requireTeam(orgId, teamId);
  if (!membership.teamIds.includes(teamId))
    throw unauthorized('Unauthorized: only members of the team may move applications into it');
  await commitTeamWrite(async () => {
    const [team, app] = await Promise.all([requireTeam(orgId, teamId), getApplication(body.applicationId)]);
    if (!app || app.organizationId !== orgId)
      throw badRequest(`applicationId: no application ${body.applicationId} in organization ${orgId}`);
    if (app.teamId === teamId) return { items: [] };
    const next = { ...team, applicationIds: [...new Set([...team.applicationIds, app.applicationId])] };
    const payload = { applicationId: app.applicationId, appName: app.name, teamId, previousTeamId: app.teamId ?? '' };
    return {
      items: [
        teamUpdate(team, next),
        ...(await teamCopiesWrites(orgId, team, next)),
        auditEntry(caller, orgId, 'APPLICATION_MODIFIED', payload),
      ],
    };
  }, TOO_MANY_CHANGES);
  return { applicationTeam: { applicationId: body.applicationId, organizationId: orgId, teamId } };
}

// ---- Lists (docs/API.md, Teams): by name, then id; paged as docs/COMPATIBILITY.md "Paging" says.

async function teamsPage(orgId: string, teams: TeamRecord[], pageToken: number, pageSize: number) {
  const request = { page: pageToken, size: pageSize };
  const page = pageOf(
    teams.sort(
      compareBy(
        (team) => nameOrderKey(team.name, team.teamId),
        (team) => team.teamId,
        'ASC',
      ),
    ),
    request,
  );
  return {
    teams: await describeTeams(orgId, page.items),
    nextPageToken: v1NextPageToken(request, page.totalCount),
    totalCount: page.totalCount,
  };
}

export async function listTeamsForOrg(orgId: string, q: ListTeamsForOrgQuery) {
  const matches = namePattern(q.search);
  return teamsPage(
    orgId,
    (await teamsOfOrg(orgId)).filter((team) => matches(team.name)),
    q.pageToken,
    q.pageSize,
  );
}

export async function listTeamsForUser(caller: Caller, orgId: string, userId: string, q: ListTeamsForUserQuery) {
  if (userId.toLowerCase() !== caller.userId) throw unauthorized('Unauthorized: userId must be your own user id');
  const membership = await caller.authorize(orgId);
  return teamsPage(orgId, await getTeams(orgId, membership.teamIds), q.pageToken, q.pageSize);
}
