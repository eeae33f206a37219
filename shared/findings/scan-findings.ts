import { SEVERITIES, type Severity } from '../input/severities.ts';
import { getDescriptionRoutes } from '../hosted-assets/repository.ts';
import { findingsOfEnvironment, getTriageVersion, rulesOfEnvironment } from '../results/finding-repository.ts';
import {
  type FindingRecord,
  streamHeadedBy,
  streamOf,
  TRIAGE_STATUSES,
  type StatusCounts,
  type TriageStats,
  issueIdOfUri,
  normalizedPath,
  pathTemplates,
  type PathTemplates,
  type AlertRecord,
  type CountedUri,
  type ScanRecord,
  type TriageRule,
} from '../results/model.ts';
import { environmentTrendTotal } from '../trends/writes.ts';
import { countedUrisOfScan } from '../results/scan-repository.ts';
import type { EnvironmentStreams } from '../applications/model.ts';

// What a scan's end records about its findings (docs/DATA-MODEL.md, Findings): each finding's first and last seen
// and its URIs in the scan, and the scan's findings by triage status, from the rules in force at that moment.

/** A plugin's counts: own entries only, since plugin ids are report text ("constructor" is a valid one). */
export const pluginCounts = (stats: Pick<TriageStats, 'byPluginStatus'> | undefined, pluginId: string) =>
  stats?.byPluginStatus && Object.hasOwn(stats.byPluginStatus, pluginId) ? stats.byPluginStatus[pluginId] : undefined;

/**
 * The scan whose figures count a finding (triage-figures.ts, TriageFiguresContext.scan): its last scan, while that
 * scan is the latest of one of the environment's streams (`streams`, as read: docs/DATA-MODEL.md, Tool streams),
 * the finding is not fixed (a retest's fix takes it out), and the scan is not being deleted and counts the
 * finding's plugin; else undefined. `scanOf` reads a scan (the caller reads each once).
 */
export async function countingScan(
  streams: EnvironmentStreams,
  finding: Pick<FindingRecord, 'lastScanId' | 'fixedAt' | 'pluginId'>,
  scanOf: (scanId: string) => Promise<ScanRecord | undefined>,
): Promise<ScanRecord | undefined> {
  if (streamHeadedBy(streams, finding.lastScanId) === undefined || finding.fixedAt !== undefined) return undefined;
  const scan = await scanOf(finding.lastScanId);
  return scan && !scan.deleting && pluginCounts(scan.stats as TriageStats | undefined, finding.pluginId)
    ? scan
    : undefined;
}

const zeroStatuses = (): StatusCounts => Object.fromEntries(TRIAGE_STATUSES.map((s) => [s, 0])) as StatusCounts;
const zeroBySeverity = () => Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;

/** Every finding untriaged (a running scan's statistics: its URIs are matched with the rules when it ends). */
export function untriagedStats(alerts: AlertRecord[]): TriageStats {
  const byStatus = Object.fromEntries(TRIAGE_STATUSES.map((s) => [s, zeroBySeverity()])) as TriageStats['byStatus'];
  const byPluginStatus: TriageStats['byPluginStatus'] = {};
  for (const alert of alerts.filter((a) => a.uriCount > 0)) {
    byStatus.UNKNOWN[alert.severity] += alert.uriCount;
    byPluginStatus[alert.pluginId] = { ...zeroStatuses(), UNKNOWN: alert.uriCount };
  }
  return { byStatus, byPluginStatus };
}

/**
 * The application's hosted description compiled for issue paths (docs/ISSUES.md, The rule), once per scan recorded
 * or diffed; undefined without one.
 */
export async function issueTemplatesOf(applicationId: string): Promise<PathTemplates | undefined> {
  const routes = await getDescriptionRoutes(applicationId);
  return routes && pathTemplates(routes.paths, routes.basePaths);
}

/**
 * Reads the scan's URIs (hash, plugin, method, URI, parameter), the environment's rules and known findings, and
 * returns the findings to record and the scan's triage statistics. `triageVersion` is read first: the completion
 * commits only if no triage happened since (triageVersionCheck). `uris`: the scan's counted URIs when the caller
 * holds them already (an import, which wrote them), else read.
 */
