import { keys } from '../db/keys.ts';
import { queryItems } from '../db/query.ts';
import { rulesOfEnvironment } from '../findings/repository.ts';
import { alertsOfScan, isCommitted } from '../scans/repository.ts';
import { absoluteUrl, accessibleScan } from '../scans/scans.ts';
import type { Caller } from '../http/caller.ts';
import { slaClocks } from './due-dates.ts';

// GET /api/v1/scan/{scanId}/sla (getScanSla): which findings of a scan are past their due date now
// (docs/GOVERNANCE.md), for a CI gate (`hawk-scanner import --fail-on overdue`).

/** Overdue findings listed in the answer at most (most overdue first); the counts are always whole. */
const MAX_LISTED = 100;

export async function scanSla(caller: Caller, scanId: string) {
  const { scan, app } = await accessibleScan(caller, scanId);
  const now = Date.now();
  const [alerts, rules] = await Promise.all([alertsOfScan(scan), rulesOfEnvironment(scan)]);
  const counted = new Map(alerts.filter((a) => a.uriCount > 0).map((a) => [a.pluginId, a]));
  // The scan's findings: one URI each (a finding's URIs share its hash).
  const range = keys.urisOfScan(scan.applicationId, scan.environmentId, scan.scanId);
  const found = new Map<string, { pluginId: string; severity: string; requestMethod: string; url: string }>();
  for await (const u of queryItems({
    partition: range.pk,
    skFrom: range.skFrom,
    skTo: range.skTo,
    attributes: ['n', 'pluginId', 'findingHash', 'uri', 'requestMethod'],
  })) {
    const alert = counted.get(u.pluginId as string);
    if (!alert || !isCommitted(alert, u.n as number) || found.has(u.findingHash as string)) continue;
    found.set(u.findingHash as string, {
      pluginId: alert.pluginId,
      severity: alert.severity,
      requestMethod: u.requestMethod as string,
      url: absoluteUrl(u.uri as string, scan.host),
    });
  }
  const clocks = await slaClocks(
    app.organizationId,
    scan,
    [...found].map(([findingHash, f]) => ({ findingHash, severity: f.severity })),
    rules,
    now,
  );
  const overdue = [];
  const overdueBySeverity = { High: 0, Medium: 0, Low: 0 };
  let withDueDate = 0;
  for (const [findingHash, f] of found) {
    const rule = rules.get(findingHash);
    const clock = clocks.get(findingHash)!;
    if (clock.dueAt === undefined) continue;
    withDueDate++;
    if (!clock.overdue) continue;
    overdueBySeverity[f.severity as keyof typeof overdueBySeverity]++;
    overdue.push({
      findingHash,
      ...f,
      status: rule?.status ?? 'UNKNOWN',
      dueDate: clock.dueAt,
      daysLeft: clock.daysLeft,
    });
  }
  overdue.sort((a, b) => a.dueDate - b.dueDate || a.findingHash.localeCompare(b.findingHash));
  return {
    scanId: scan.scanId,
    applicationId: scan.applicationId,
    environmentId: scan.environmentId,
    checkedAt: new Date(now).toISOString(),
    findingsWithDueDate: withDueDate,
    overdueCount: overdue.length,
    overdueBySeverity,
    overdue: overdue.slice(0, MAX_LISTED).map((f) => ({ ...f, dueDate: new Date(f.dueDate).toISOString() })),
  };
}
