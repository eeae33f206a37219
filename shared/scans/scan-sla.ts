import { keys } from '../db/keys.ts';
import { queryItems } from '../db/query.ts';
import { rulesOfEnvironment } from '../results/finding-repository.ts';
import { alertsOfScan } from '../results/scan-repository.ts';
import { type ScanRecord, issueIdOfUri, isCommitted, absoluteUrl } from '../results/model.ts';
import { accessibleScan } from './scans.ts';
import type { Caller } from '../context/caller.ts';
import { slaClocks } from '../governance/due-dates.ts';
import { issueTemplatesOf } from '../findings/scan-findings.ts';
import { type OverdueFinding, mostOverdueFirst } from './model.ts';
import { currentScansOf } from '../findings/report.ts';
import type { EnvironmentRecord } from '../applications/model.ts';

// GET /api/v1/scan/{scanId}/sla (getScanSla): which findings of a scan are past their due date now
// (docs/GOVERNANCE.md), for a CI gate (`hawk-scanner import --fail-on overdue`).

/** Overdue findings listed in the answer at most (most overdue first); the counts are always whole. */
const MAX_LISTED = 100;

/**
 * The findings of `scan` (its environment's latest) past their due date at `now`, most overdue first, with the count
 * of its findings that have a due date (`due`: each with its clock's start). Cost: the scan's alerts and URIs, its findings' first sightings and the
 * environment's rules: the scan's size.
 */
export async function overdueOfScan(orgId: string, scan: ScanRecord, now: number) {
  const [alerts, rules, templates] = await Promise.all([
    alertsOfScan(scan),
    rulesOfEnvironment(scan),
    issueTemplatesOf(scan.applicationId),
  ]);
  const counted = new Map(alerts.filter((a) => a.uriCount > 0).map((a) => [a.pluginId, a]));
  // The scan's findings: one URI each (a finding's URIs share its hash).
  const range = keys.urisOfScan(scan.applicationId, scan.environmentId, scan.scanId);
  const found = new Map<
    string,
    { issueId: string; pluginId: string; severity: string; requestMethod: string; url: string }
  >();
  for await (const u of queryItems({
    partition: range.pk,
    skFrom: range.skFrom,
    skTo: range.skTo,
    attributes: ['n', 'pluginId', 'findingHash', 'uri', 'requestMethod', 'param'],
  })) {
    const alert = counted.get(u.pluginId as string);
    if (!alert || !isCommitted(alert, u.n as number) || found.has(u.findingHash as string)) continue;
    const uri = { requestMethod: u.requestMethod as string, uri: u.uri as string, param: (u.param as string) ?? '' };
    found.set(u.findingHash as string, {
      issueId: issueIdOfUri(scan, alert, uri, templates),
      pluginId: alert.pluginId,
      severity: alert.severity,
      requestMethod: u.requestMethod as string,
      url: absoluteUrl(u.uri as string, scan.host),
    });
  }
  const clocks = await slaClocks(
    orgId,
    scan,
    [...found].map(([findingHash, f]) => ({ findingHash, severity: f.severity })),
    rules,
    now,
  );
  const overdue: OverdueFinding[] = [];
  const dueIssues = new Set<string>();
  // Every finding with a due date, its clock's start (the overview's overdue digest keeps them: due = start + days).
  const due: (Omit<OverdueFinding, 'dueDate' | 'daysLeft'> & { start: number })[] = [];
  let findingsWithDueDate = 0;
  for (const [findingHash, f] of found) {
    const clock = clocks.get(findingHash)!;
    if (clock.dueAt === undefined) continue;
    findingsWithDueDate++;
    dueIssues.add(f.issueId);
    const status = rules.get(findingHash)?.status ?? 'UNKNOWN';
    due.push({ findingHash, ...f, status, start: clock.start! });
    if (!clock.overdue) continue;
    overdue.push({ findingHash, ...f, status, dueDate: clock.dueAt, daysLeft: clock.daysLeft });
  }
  overdue.sort(mostOverdueFirst);
  // The latest history entry read: the clocks above leave out entries after `now` (a digest is exact from it on).
  let asOf = 0;
  for (const rule of rules.values()) for (const entry of rule.history ?? []) asOf = Math.max(asOf, entry.timestamp);
  return { findingsWithDueDate, dueIssues, overdue, due, asOf };
}

/**
 * overdueOfScan of each of the environment's current scans (its tool streams' latest: docs/DATA-MODEL.md, Tool
 * streams), newest first, with the scan.
 */
export async function overdueOfCurrentScans(
  orgId: string,
  env: Pick<EnvironmentRecord, 'applicationId' | 'environmentId' | 'streams'>,
  now: number,
) {
  const scans = await currentScansOf(env, undefined);
  return Promise.all(scans.map(async (scan) => ({ scan, ...(await overdueOfScan(orgId, scan, now)) })));
}

export async function scanSla(caller: Caller, scanId: string) {
  const { scan, app } = await accessibleScan(caller, scanId);
  const now = Date.now();
  const { findingsWithDueDate, overdue } = await overdueOfScan(app.organizationId, scan, now);
  const overdueBySeverity = { High: 0, Medium: 0, Low: 0 };
  for (const f of overdue) overdueBySeverity[f.severity as keyof typeof overdueBySeverity]++;
  return {
    scanId: scan.scanId,
    applicationId: scan.applicationId,
    environmentId: scan.environmentId,
    checkedAt: new Date(now).toISOString(),
    findingsWithDueDate,
    overdueCount: overdue.length,
    overdueBySeverity,
    overdue: overdue
      .slice(0, MAX_LISTED)
      .map(({ issueId: _issue, ...f }) => ({ ...f, dueDate: new Date(f.dueDate).toISOString() })),
  };
}
