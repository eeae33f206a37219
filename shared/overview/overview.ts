import { getApplications } from '../applications/application-repository.ts';
import {
  APPLICATION_TYPES,
  type ApplicationRecord,
  type ListEntry,
  entryOf,
  riskOrder,
  type RiskiestEntry,
} from '../applications/model.ts';
import {
  environmentEntries,
  environmentEntriesQuery,
  listScope,
  listScopeReads,
} from '../applications/list-entries.ts';
import { mostOverdueFirst, type OverdueFinding } from '../scans/model.ts';
import { issueRepresentatives } from '../results/model.ts';
import { riskiestRecomputed as recomputedEntries } from '../results/riskiest.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { queryItems, type OperationReads, type PartitionQuery } from '../db/query.ts';
import { registerPrefetch, takePrefetched } from '../db/prefetch.ts';
import type { Caller } from '../context/caller.ts';
import { coverageOfCounters, coverageOfWalk, coverageReads } from './coverage.ts';
import { applicationNames } from './application-names.ts';
import { digestsOf, overdueOfDigests, overdueOfEnvironments, type ListedOverdue } from './overdue-digests.ts';
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

/** Up to `want` entries of `walk` that `keep` accepts, reading at most `budget` entries; stops early at `until`. */
async function takeEntries(
  walk: AsyncGenerator<ListEntry>,
  keep: (entry: ListEntry) => boolean,
  budget: number,
  until: (entry: ListEntry) => boolean,
  want = Infinity,
) {
  const kept: ListEntry[] = [];
  let read = 0;
  let exhausted = true;
  for await (const entry of walk) {
    if (until(entry)) break;
    if (read++ >= budget || kept.length >= want) {
      exhausted = false;
      break;
    }
    if (keep(entry)) kept.push(entry);
  }
  await walk.return(undefined);
  return { kept, exhausted };
}

/** A riskiest application as the overview answers it. */
function riskiestRow(entry: RiskiestEntry) {
  return {
    applicationId: entry.applicationId,
    name: entry.name,
    openHigh: entry.openHigh,
    openMedium: entry.openMedium,
    openLow: entry.openLow,
    openTotal: entry.openHigh + entry.openMedium + entry.openLow,
    untriagedHigh: entry.high,
    untriagedMedium: entry.medium,
    untriagedLow: entry.low,
    untriagedTotal: entry.total,
    failedScans: entry.failed,
    lastScannedAt: entry.scannedAt ? new Date(entry.scannedAt).toISOString() : '',
  };
}
export type RiskiestRow = ReturnType<typeof riskiestRow>;

/** The ranked entries' Query, riskiest first: the readiness marker, then a page of the listed ones. */
const riskiestQuery = (orgId: string): PartitionQuery => ({
  partition: keys.riskiestApplications(orgId).pk,
  forward: false,
  pageLimit: RISKIEST_LISTED + 2,
  growing: true,
});

/**
 * The riskiest applications `keep` accepts from the ranked entries (applications/projections/riskiest-applications.ts):
 * one Query in descending order, the readiness marker first, then the entries riskiest first, at most
 * RISK_WALK_ENTRIES of them. Undefined while the organization's entries are not complete (data from before them,
 * until npm run migrate).
 */
export async function riskiestOfEntries(orgId: string, keep: (entry: ListEntry) => boolean) {
  const walk = queryItems(riskiestQuery(orgId), { prefetchedFirstCall: true });
  const listed: RiskiestRow[] = [];
  let read = 0;
  let ready = false;
  for await (const item of walk) {
    if (!ready) {
      ready = item.sk === keys.riskiestReady(orgId).sk;
      if (!ready) break;
      continue;
    }
    const entry = fromItem<RiskiestEntry>(item)!;
    if (keep(entry as unknown as ListEntry)) listed.push(riskiestRow(entry));
    if (listed.length === RISKIEST_LISTED || ++read >= RISK_WALK_ENTRIES) break;
  }
  await walk.return(undefined);
  return ready ? listed : undefined;
}

/** The riskiest applications recomputed from the finding records (results/riskiest.ts), as the overview lists them. */
export async function riskiestRecomputed(orgId: string, keep: (entry: ListEntry) => boolean) {
  const entries = await recomputedEntries(orgId, (entry) => keep(entry as unknown as ListEntry));
  return entries.slice(0, RISKIEST_LISTED).map(riskiestRow);
}

