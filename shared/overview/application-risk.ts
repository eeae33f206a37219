import {
  APPLICATION_TYPES,
  NO_HEALTH,
  canSeeTeamResource,
  riskFigures,
  riskOrder,
  type ApplicationRecord,
  type EnvironmentRecord,
  type ListEntry,
} from '../applications/model.ts';
import { listScope, wholeApplicationsOfBucket } from '../applications/list-entries.ts';
import { environmentsOfApp } from '../applications/environment-repository.ts';
import { badRequest } from '../errors.ts';
import { compareBy, pageOf, pageTokens } from '../lists.ts';
import type { Caller } from '../context/caller.ts';
import { MAX_RISK_RANKED, type ApplicationRiskQuery } from './inputs.ts';
import { overdueOfEnvironments } from './overdue-digests.ts';

// GET /api/v1/org/{orgId}/apps/risk (listApplicationRisk, docs/GOVERNANCE.md, Applications by risk): the caller's
// applications with what makes them risky, ordered by it. The order reads every application of the caller's whole
// (their health figures: open issues and untriaged findings, as the overview's riskiest applications count and rank
// them); the page's applications then have their environments read for the last scan and their current scans for
// the SLA breaches.

type Open = { High: number; Medium: number; Low: number };
/** An application and its risk figures, ranked by riskOrder (applications/model.ts) as the overview ranks them. */
type Ranked = { app: ApplicationRecord; figures: ReturnType<typeof riskFigures> & { applicationId: string } };

const SEVERITIES = ['High', 'Medium', 'Low'] as const;

function orderOf(q: ApplicationRiskQuery): (a: Ranked, b: Ranked) => number {
  const field = q.sortField ?? 'risk';
  const dir = q.sortDir ?? (field === 'name' ? 'ASC' : 'DESC');
  const sign = dir === 'DESC' ? -1 : 1;
  // riskOrder ranks the riskiest first (open issues, then untriaged findings, then the id): DESC is its order, ASC
  // the reverse.
  if (field === 'risk') return (a, b) => -sign * riskOrder(a.figures, b.figures);
  const value =
    field === 'name' ? (r: Ranked) => r.app.name.toLowerCase() : (r: Ranked) => (r.app.health ?? NO_HEALTH).scannedAt;
  return compareBy(value, (r) => r.app.applicationId, dir);
}

/** An application's environment with the newest last scan (undefined: none scanned). */
function lastScanned(envs: EnvironmentRecord[]) {
  return envs
    .filter((env) => env.lastScanId && env.lastScanTimestamp)
    .sort((a, b) => b.lastScanTimestamp! - a.lastScanTimestamp! || a.environmentId.localeCompare(b.environmentId))[0];
}

/** SLA breaches of the page's applications: their environments' current scans' overdue issues, by severity. */
async function breachesOf(orgId: string, envs: EnvironmentRecord[], now: number) {
  const entries = envs.filter((e) => e.lastScanId).map((e): ListEntry => ({ ...e, sortKey: '' }));
  const sets = (await overdueOfEnvironments(orgId, entries, now)).flat();
  const byApp = new Map<string, Map<string, string>>();
  for (const set of sets)
    for (const f of set.overdue) {
      const issues = byApp.get(set.env.applicationId) ?? new Map<string, string>();
      // An issue detected by several streams of an environment is one breach (docs/ISSUES.md).
      issues.set(`${set.env.environmentId}\n${f.issueId}`, f.severity);
      byApp.set(set.env.applicationId, issues);
    }
  return (appId: string) => {
    const counts: Open = { High: 0, Medium: 0, Low: 0 };
    for (const severity of byApp.get(appId)?.values() ?? []) if (severity in counts) counts[severity as keyof Open]++;
    return counts;
  };
}

export async function listApplicationRisk(caller: Caller, orgId: string, q: ApplicationRiskQuery) {
  const membership = await caller.authorize(orgId);
  const scope = await listScope(orgId, membership, [...APPLICATION_TYPES], [], { byApplication: false });
  if (scope.counts.applications > MAX_RISK_RANKED)
    throw badRequest(
      `the risk order ranks at most ${MAX_RISK_RANKED} applications; this organization has ` +
        `${scope.counts.applications} you can see: use listApplicationsV2 (sorted by name) instead`,
    );
  const text = (q.query ?? '').trim().toLowerCase();
  const apps = (await Promise.all(scope.buckets.map((b) => wholeApplicationsOfBucket(orgId, b))))
    .flat()
    .filter(
      (app) =>
        !app.deleting &&
        app.organizationId === orgId &&
        canSeeTeamResource(membership, app.teamId) &&
        app.name.toLowerCase().includes(text) &&
        (!q.applicationStatus || app.applicationStatus === q.applicationStatus),
    );
  const ranked = apps
    .map((app) => ({ app, figures: { ...riskFigures(app.health), applicationId: app.applicationId } }))
    .sort(orderOf(q));
  const request = { page: q.pageToken, size: q.pageSize };
  const page = pageOf(ranked, request);
  const now = Date.now();
  const envsByApp = await Promise.all(page.items.map(({ app }) => environmentsOfApp(app.applicationId)));
  const breaches = await breachesOf(orgId, envsByApp.flat(), now);
  return {
    organizationId: orgId,
    generatedAt: new Date(now).toISOString(),
    applications: page.items.map(({ app, figures }, i) => {
      const health = app.health ?? NO_HEALTH;
      const last = lastScanned(envsByApp[i]!);
      const overdue = breaches(app.applicationId);
      return {
        applicationId: app.applicationId,
        name: app.name,
        applicationType: app.applicationType,
        environments: envsByApp[i]!.length,
        openHigh: figures.openHigh,
        openMedium: figures.openMedium,
        openLow: figures.openLow,
        openTotal: figures.openHigh + figures.openMedium + figures.openLow,
        untriagedHigh: health.high,
        untriagedMedium: health.medium,
        untriagedLow: health.low,
        untriagedTotal: health.total,
        failedScans: health.failed,
        lastScanId: last?.lastScanId ?? '',
        lastScanStatus: last?.lastScanStatus ?? '',
        lastScannedAt: last ? new Date(last.lastScanTimestamp!).toISOString() : '',
        lastScanEnvironmentId: last?.environmentId ?? '',
        lastScanEnvironmentName: last?.name ?? '',
        lastScanUntriaged: last?.lastScanTotalUntriaged ?? 0,
        overdueHigh: overdue.High,
        overdueMedium: overdue.Medium,
        overdueLow: overdue.Low,
        overdueTotal: SEVERITIES.reduce((n, s) => n + overdue[s], 0),
      };
    }),
    ...pageTokens(request, page),
  };
}
