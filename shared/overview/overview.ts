import { getApplications } from '../applications/application-repository.ts';
import { NO_HEALTH, type ApplicationRecord, APPLICATION_TYPES, type ListEntry } from '../applications/model.ts';
import { environmentEntries, listScope } from '../applications/list-entries.ts';
import { currentScansOf } from '../findings/report.ts';
import { getEnvironmentsByKeys } from '../applications/environment-repository.ts';
import { overdueOfScan } from '../scans/scan-sla.ts';
import { mostOverdueFirst, type OverdueFinding } from '../scans/model.ts';
import { applicationsOpenNow } from '../trends/reads.ts';
import { issueRepresentatives } from '../results/model.ts';
import type { Caller } from '../context/caller.ts';
import { coverageOfCounters, coverageOfWalk } from './coverage.ts';
import {
  RISK_WALK_ENTRIES,
  RISKIEST_LISTED,
  OVERDUE_ENVIRONMENTS,
  OVERDUE_LISTED,
  COVERAGE_WALK_ENTRIES,
  type OverviewWalks,
  type CoverageFacts,
} from './model.ts';

// GET /api/v1/org/{orgId}/overview (getOrganizationOverview, docs/GOVERNANCE.md, The overview): the dashboard's
// landing figures that the trends do not give, each from a bounded walk of an environment index or from projections
// (the coverage counters: coverage.ts), so the request costs the same whatever the organization's size.

const DAY = 24 * 60 * 60 * 1000;

/**
 * The overdue findings of the environments' current scans: each one's tool streams' latest (docs/DATA-MODEL.md, Tool
 * streams), their records read together (one BatchGetItem: the list entries do not carry the streams). The overview's
 * one source of overdue counts: an environment without a record (deleted meanwhile) has none.
 */
export async function overdueOfEnvironments(orgId: string, envs: ListEntry[], now: number) {
  const records = envs.length ? await getEnvironmentsByKeys(envs) : [];
  const byId = new Map(records.map((record) => [record.environmentId, record]));
  return Promise.all(
    envs.map(async (env) => {
      const record = byId.get(env.environmentId);
      const scans = record ? await currentScansOf(record, undefined) : [];
      return Promise.all(scans.map(async (scan) => ({ env, scan, ...(await overdueOfScan(orgId, scan, now)) })));
    }),
  );
}

/** Up to `limit` entries of `walk` that `keep` accepts, reading at most `budget` entries; stops early at `until`. */
async function takeEntries(
  walk: AsyncGenerator<ListEntry>,
  keep: (entry: ListEntry) => boolean,
  budget: number,
  until: (entry: ListEntry) => boolean,
) {
  const kept: ListEntry[] = [];
  let read = 0;
  let exhausted = true;
  for await (const entry of walk) {
    if (until(entry)) break;
    if (read++ >= budget) {
      exhausted = false;
      break;
    }
    if (keep(entry)) kept.push(entry);
  }
  await walk.return(undefined);
  return { kept, exhausted };
}

/**
 * The riskiest applications of the candidates: ranked by their open findings, each counted once as the trends count
 * them, then by their last scans' untriaged findings, which count each URI of a finding.
 */
function riskiest(
  appIds: string[],
  appById: Map<string, ApplicationRecord>,
  openNow: Map<string, Record<'High' | 'Medium' | 'Low', number>>,
) {
  return appIds
    .map((id) => appById.get(id))
    .filter((app) => app !== undefined)
    .map((app) => {
      const open = openNow.get(app.applicationId)!;
      return { app, health: app.health ?? NO_HEALTH, open, openTotal: open.High + open.Medium + open.Low };
    })
    .filter(({ health }) => health.total > 0)
    .sort(
      (a, b) =>
        b.open.High - a.open.High ||
        b.open.Medium - a.open.Medium ||
        b.open.Low - a.open.Low ||
        b.health.high - a.health.high ||
        b.health.medium - a.health.medium ||
        b.health.low - a.health.low ||
        b.health.total - a.health.total ||
        a.app.applicationId.localeCompare(b.app.applicationId),
    )
    .slice(0, RISKIEST_LISTED)
    .map(({ app, health, open, openTotal }) => ({
      applicationId: app.applicationId,
      name: app.name,
      openHigh: open.High,
      openMedium: open.Medium,
      openLow: open.Low,
      openTotal,
      untriagedHigh: health.high,
      untriagedMedium: health.medium,
      untriagedLow: health.low,
      untriagedTotal: health.total,
      failedScans: health.failed,
      lastScannedAt: health.scannedAt ? new Date(health.scannedAt).toISOString() : '',
    }));
}
export const REQUEST_WALKS: OverviewWalks = { riskEntries: RISK_WALK_ENTRIES, coverageEntries: COVERAGE_WALK_ENTRIES };
export const FULL_WALKS: OverviewWalks = { riskEntries: Infinity, coverageEntries: Infinity };

