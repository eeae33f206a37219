import { randomUUID } from 'node:crypto';
import {
  applicationDeletingMark,
  applicationPut,
  applicationRename,
  applicationsOfOrgByName,
  deleteApplicationPartition,
  getApplications,
  organizationCounterChange,
  organizationCounts,
  type ApplicationRecord,
  type ApplicationType,
} from './application-repository.ts';
import { environmentPuts, environmentsOfOrg, type EnvironmentRecord } from './environment-repository.ts';
import { accessibleApplication, canSeeTeamResource } from './access.ts';
import { auditEntry } from '../audit/entries.ts';
import { transactWriteRetryingConflicts } from '../db/query.ts';
import { cancellationReasons } from '../db/items.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { teamApplicationAdded } from '../teams/repository.ts';
import { objectKeys } from '../storage/objects.ts';
import { deleteObjectsUnder } from '../storage/delete-prefix.ts';
import { newEnvironment, writeEnvironmentConfig } from './environment-creation.ts';
import { APP_SORT_FIELDS, type CreateApplicationBody, type ListApplicationsV1Query, type ListApplicationsV2Query } from './inputs.ts';
import {
  collect,
  compareBy,
  countRest,
  nameOrderKey,
  pageFromStream,
  pageOf,
  readAhead,
  v1NextPageToken,
  v2Envelope,
  v2PageRequest,
  type SortDirection,
} from '../lists.ts';
import type { Caller } from '../http/caller.ts';
import { repositoriesByApplication, type CodeRepositoryRecord } from '../code-repositories/store.ts';
import type { Membership } from '../identity/membership-repository.ts';

// Applications (SPEC 2.1, 3, 4.2): create/get/update/delete, the application views and the application lists.

/** application.Application: `env` and `envId` only when the view is of one environment. */
export function toApplication(app: ApplicationRecord, env?: EnvironmentRecord) {
  return {
    applicationId: app.applicationId,
    name: app.name,
    env: env?.name,
    envId: env?.environmentId,
    applicationStatus: app.applicationStatus,
    organizationId: app.organizationId,
    applicationType: app.applicationType,
    cloudScanTarget: app.cloudScanTarget ?? {}, // SPEC 2.1: an empty object by default, not absent
    dataType: app.dataType,
    riskLevel: app.riskLevel,
  };
}

/** SPEC 4.2: what a caller creates belongs to its team. An explicit teamId must be one of the caller's teams. */
function owningTeam(membership: Membership, requested: string | null | undefined): string | undefined {
  if (requested) {
    if (!membership.teamIds.includes(requested)) throw badRequest(`teamId: you are not a member of team ${requested}`);
    return requested;
  }
  // A member of several teams gets the first one it joined; it can name another with teamId.
  return membership.teamIds[0];
}

export async function createApplication(caller: Caller, orgId: string, body: CreateApplicationBody) {
  const membership = await caller.authorize(orgId);
  if (body.organizationId && body.organizationId.toLowerCase() !== orgId.toLowerCase()) {
    throw badRequest(`organizationId: ${body.organizationId} does not match the organization in the path (${orgId})`);
  }
  const applicationType: ApplicationType = body.applicationType ?? 'STANDARD';
  if (applicationType === 'CLOUD' && !body.cloudScanTargetURL) throw badRequest('cloudScanTargetURL: required when applicationType is CLOUD');
  const envName = body.env || undefined;
  const app: ApplicationRecord = {
    applicationId: randomUUID(),
    organizationId: orgId,
    name: body.name ?? '',
    applicationType,
    applicationStatus: envName ? 'ACTIVE' : 'ENV_INCOMPLETE',
    cloudScanTarget: body.cloudScanTargetURL ? { targetURL: body.cloudScanTargetURL, isDomainVerified: false } : undefined,
    dataType: body.dataType,
    riskLevel: body.riskLevel,
    teamId: owningTeam(membership, body.teamId),
    environmentCount: envName ? 1 : 0,
    createdAt: Date.now(),
  };
  const env = envName ? newEnvironment(app, envName) : undefined;
  const items = [
    applicationPut(app),
    organizationCounterChange(orgId, applicationType, app.teamId, { applications: 1, environments: env ? 1 : 0 }),
    await auditEntry(caller, orgId, 'APPLICATION_ADDED', { applicationId: app.applicationId, appName: app.name, envName: env?.name }),
  ];
  // The team lists its applications: it gains this one in the same transaction (and must still exist).
  const teamItemAt = items.length;
  if (app.teamId) items.push(teamApplicationAdded(orgId, app.teamId, app.applicationId));
  if (env) {
    items.push(
      ...environmentPuts(env),
      await auditEntry(caller, orgId, 'ENVIRONMENT_ADDED', { applicationId: app.applicationId, appName: app.name, envId: env.environmentId, envName: env.name }),
    );
  }
  try {
    await writeEnvironmentConfig(env, body.host, () => transactWriteRetryingConflicts(items));
  } catch (error) {
    if (app.teamId && cancellationReasons(error)?.[teamItemAt] === 'ConditionalCheckFailed') throw conflict(`team ${app.teamId} was deleted meanwhile: try again`);
    throw error;
  }
  return toApplication(app);
}

