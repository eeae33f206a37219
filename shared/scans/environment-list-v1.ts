import type { Caller } from '../context/caller.ts';
import { recordListPlan } from '../context/request-scope.ts';
import { accessibleApplication } from '../applications/access.ts';
import { canSeeTeamResource, type EnvironmentRecord, DEPRECATED_ENVIRONMENT_LIST_PLAN } from '../applications/model.ts';
import { environmentsOfApp, environmentsOfAppRead } from '../applications/environment-repository.ts';
import type { OperationReads } from '../db/query.ts';
import type { ListEnvironmentsV1Query } from './inputs.ts';
import { compareBy, nameOrderKey, pageOf, v1NextPageToken } from '../lists.ts';
import { getScans } from '../results/scan-repository.ts';
import { currentStats, scanAlertStats, unionStats } from './scans.ts';
import { currentStreams } from '../results/streams.ts';

// The deprecated environment list (listEnvironments; docs/API.md, Deprecated lists): unlike List Environments V2
// (shared/applications/environment-list.ts), it answers the alert figures of each environment's tool streams' latest
// scans as one (its "last scan" figures), read from the scans, so it sits with them.

/**
 * listEnvironmentsV1's own read in its first round trip, beside the rate limit and the application with its
 * authorization reads: the application's environments (taken only once the caller may see them).
 */
export const environmentListV1Reads: OperationReads = ({ ids }) =>
  ids.appId ? { queries: [environmentsOfAppRead(ids.appId)] } : {};

/** The application's environments (docs/API.md, Environments); filtered to nothing for non-team members. */
export async function listEnvironmentsV1(caller: Caller, appId: string, q: ListEnvironmentsV1Query) {
  const { app, membership } = await accessibleApplication(caller, appId, { teamRestricted: false });
  recordListPlan(DEPRECATED_ENVIRONMENT_LIST_PLAN); // the application's partition, sorted in memory
  const names = q.envs.map((n) => n.toLowerCase());
  const envs = canSeeTeamResource(membership, app.teamId)
    ? (await environmentsOfApp(appId)).filter((env) => names.length === 0 || names.includes(env.name.toLowerCase()))
    : [];
  const value =
    q.sortField === 'id'
      ? (e: EnvironmentRecord) => e.environmentId
      : (e: EnvironmentRecord) => nameOrderKey(e.name, e.environmentId);
  envs.sort(compareBy(value, (e) => e.environmentId, q.sortDir === 'desc' ? 'DESC' : 'ASC'));
  const request = { page: q.pageToken, size: q.pageSize };
  const page = pageOf(envs, request);
  // The alert statistics of each environment's tool streams' latest scans as one (docs/DATA-MODEL.md, Tool
  // streams): one BatchGetItem for the page's; a running one's from its alerts.
  const heads = await Promise.all(page.items.map(async (env) => Object.values(await currentStreams(env))));
  const scans = new Map(
    (await getScans(page.items.flatMap((env, i) => heads[i].map((head) => ({ ...env, scanId: head.scanId }))))).map(
      (s) => [s.scanId, s],
    ),
  );
  const alertStats = new Map(
    await Promise.all(
      page.items.map(async (env, i) => {
        const streamScans = heads[i].flatMap((head) => scans.get(head.scanId) ?? []);
        const stats = unionStats(await Promise.all(streamScans.map((scan) => currentStats(scan))));
        return [env.environmentId, scanAlertStats(stats)] as const;
      }),
    ),
  );
  return {
    environments: page.items.map((env) => ({
      environmentId: env.environmentId,
      environmentName: env.name,
      latestScanType: env.latestScanType ?? 'DEFAULT',
      currentScanSummary: env.lastScanId
        ? {
            scanId: env.lastScanId,
            applicationId: env.applicationId,
            configHash: env.latestScanConfigHash,
            version: env.lastScanHawkscanVersion,
            timestamp: Math.floor((env.lastScanTimestamp ?? 0) / 1000), // seconds (docs/API.md, Environments)
            alertStats: alertStats.get(env.environmentId),
          }
        : undefined,
    })),
    nextPageToken: v1NextPageToken(request, page.totalCount),
    totalCount: page.totalCount,
  };
}