export async function findingsOfScan(
  scan: ScanRecord,
  alerts: AlertRecord[],
  uris: Iterable<CountedUri> | AsyncIterable<CountedUri> = countedUrisOfScan(scan, alerts),
) {
  // The trend version first: the publication is conditioned on it, so the records read below are the current ones.
  const [trend, triageVersion, templates] = await Promise.all([
    environmentTrendTotal(scan),
    getTriageVersion(scan),
    issueTemplatesOf(scan.applicationId),
  ]);
  const rules = await rulesOfEnvironment(scan);
  const seen = new Map<string, FindingRecord>();
  for await (const u of uris) {
    const found = seen.get(u.findingHash);
    if (found) {
      found.lastScanUris++;
      continue;
    }
    seen.set(u.findingHash, {
      findingHash: u.findingHash,
      pluginId: u.alert.pluginId,
      requestMethod: u.requestMethod,
      path: normalizedPath(u.uri),
      param: u.param,
      uri: u.uri,
      severity: u.alert.severity,
      issueId: issueIdOfUri(scan, u.alert, u, templates),
      cweId: u.alert.cweId,
      firstSeen: scan.startedAt,
      lastSeen: scan.startedAt,
      lastScanId: scan.scanId,
      stream: streamOf(scan),
      lastScanUris: 1,
      currentSince: scan.startedAt,
    });
  }
  const known = new Map<string, FindingRecord>();
  for await (const record of findingsOfEnvironment(scan)) {
    const { recordedBy: _by, previous: _previous, ...finding } = record as FindingRecord;
    known.set(finding.findingHash, finding);
    const now = seen.get(finding.findingHash);
    if (!now) continue;
    if (finding.firstSeen < now.firstSeen) now.firstSeen = finding.firstSeen;
    // Still current: it stays so since when it became so; fixed: current again from this scan.
    if (finding.fixedAt === undefined) now.currentSince = finding.currentSince ?? finding.firstSeen;
    // Its assignee stays with it (docs/API.md, Assignees).
    if (finding.assigneeId) Object.assign(now, { assigneeId: finding.assigneeId, assignedAt: finding.assignedAt });
  }

  const carried = carriedRules([...seen.values()], [...known.values()], rules);
  for (const rule of carried) rules.set(rule.findingHash, rule);

  // Triaged URIs counted from the findings; untriaged = the alert's counted URIs minus those, so that the figures
  // always add up to the alerts' uriCount.
  const stats = untriagedStats(alerts);
  for (const finding of seen.values()) {
    const status = rules.get(finding.findingHash)?.status ?? 'UNKNOWN';
    const plugin = pluginCounts(stats, finding.pluginId);
    if (status === 'UNKNOWN' || !plugin) continue;
    const moved = Math.min(finding.lastScanUris, plugin.UNKNOWN);
    plugin.UNKNOWN -= moved;
    plugin[status] += moved;
    stats.byStatus.UNKNOWN[finding.severity] -= moved;
    stats.byStatus[status][finding.severity] += moved;
  }
  // `templates`: the key of the issue templates the findings' issues were computed with (their scan's digest).
  return {
    findings: [...seen.values()],
    stats,
    triageVersion,
    rules,
    carried,
    known,
    trend,
    templates: templates?.key ?? '',
  };
}

/**
 * The rules that findings of this scan without a rule of their own take from their issue (docs/ISSUES.md, What an issue shares):
 * the rule of another detection of the same issue (the latest changed, when several have one), as the finding's own.
 */
export function carriedRules(
  found: FindingRecord[],
  known: FindingRecord[],
  rules: Map<string, TriageRule>,
): TriageRule[] {
  const ofIssue = new Map<string, TriageRule>();
  for (const f of [...known, ...found]) {
    const rule = f.issueId && rules.get(f.findingHash);
    if (!rule) continue;
    const held = ofIssue.get(f.issueId!);
    if (!held || held.updatedAt < rule.updatedAt) ofIssue.set(f.issueId!, rule);
  }
  const carried: TriageRule[] = [];
  for (const f of found) {
    const rule = f.issueId && !rules.has(f.findingHash) ? ofIssue.get(f.issueId) : undefined;
    if (rule) carried.push({ ...rule, findingHash: f.findingHash, version: 1 });
  }
  return carried;
}