/**
 * The riskiest applications of an organization whose entries are not complete yet (before npm run migrate): the
 * applications of the environments with the most untriaged findings (the walk's), ranked by their figures as stored.
 */
function riskiestOfCandidates(appIds: string[], appById: Map<string, ApplicationRecord>) {
  return appIds
    .map((id) => entryOf(appById.get(id)))
    .filter((entry) => entry !== undefined)
    .sort(riskOrder)
    .slice(0, RISKIEST_LISTED)
    .map(riskiestRow);
}
/**
 * The overdue figures of the environments' current scans as overdueOfEnvironments read them (the recomputation):
 * issues, not each tool's detections (docs/ISSUES.md): an issue detected by several streams of an environment is
 * counted and listed once, by its most overdue detection. `named`: the environments whose application is listed.
 */
function overdueRecomputed(
  sets: Awaited<ReturnType<typeof overdueOfEnvironments>>[number],
  named: (env: ListEntry) => boolean,
) {
  const detections: (OverdueFinding & { env: ListEntry; scanId: string })[] = [];
  const dueIssues = new Set<string>();
  for (const set of sets) {
    if (!named(set.env)) continue;
    for (const issue of set.dueIssues) dueIssues.add(`${set.env.environmentId}\n${issue}`);
    for (const f of set.overdue) detections.push({ ...f, env: set.env, scanId: set.scan.scanId });
  }
  const overdue = issueRepresentatives(detections, mostOverdueFirst, (f) => f.env.environmentId);
  const bySeverity = { High: 0, Medium: 0, Low: 0 };
  for (const f of overdue) bySeverity[f.severity as keyof typeof bySeverity]++;
  const listed: ListedOverdue[] = overdue.slice(0, OVERDUE_LISTED);
  return { findingsWithDueDate: dueIssues.size, bySeverity, count: overdue.length, listed };
}

export const REQUEST_WALKS: OverviewWalks = { riskEntries: RISK_WALK_ENTRIES, coverageEntries: COVERAGE_WALK_ENTRIES };
export const FULL_WALKS: OverviewWalks = { riskEntries: Infinity, coverageEntries: Infinity, recompute: true };

/** The moment a request's prefetch read the overview as of (overviewReads), which the request then answers for. */
const MOMENT_READ_ID = 'overview moment';

export async function organizationOverview(caller: Caller, orgId: string) {
  const membership = await caller.authorize(orgId);
  const scope = await listScope(orgId, membership, [...APPLICATION_TYPES], []);
  const now = (await takePrefetched<number>(MOMENT_READ_ID)) ?? Date.now();
  return overviewOf(orgId, (entry) => scope.keep(entry), now, REQUEST_WALKS, coverageOfCounters(orgId, scope, now));
}

/** The findings index's first call: up to 50 entries, or the `want` ones and a few that team rules leave out. */
const untriagedPage = (want: number) => Math.min(50, want + 2);

/** The findings index in descending order, from the most untriaged findings down to the first environment with none. */
const untriagedWalk = (orgId: string, keep: (entry: ListEntry) => boolean, budget: number, want: number) =>
  takeEntries(
    environmentEntries(orgId, 'findings', false, untriagedPage(want), undefined, { prefetchedFirstCall: true }),
    keep,
    budget,
    (e) => !e.lastScanTotalUntriaged,
    want,
  );

/**
 * What a request for the overview reads before its authorization decision is known (shared/http/prefetch.ts): the
 * scope's counters, the ranked entries' and the findings index's first calls and the coverage reads, issued in the
 * round trip of the authorization so that the request needs one more, for the listed environments' digests and SLA
 * days. The copy of the listed applications' names (application-names.ts) is read with the coverage marks. A request that is refused, or that does not make one of them (a member whose team
 * rules hide applications walks the scan-date index instead of reading the counters), wastes them: a few small reads.
 */
export const overviewReads: OperationReads = ({ ids }) => {
  if (!ids.orgId) return {};
  // The coverage reads' bounds are milliseconds before now: the request answers as of the prefetch's moment.
  const now = Date.now();
  registerPrefetch(MOMENT_READ_ID, Promise.resolve(now));
  const coverage = coverageReads(ids.orgId, now);
  return {
    items: [...coverage.marks, keys.overviewNames(ids.orgId)],
    queries: [
      ...listScopeReads(ids.orgId),
      coverage.days,
      ...[coverage.hours.t7, coverage.hours.t30].filter((q) => q !== undefined),
    ],
    firstCalls: [
      riskiestQuery(ids.orgId),
      environmentEntriesQuery(ids.orgId, 'findings', false, untriagedPage(OVERDUE_ENVIRONMENTS)),
      coverage.scansOfHour.t7,
      coverage.scansOfHour.t30,
      coverage.oldest,
    ],
  };
};