export async function readApplication(caller: Caller, appId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  return toApplication(app);
}

export async function updateApplication(caller: Caller, appId: string, body: { name: string }) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  const payload = { applicationId: appId, appName: body.name, previousAppName: app.name };
  try {
    await transactWriteRetryingConflicts([applicationRename(app, body.name), await auditEntry(caller, app.organizationId, 'APPLICATION_MODIFIED', payload)]);
  } catch (error) {
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') throw notFound(`application ${appId} not found`);
    throw error;
  }
  return toApplication({ ...app, name: body.name });
}

/**
 * SPEC 3: deletes the application with everything it owns. One transaction marks it deleting (it disappears from
 * every read at once) with its APPLICATION_REMOVED entry; its stored objects and partition are then removed, the
 * application record last. If that is interrupted, DELETE again resumes it (without a second audit entry).
 */
export async function deleteApplication(caller: Caller, appId: string): Promise<void> {
  let { app } = await accessibleApplication(caller, appId, { teamRestricted: true, includeDeleting: true });
  for (let attempt = 0; !app.deleting; attempt++) {
    try {
      const payload = { applicationId: appId, appName: app.name };
      await transactWriteRetryingConflicts([...applicationDeletingMark(app), await auditEntry(caller, app.organizationId, 'APPLICATION_REMOVED', payload)]);
      break;
    } catch (error) {
      // An environment was created or deleted meanwhile (the count changed), or another DELETE won: read again.
      if (cancellationReasons(error)?.[0] !== 'ConditionalCheckFailed' || attempt >= 5) throw error;
      ({ app } = await accessibleApplication(caller, appId, { teamRestricted: true, includeDeleting: true }));
    }
  }
  await deleteObjectsUnder(objectKeys.applicationPrefix(appId));
  await deleteApplicationPartition(appId);
}

// ---- Lists

type AppSortField = (typeof APP_SORT_FIELDS)[number];

function applicationSortValue(field: AppSortField, repos: Map<string, CodeRepositoryRecord[]>): (app: ApplicationRecord) => string | number {
  switch (field) {
    case 'applicationName':
      return (app) => nameOrderKey(app.name, app.applicationId);
    case 'applicationStatus':
      return (app) => app.applicationStatus;
    case 'applicationId':
      return (app) => app.applicationId;
    case 'mappedRepositoryCount':
      return (app) => repos.get(app.applicationId)?.length ?? 0;
    case 'thirtyDayCommitActivity':
      return (app) => (repos.get(app.applicationId) ?? []).reduce((sum, repo) => sum + repo.commitCount, 0);
  }
}

/** The (type, team) counter buckets the caller's filters select, for totalCount without reading the items. */
export function visibleTeams(membership: Membership, teamIds: string[]): (string | undefined)[] {
  return teamIds.length ? teamIds.filter((t) => membership.teamIds.includes(t)) : [undefined, ...membership.teamIds];
}