export async function organizationOverview(caller: Caller, orgId: string) {
  const membership = await caller.authorize(orgId);
  const scope = await listScope(orgId, membership, [...APPLICATION_TYPES], []);
  const now = Date.now();
  return overviewOf(orgId, (entry) => scope.keep(entry), now, REQUEST_WALKS, coverageOfCounters(orgId, scope, now));
}

/**
 * The overview of the environments `keep` accepts (a member's team rules), as of `now`: with REQUEST_WALKS what the
 * request answers; with FULL_WALKS the same figures from every environment, the recomputation a faster source of
 * them is checked against. `coverage`: the coverage gaps from the counters (coverage.ts), when they answer.
 */
export async function overviewOf(
  orgId: string,
  keep: (entry: ListEntry) => boolean,
  now: number,
  walks: OverviewWalks,
  coverage?: Promise<CoverageFacts | undefined>,
) {
  const [risky, gapFacts] = await Promise.all([
    // The findings index in descending order: environments with untriaged findings, most first; the walk ends at
    // the first environment with none.
    takeEntries(
      environmentEntries(orgId, 'findings', false, 50),
      keep,
      walks.riskEntries,
      (e) => !e.lastScanTotalUntriaged,
    ),
    // The scan-date index in ascending order: never scanned first, then the oldest last scans; the walk ends at the
    // first environment scanned within 7 days.
    (async () =>
      (await coverage) ??
      coverageOfWalk(
        await takeEntries(
          environmentEntries(orgId, 'scanDate', true, 100),
          keep,
          walks.coverageEntries,
          (e) => (e.lastScanTimestamp ?? 0) > now - 7 * DAY,
        ),
        now,
      ))(),
  ]);

  const riskyApps = [...new Set(risky.kept.map((e) => e.applicationId))];
  const overdueEnvs = risky.kept.slice(0, OVERDUE_ENVIRONMENTS);
  const namedApps = new Set([...riskyApps, ...gapFacts.listed.map((e) => e.applicationId)]);
  const [apps, openNow, overdueSets] = await Promise.all([
    getApplications([...namedApps]),
    applicationsOpenNow(orgId, riskyApps),
    overdueOfEnvironments(orgId, overdueEnvs, now),
  ]);
  const appById = new Map(apps.filter((a) => a.organizationId === orgId).map((a) => [a.applicationId, a]));

  const riskiestApplications = riskiest(riskyApps, appById, openNow);

  // Issues, not each tool's detections (docs/ISSUES.md): an issue detected by several streams of an environment is
  // counted and listed once, by its most overdue detection.
  const detections: (OverdueFinding & { env: ListEntry; scanId: string })[] = [];
  const dueIssues = new Set<string>();
  for (const set of overdueSets.flat()) {
    if (!appById.has(set.env.applicationId)) continue;
    for (const issue of set.dueIssues) dueIssues.add(`${set.env.environmentId}\n${issue}`);
    for (const f of set.overdue) detections.push({ ...f, env: set.env, scanId: set.scan.scanId });
  }
  const overdue = issueRepresentatives(detections, mostOverdueFirst, (f) => f.env.environmentId);
  const overdueBySeverity = { High: 0, Medium: 0, Low: 0 };
  for (const f of overdue) overdueBySeverity[f.severity as keyof typeof overdueBySeverity]++;
  const findingsWithDueDate = dueIssues.size;

  const gaps = gapFacts.listed.filter((e) => appById.has(e.applicationId));
  const lastScan = (e: ListEntry) => e.lastScanTimestamp ?? 0;
  return {
    organizationId: orgId,
    generatedAt: new Date(now).toISOString(),
    riskiestApplications,
    overdue: {
      environmentsExamined: overdueSets.filter(Boolean).length,
      findingsWithDueDate,
      overdueCount: overdue.length,
      overdueBySeverity,
      findings: overdue.slice(0, OVERDUE_LISTED).map(({ env, ...f }) => ({
        applicationId: env.applicationId,
        applicationName: appById.get(env.applicationId)!.name,
        environmentId: env.environmentId,
        environmentName: env.name,
        scanId: f.scanId,
        findingHash: f.findingHash,
        pluginId: f.pluginId,
        severity: f.severity,
        requestMethod: f.requestMethod,
        url: f.url,
        status: f.status,
        dueDate: new Date(f.dueDate).toISOString(),
        daysLeft: f.daysLeft,
      })),
    },
    coverageGaps: {
      // Exact from the counters, or when the walk reached an environment scanned within 7 days (or the end);
      // otherwise lower bounds.
      complete: gapFacts.complete,
      neverScanned: gapFacts.neverScanned,
      notScannedIn7Days: gapFacts.notScannedIn7Days,
      notScannedIn30Days: gapFacts.notScannedIn30Days,
      environments: gaps.map((e) => ({
        applicationId: e.applicationId,
        applicationName: appById.get(e.applicationId)!.name,
        environmentId: e.environmentId,
        environmentName: e.name,
        lastScanStatus: e.lastScanStatus ?? '',
        lastScannedAt: lastScan(e) ? new Date(lastScan(e)).toISOString() : '',
      })),
    },
  };
}