/**
 * The riskiest applications (from their ranked entries, or recomputed) and the environments with the most untriaged
 * findings whose scans the overdue list reads. An organization whose entries are not complete yet gets the
 * applications of the environments with the most untriaged findings (at most `walks.riskEntries` entries) instead.
 */
async function riskiestAndOverdueEnvironments(
  orgId: string,
  keep: (entry: ListEntry) => boolean,
  walks: OverviewWalks,
) {
  const [ranked, top] = await Promise.all([
    walks.recompute ? riskiestRecomputed(orgId, keep) : riskiestOfEntries(orgId, keep),
    untriagedWalk(orgId, keep, walks.riskEntries, OVERDUE_ENVIRONMENTS),
  ]);
  if (ranked) return { riskiest: Promise.resolve(ranked), candidates: [], overdueEnvs: top.kept };
  const risky = await untriagedWalk(orgId, keep, walks.riskEntries, Infinity);
  return {
    riskiest: undefined,
    candidates: [...new Set(risky.kept.map((e) => e.applicationId))],
    overdueEnvs: top.kept,
  };
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
  const [risk, gapFacts] = await Promise.all([
    riskiestAndOverdueEnvironments(orgId, keep, walks),
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

  const overdueEnvs = risk.overdueEnvs;
  const ranked = await risk.riskiest;
  // The listed riskiest applications' names come with their entries (renamed in the same transaction as the
  // application): only the other named applications are read, from the overview's copy of their names
  // (application-names.ts), or whole for the recomputation and for an organization without ranked entries yet.
  const nameOf = new Map((ranked ?? []).map((row) => [row.applicationId, row.name]));
  const listedApps = [...overdueEnvs, ...gapFacts.listed].map((e) => e.applicationId);
  const unnamed = [...new Set([...risk.candidates, ...listedApps].filter((id) => !nameOf.has(id)))];
  const whole = walks.recompute || risk.candidates.length > 0;
  const [apps, names, overdueRead] = await Promise.all([
    whole ? getApplications(unnamed) : [],
    whole ? new Map<string, string>() : applicationNames(orgId, unnamed, getApplications),
    walks.recompute ? overdueOfEnvironments(orgId, overdueEnvs, now) : digestsOf(orgId, overdueEnvs, now),
  ]);
  const appById = new Map(apps.filter((a) => a.organizationId === orgId).map((a) => [a.applicationId, a]));
  for (const app of appById.values()) nameOf.set(app.applicationId, app.name);
  for (const [id, name] of names) nameOf.set(id, name);
  const riskiestApplications = ranked ?? riskiestOfCandidates(risk.candidates, appById);
  const named = (env: ListEntry) => nameOf.has(env.applicationId);
  const overdue = Array.isArray(overdueRead)
    ? overdueRecomputed(overdueRead.flat(), named)
    : await overdueOfDigests(
        orgId,
        overdueRead.digests.filter((d) => named(d.env)),
        overdueRead.daysOf,
        now,
      );

  const gaps = gapFacts.listed.filter(named);
  const lastScan = (e: ListEntry) => e.lastScanTimestamp ?? 0;
  return {
    organizationId: orgId,
    generatedAt: new Date(now).toISOString(),
    riskiestApplications,
    overdue: {
      environmentsExamined: overdueEnvs.length,
      findingsWithDueDate: overdue.findingsWithDueDate,
      overdueCount: overdue.count,
      overdueBySeverity: overdue.bySeverity,
      findings: overdue.listed.map(({ env, ...f }) => ({
        applicationId: env.applicationId,
        applicationName: nameOf.get(env.applicationId)!,
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
        applicationName: nameOf.get(e.applicationId)!,
        environmentId: e.environmentId,
        environmentName: e.name,
        lastScanStatus: e.lastScanStatus ?? '',
        lastScannedAt: lastScan(e) ? new Date(lastScan(e)).toISOString() : '',
      })),
    },
  };
}