export async function listApplicationsV2(caller: Caller, orgId: string, q: ListApplicationsV2Query) {
  const membership = await caller.authorize(orgId);
  const sortField: AppSortField = q.sortField ?? 'applicationName';
  const sortDir: SortDirection = q.sortDir === 'DESC' ? 'DESC' : 'ASC';
  const request = v2PageRequest(q.page, q.pageToken, q.pageSize);
  const text = q.query?.toLowerCase() ?? '';
  const keep = (app: ApplicationRecord) =>
    app.organizationId === orgId &&
    canSeeTeamResource(membership, app.teamId) &&
    q.applicationTypes.includes(app.applicationType) &&
    (q.teamIds.length === 0 || (!!app.teamId && q.teamIds.includes(app.teamId))) &&
    (q.applicationStatus.length === 0 || q.applicationStatus.includes(app.applicationStatus)) &&
    (q.appIds.length === 0 || q.appIds.includes(app.applicationId)) &&
    app.name.toLowerCase().includes(text);

  let page: { items: ApplicationRecord[]; totalCount: number; hasNext: boolean };
  if (q.appIds.length === 0 && sortField === 'applicationName') {
    // The name index serves this order: read only as far as the page.
    const streamed = await pageFromStream(applicationsOfOrgByName(orgId, sortDir === 'ASC', readAhead(request)), keep, request);
    const countable = !text && q.applicationStatus.length === 0;
    const totalCount = streamed.exhausted
      ? streamed.seen
      : countable
        ? (await organizationCounts(orgId, q.applicationTypes, visibleTeams(membership, q.teamIds))).applications
        : await countRest(applicationsOfOrgByName(orgId, true), keep);
    page = { items: streamed.items, totalCount, hasNext: streamed.hasNext };
  } else {
    const candidates = q.appIds.length ? await getApplications(q.appIds) : await collect(applicationsOfOrgByName(orgId, true));
    const repos = sortField === 'mappedRepositoryCount' || sortField === 'thirtyDayCommitActivity' ? await repositoriesByApplication(orgId) : new Map();
    const sorted = candidates.filter(keep).sort(compareBy(applicationSortValue(sortField, repos), (a) => a.applicationId, sortDir));
    page = pageOf(sorted, request);
  }
  return {
    orgId,
    applications: page.items.map((app) => toApplication(app)),
    ...v2Envelope(
      {
        request,
        query: q.query ?? '',
        sortField,
        sortDir,
        filters: [
          { name: 'appIds', values: q.appIds },
          { name: 'teamIds', values: q.teamIds },
          { name: 'applicationStatus', values: q.applicationStatus },
          { name: 'applicationTypes', values: q.applicationTypes },
        ],
      },
      page.totalCount,
      page.hasNext,
    ),
  };
}

export async function listApplicationsV1(
  caller: Caller,
  orgId: string,
  q: ListApplicationsV1Query,
) {
  const membership = await caller.authorize(orgId);
  const apps = (await collect(applicationsOfOrgByName(orgId, true))).filter(
    (app) =>
      canSeeTeamResource(membership, app.teamId) &&
      (q.appIds.length === 0 || q.appIds.includes(app.applicationId)) &&
      (q.teamIds.length === 0 || (!!app.teamId && q.teamIds.includes(app.teamId))),
  );
  const names = q.envs.map((n) => n.toLowerCase());
  const envsByApp = new Map<string, EnvironmentRecord[]>();
  if (!q.ignoreEnvs || names.length) {
    const ids = new Set(apps.map((a) => a.applicationId));
    for await (const env of environmentsOfOrg(orgId, 'name', true)) {
      if (!ids.has(env.applicationId) || (names.length && !names.includes(env.name.toLowerCase()))) continue;
      envsByApp.set(env.applicationId, [...(envsByApp.get(env.applicationId) ?? []), env]);
    }
  }
  // One entry per application-environment; an application without (matching) environments appears alone, unless
  // an envs filter asks for environments it does not have.
  type Entry = { app: ApplicationRecord; env?: EnvironmentRecord };
  const entries = apps.flatMap((app): Entry[] => {
    const envs = envsByApp.get(app.applicationId) ?? [];
    if (names.length && envs.length === 0) return [];
    return q.ignoreEnvs || envs.length === 0 ? [{ app }] : envs.map((env) => ({ app, env }));
  });
  const value =
    q.sortField === 'id'
      ? (e: Entry) => `${e.app.applicationId}#${e.env?.environmentId ?? ''}`
      : (e: Entry) => `${nameOrderKey(e.app.name, e.app.applicationId)}#${e.env ? nameOrderKey(e.env.name, e.env.environmentId) : ''}`;
  entries.sort(compareBy(value, value, q.sortDir === 'desc' ? 'DESC' : 'ASC'));
  const request = { page: q.pageToken, size: q.pageSize };
  const page = pageOf(entries, request);
  return {
    applications: page.items.map(({ app, env }) => toApplication(app, env)),
    nextPageToken: v1NextPageToken(request, page.hasNext),
    totalCount: page.totalCount,
  };
}
