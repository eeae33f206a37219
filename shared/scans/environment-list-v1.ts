import type { Caller } from '../context/caller.ts';
import { recordListPlan } from '../context/request-scope.ts';
import { accessibleApplication, canSeeTeamResource } from '../applications/access.ts';
import { environmentsOfApp, type EnvironmentRecord } from '../applications/environment-repository.ts';
import type { ListEnvironmentsV1Query } from '../applications/inputs.ts';
import { DEPRECATED_ENVIRONMENT_LIST_PLAN } from '../applications/list-plan.ts';
import { compareBy, nameOrderKey, pageOf, v1NextPageToken } from '../lists.ts';
import { getScans } from '../results/scan-repository.ts';
import { currentStats, scanAlertStats } from './scans.ts';

// The deprecated environment list (listEnvironments; docs/API.md, Deprecated lists): unlike List Environments V2
// (shared/applications/environment-list.ts), it answers each environment's last scan's alert figures, read from the
// scans, so it sits with them.

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
  // The page's last scans, for their alert statistics (one BatchGetItem; a running one's from its alerts).
  const scans = new Map(
    (await getScans(page.items.flatMap((env) => (env.lastScanId ? [{ ...env, scanId: env.lastScanId }] : [])))).map(
      (s) => [s.scanId, s],
    ),
  );
  const alertStats = new Map(
    await Promise.all(
      [...scans.values()].map(async (scan) => [scan.scanId, scanAlertStats(await currentStats(scan))] as const),
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
            alertStats: alertStats.get(env.lastScanId),
          }
        : undefined,
    })),
    nextPageToken: v1NextPageToken(request, page.totalCount),
    totalCount: page.totalCount,
  };
}
