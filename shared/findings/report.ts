import { stringify } from 'csv-stringify/sync';
import { keys } from '../db/keys.ts';
import { batchGet, byUtf8, rangeOrKeys, rangeUpTo } from '../db/query.ts';
import { consistentReadsRequested } from '../db/consistent-reads.ts';
import { fromItem } from '../db/items.ts';
import {
  canSeeTeamResource,
  openIssuesTotal,
  type EnvironmentRecord,
  type ReportApplication,
  type ReportEnvironment,
} from '../applications/model.ts';
import { nameOrderKey } from '../lists.ts';
import { getApplications } from '../applications/application-repository.ts';
import {
  environmentsOfApp,
  environmentsOfOrgNamed,
  reportEnvironmentsOfOrg,
} from '../applications/environment-repository.ts';
import {
  alertsOfScan,
  alertsUrisAndMessagesOfScan,
  countedAlertUris,
  getScans,
  scansOfEnvironmentNewestFirst,
  urisOfScan,
} from '../results/scan-repository.ts';
import {
  type AlertMessageRecord,
  type AlertRecord,
  type AlertUriRecord,
  type ScanRecord,
  reportStatus,
  type TriageStatus,
  issueToolsOf,
  type OpenIssues,
  HAWKSCAN_STREAM,
  issueIdOfUri,
  streamOf,
  absoluteUrl,
  committedNumbers,
  type FindingRecord,
  type TriageRule,
} from '../results/model.ts';
import { getUsers } from '../identity/user-repository.ts';
import { getTeams } from '../applications/team-repository.ts';
import { findingsOfEnvironment } from '../results/finding-repository.ts';
import { openIssuesOfEnvironments, openIssuesOfItem } from '../results/issue-summary.ts';
import type { FindingsReportQuery } from './inputs.ts';
import type { Membership, Caller } from '../context/caller.ts';
import { RawResponse } from '../context/responses.ts';
import { severityDays, slaClock, EXPIRY_ACTOR } from '../governance/model.ts';
import { slaDaysResolver } from '../governance/sla-days.ts';
import { type OpenIssuesAt } from './model.ts';

// GET /api/v1/reports/org/{orgId}/findings (docs/DATA-MODEL.md, Findings report): the organization's current
// findings, i.e. the URIs of each visible environment's current scans (its tool streams' latest COMPLETED scans, as of
// `date`/`datetime` when given: docs/DATA-MODEL.md, Tool streams),
// in (application name, environment name, plugin id, report order) order, as JSON or CSV.

/** One environment of the report and one of the scans whose findings are its current ones. */
interface ReportSource {
  app: ReportApplication;
  env: ReportEnvironment;
  scan: ScanRecord;
}

/** Scans (or heads) in the order of the environment's scan index walked newest first: start, then id, descending. */
const newestFirst = <T extends { startedAt: number; scanId: string }>(scans: T[]) =>
  scans.sort((a, b) => b.startedAt - a.startedAt || (a.scanId < b.scanId ? 1 : a.scanId > b.scanId ? -1 : 0));

/** A current scan before its record is read: its id and its rows (the record, when the walk read it). */
interface CurrentScan {
  scanId: string;
  totalAlerts: number;
  record?: ScanRecord;
}

/**
 * The environment's current scans now from its streams' heads (docs/DATA-MODEL.md, Tool streams), newest first as
 * currentScansOf walks them, when every head is a COMPLETED scan with its count: the latest of its stream, so the
 * latest completed. Undefined otherwise (a scan running or ended in error, heads written before their counts).
 */
function currentHeads(env: ReportEnvironment): CurrentScan[] | undefined {
  if (!env.streams) return undefined;
  const heads = Object.values(env.streams);
  if (!heads.every((h) => h.status === 'COMPLETED' && h.totalAlerts !== undefined)) return undefined;
  return newestFirst(heads).map((h) => ({ scanId: h.scanId, totalAlerts: h.totalAlerts! }));
}

/** Each environment's current scans: now from its heads where they tell (no read), else walked (currentScansOf). */
async function currentScansOfEnvironments(envs: ReportEnvironment[], asOf: number | undefined) {
  return mapLimited(envs, 8, async (env) => {
    const heads = asOf === undefined ? currentHeads(env) : undefined;
    if (heads) return heads;
    return (await currentScansOf(env, asOf)).map((record) => ({
      scanId: record.scanId,
      totalAlerts: record.stats?.totalAlerts ?? 0,
      record,
    }));
  });
}

/** The environments the caller may see (team rules), filtered by appIds and envs, in report order. */
async function visibleEnvironments(orgId: string, membership: Membership, q: FindingsReportQuery) {
  const names = [...new Set(q.envs.map((n) => n.toLowerCase()))];
  let envs: ReportEnvironment[];
  let apps: ReportApplication[];
  if (q.appIds.length)
    envs = (
      await Promise.all([...new Set(q.appIds.map((id) => id.toLowerCase()))].map((id) => environmentsOfApp(id)))
    ).flat();
  else if (names.length) envs = (await Promise.all(names.map((n) => environmentsOfOrgNamed(orgId, n)))).flat();
  else [envs, apps] = await reportEnvironmentsOfOrg(orgId, membership);
  apps ??= await getApplications([...new Set(envs.map((e) => e.applicationId))]);
  const byId = new Map(apps.map((a) => [a.applicationId, a]));
  return envs
    .map((env) => ({ env, app: byId.get(env.applicationId)! }))
    .filter(
      ({ env, app }) =>
        app &&
        app.organizationId === orgId &&
        canSeeTeamResource(membership, app.teamId) &&
        (names.length === 0 || names.includes(env.name.toLowerCase())),
    )
    .sort((a, b) => {
      const [x, y] = [
        `${nameOrderKey(a.app.name, a.app.applicationId)}#${nameOrderKey(a.env.name, a.env.environmentId)}`,
        `${nameOrderKey(b.app.name, b.app.applicationId)}#${nameOrderKey(b.env.name, b.env.environmentId)}`,
      ];
      return x < y ? -1 : x > y ? 1 : 0;
    });
}

/**
 * The environment's current scans as of `asOf` (ms; undefined: now): the latest scan COMPLETED by then of each of
 * its tool streams (docs/DATA-MODEL.md, Tool streams), newest first. The walk ends once each stream the
 * environment records has one (an environment written before streams: at the first).
 */
export async function currentScansOf(
  env: Pick<EnvironmentRecord, 'applicationId' | 'environmentId' | 'streams'>,
  asOf: number | undefined,
): Promise<ScanRecord[]> {
  const wanted = env.streams ? Object.keys(env.streams).length : 1;
  const byStream = new Map<string, ScanRecord>();
  // Among consistent reads, the index may not show a scan yet: streams whose latest is completed are read by key.
  if (asOf === undefined && consistentReadsRequested()) {
    for (const scan of await completedHeadScans(env)) byStream.set(streamOf(scan), scan);
    if (byStream.size >= wanted) return newestFirst([...byStream.values()]);
  }
  for await (const scan of scansOfEnvironmentNewestFirst(env.environmentId, asOf)) {
    if (scan.status !== 'COMPLETED' || scan.deleting || (asOf !== undefined && (scan.completedAt ?? Infinity) > asOf))
      continue;
    const stream = streamOf(scan);
    if (!byStream.has(stream)) byStream.set(stream, scan);
    if (byStream.size >= wanted) break;
  }
  return newestFirst([...byStream.values()]);
}

/** The scan records of the environment's stream heads that are completed (and not being deleted), read by key. */
async function completedHeadScans(env: Pick<EnvironmentRecord, 'applicationId' | 'environmentId' | 'streams'>) {
  const heads = Object.values(env.streams ?? {}).filter((head) => head.status === 'COMPLETED');
  const items = await batchGet(heads.map((h) => keys.scanRecord(env.applicationId, env.environmentId, h.scanId)));
  return items
    .map((item) => fromItem<ScanRecord>(item)!)
    .filter((scan) => scan.status === 'COMPLETED' && !scan.deleting);
}

/** What the report needs of an environment's open issues: how many, and each one's tools. */
interface IssueIndex {
  count: number;
  toolsOf: (issueId: string) => string[];
}

/**
 * The issues of the environment open at `asOf` (ms; undefined: now): those with a finding first seen by then and not
 * fixed (nor verified fixed) by then, with the tool streams of those findings. A finding recorded before issues is
 * its own issue (its hash) until the upgrade assigns it one.
 */
export async function issuesOf(
  env: Pick<EnvironmentRecord, 'applicationId' | 'environmentId'>,
  asOf: number | undefined,
): Promise<OpenIssuesAt> {
  const tools = new Map<string, Set<string>>();
  const attributes = ['findingHash', 'issueId', 'stream', 'firstSeen', 'fixedAt', 'verifiedFixedAt'] as const;
  for await (const f of findingsOfEnvironment(env, [...attributes])) {
    const gone = Math.min(f.fixedAt ?? Infinity, f.verifiedFixedAt ?? Infinity);
    const open = asOf === undefined ? gone === Infinity : f.firstSeen! <= asOf && gone > asOf;
    if (!open) continue;
    const id = f.issueId ?? f.findingHash!;
    const set = tools.get(id) ?? new Set<string>();
    set.add(f.stream ?? HAWKSCAN_STREAM);
    tools.set(id, set);
  }
  return { tools };
}

/** Maps over items with at most `limit` calls in flight, keeping order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i], i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** A run of an alert's URIs the page shows: from the alert's `from`th counted URI, `size` of them. */
interface SliceRead {
  source: ReportSource;
  alert: AlertRecord;
  from: number;
  size: number;
}
type Slice = { source: ReportSource; alert: AlertRecord; uris: AlertUriRecord[] };

/**
 * The page's URIs: whole scans and whole alerts are skipped by their counts, so a deep page reads little more than
 * itself. The page's scans' alerts are read side by side, then its URI runs (readSlices): a first page across many
 * small environments costs a few round trips, not a few per environment. A run read short (its scan deleted
 * meanwhile) leaves the page short: those rows are gone.
 */
async function pageSlices(all: PendingSource[], offset: number, size: number): Promise<Omit<Page, 'details'>> {
  const { sources, skipped, envItems } = await pageSources(all, offset, size);
  // A scan that counts no rows shows none: its alerts are not read. A scan the page shows whole has its alerts, URIs
  // and their messages read in one Query (one call, not two in a row), or taken from its environment's items.
  const whole = wholeOnPage(
    sources.map((s) => s.scan.stats?.totalAlerts ?? 0),
    offset - skipped,
    size,
  );
  const scanUris = new Map<string, AlertUriRecord[]>();
  const scanMessages = new Map<string, ScanMessages>();
  const alerts = await mapLimited(sources, PAGE_READS_IN_FLIGHT, async (source, i) => {
    if (!source.scan.stats?.totalAlerts) return [];
    if (!whole[i]) return (await alertsOfScan(source.scan)).filter((a) => a.uriCount > 0);
    const items = envItems.get(source.env.environmentId);
    const read = items
      ? scanDataOf(source.scan, items)
      : await alertsUrisAndMessagesOfScan(source.scan, [...MESSAGE_ATTRIBUTES]);
    scanUris.set(source.scan.scanId, read.uris);
    scanMessages.set(source.scan.scanId, new Map(read.messages.map((m) => [m.msgId, m])));
    return read.alerts.filter((a) => a.uriCount > 0);
  });
  const alertCounts = new Map(sources.map((source, i) => [source.scan.scanId, alerts[i]!.length]));
  const slices = await readSlices(sliceReads(sources, alerts, offset - skipped, size), alertCounts, scanUris);
  return { slices, scanMessages, envItems };
}

/**
 * A page's URI runs, the messages of the scans it shows whole (read with their URIs), and the items of its small
 * environments read as one range each (envRanges).
 */
interface Page {
  slices: Slice[];
  scanMessages: Map<string, ScanMessages>;
  envItems: Map<string, EnvItems>;
  details: ReturnType<typeof pageDetails>;
}

/** For each of the scans' row counts, whether rows [skip, skip + need) hold all its rows (as sliceReads cuts). */
function wholeOnPage(totals: number[], skip: number, need: number): boolean[] {
  return totals.map((total) => {
    if (skip >= total) {
      skip -= total;
      return false;
    }
    const whole = skip === 0 && total <= need;
    [skip, need] = [0, Math.max(0, need - (total - skip))];
    return whole;
  });
}

/** Calls one page of the report has in flight at most while it reads its scans' alerts and URIs. */
const PAGE_READS_IN_FLIGHT = 16;

/** The runs of URIs that rows [skip, skip + need) of the sources show, each run as long as the alert has. */
function sliceReads(sources: ReportSource[], alerts: AlertRecord[][], skip: number, need: number): SliceRead[] {
  const reads: SliceRead[] = [];
  for (let i = 0; i < sources.length && need > 0; i++) {
    const total = sources[i]!.scan.stats?.totalAlerts ?? 0;
    if (skip >= total) {
      skip -= total;
      continue;
    }
    for (const alert of alerts[i]!) {
      if (need === 0) break;
      if (skip >= alert.uriCount) {
        skip -= alert.uriCount;
        continue;
      }
      const size = Math.min(need, alert.uriCount - skip);
      reads.push({ source: sources[i]!, alert, from: skip, size });
      [skip, need] = [0, need - size];
    }
    skip = 0;
  }
  return reads;
}

/**
 * The URIs of each run, side by side: the runs of a scan that show each of its `alertCounts` alerts whole (two or
 * more, or any number when `scanUris` holds the scan's URIs, read beside its alerts) in one Query of the scan's URIs,
 * any other run in one range of its alert's.
 */
async function readSlices(
  reads: SliceRead[],
  alertCounts: Map<string, number>,
  scanUris: Map<string, AlertUriRecord[]>,
): Promise<Slice[]> {
  const byScan = new Map<string, SliceRead[]>();
  for (const r of reads) byScan.set(r.source.scan.scanId, [...(byScan.get(r.source.scan.scanId) ?? []), r]);
  const wholeScan = (runs: SliceRead[]) =>
    (runs.length > 1 || scanUris.has(runs[0]!.source.scan.scanId)) &&
    runs.length === alertCounts.get(runs[0]!.source.scan.scanId) &&
    runs.every((r) => r.from === 0 && r.size === r.alert.uriCount);
  const batches = [...byScan.values()].flatMap((runs) => (wholeScan(runs) ? [runs] : runs.map((r) => [r])));
  const read = await mapLimited(batches, PAGE_READS_IN_FLIGHT, async (runs) => {
    if (!wholeScan(runs))
      return [await countedAlertUris(runs[0]!.source.scan, runs[0]!.alert, runs[0]!.from, runs[0]!.size)];
    const uris = scanUris.get(runs[0]!.source.scan.scanId) ?? (await urisOfScan(runs[0]!.source.scan));
    return runs.map(({ alert }) => {
      const counted = new Set(committedNumbers(alert, 0, alert.uriCount));
      return uris.filter((u) => u.pluginId === alert.pluginId && counted.has(u.n));
    });
  });
  const urisOf = new Map(batches.flatMap((runs, i) => runs.map((run, j) => [run, read[i]![j]!])));
  return reads.map((r) => ({ source: r.source, alert: r.alert, uris: urisOf.get(r)! }));
}

/** A source whose scan record may not be read yet. */
type PendingSource = Omit<ReportSource, 'scan'> & { current: CurrentScan };

/**
 * The sources from the one holding row `offset` to the one holding its `size`th row after it, with their scan
 * records (one BatchGetItem for those the walk did not read), and the rows of the sources before them (skipped whole
 * by their counts, never read).
 */
async function pageSources(all: PendingSource[], offset: number, size: number) {
  const { start, end, skipped } = pageBounds(all, offset, size);
  const page = all.slice(start, end);
  // The small environments the page shows whole are read as one range each, beside the other scans' records; the
  // scan records of those whose range held more than expected are read after them.
  const unread = (s: PendingSource) => !s.current.record && !envItems.has(s.env.environmentId);
  const scanRefs = (list: PendingSource[]) =>
    list.filter(unread).map(({ env, current }) => ({ ...env, scanId: current.scanId }));
  const ranged = rangedSources(page, all, offset - skipped, size);
  const envItems = new Map<string, EnvItems>();
  const [, read] = await Promise.all([
    envRanges(ranged).then((ranges) => ranges.forEach((items, env) => envItems.set(env, items))),
    getScans(scanRefs(page.filter((s) => !ranged.includes(s)))),
  ]);
  read.push(...(await getScans(scanRefs(ranged))));
  const byId = new Map(read.map((scan) => [scan.scanId, scan]));
  const sources: ReportSource[] = page.flatMap((s) => {
    const items = envItems.get(s.env.environmentId);
    const recorded = items?.get(keys.scanRecord(s.env.applicationId, s.env.environmentId, s.current.scanId).sk);
    const inRange = recorded && fromItem<ScanRecord>(recorded)!;
    const scan = s.current.record ?? byId.get(s.current.scanId) ?? (inRange && !inRange.deleting ? inRange : undefined);
    // A scan deleted since its environment was read: its rows are gone.
    return scan ? [{ app: s.app, env: s.env, scan }] : [];
  });
  return { sources, skipped, envItems };
}

/** The details of the page's rows that its sources tell (SLA days, teams), read beside its scans from the start. */
function pageDetails(orgId: string, all: PendingSource[], offset: number, size: number) {
  const { start, end } = pageBounds(all, offset, size);
  const page = all.slice(start, end);
  const details = {
    slaDaysOf: slaDaysResolver(
      orgId,
      page.map(({ env }) => env),
    ),
    teams: getTeams(orgId, [...new Set(page.flatMap(({ app }) => (app.teamId ? [app.teamId] : [])))]),
  };
  // Awaited with the rows' other reads; a page that fails before them leaves no rejection unhandled.
  for (const read of Object.values(details)) (read as Promise<unknown>).catch(() => undefined);
  return details;
}

/** Which of the sources the page's rows are in (from `start` to before `end`), and the rows of those before them. */
function pageBounds(all: PendingSource[], offset: number, size: number) {
  let [start, end, seen, skipped] = [all.length, all.length, 0, 0];
  for (let i = 0; i < all.length; i++) {
    const total = all[i]!.current.totalAlerts;
    if (start === all.length) {
      if (seen + total > offset) start = i;
      else skipped += total;
    }
    seen += total;
    if (seen >= offset + size) {
      end = i + 1;
      break;
    }
  }
  return { start, end, skipped };
}

/** An environment's items that the page reads as one range (envRanges), by sort key. */
type EnvItems = Map<string, Record<string, unknown>>;

/**
 * Switches the reads of small environments as ranges (envRanges) on or off: off, the page reads as it did before
 * them (by key and by scan), which the tests compare it with.
 */
export const reportReads = { envRanges: true };

/** An environment with fewer rows than this, shown whole by the page, is read as one range (envRanges). */
const ENV_RANGE_MAX_ROWS = 16;
/** Items an environment's range may hold per row, and beyond them, before it is read as before instead. */
const ENV_RANGE_ITEMS_PER_ROW = 8;
const ENV_RANGE_SLACK = 32;

/**
 * The page's sources (`page`, from row `skip` of the first, `need` rows) whose environment has this one current
 * scan, with fewer than ENV_RANGE_MAX_ROWS rows, all on the page.
 */
function rangedSources(page: PendingSource[], all: PendingSource[], skip: number, need: number): PendingSource[] {
  if (!reportReads.envRanges) return [];
  const scansOf = new Map<string, number>();
  for (const { env } of all) scansOf.set(env.environmentId, (scansOf.get(env.environmentId) ?? 0) + 1);
  const whole = wholeOnPage(
    page.map((s) => s.current.totalAlerts),
    skip,
    need,
  );
  return page.filter(
    (s, i) =>
      whole[i] &&
      scansOf.get(s.env.environmentId) === 1 &&
      s.current.totalAlerts > 0 &&
      s.current.totalAlerts < ENV_RANGE_MAX_ROWS,
  );
}

/**
 * The items of each source's environment from its finding records to its scan's last URI (keys.ts: its findings,
 * issue detections, open issues' summary, rules, the scan's record, alerts, messages and URIs), one Query each,
 * for a page over many small environments: one call each rather than a Query for its scan and its share of
 * BatchGetItems for its scan record, summary, findings and rules (each key half a read unit or more, where the
 * range reads a few units in all). Bounded: a range holding more than ENV_RANGE_ITEMS_PER_ROW items per row (an
 * environment with older scans or many fixed findings) stops there, and its environment is read as before.
 */
async function envRanges(sources: PendingSource[]): Promise<Map<string, EnvItems>> {
  const read = await mapLimited(sources, PAGE_READS_IN_FLIGHT, async ({ env, current }) => {
    const { pk, skFrom } = {
      pk: keys.finding(env.applicationId, env.environmentId, '').pk,
      skFrom: keys.finding(env.applicationId, env.environmentId, '').sk,
    };
    const skTo = keys.urisOfScan(env.applicationId, env.environmentId, current.scanId).skTo;
    const limit = ENV_RANGE_ITEMS_PER_ROW * current.totalAlerts + ENV_RANGE_SLACK;
    const { items, readTo } = await rangeUpTo({ partition: pk, skFrom, skTo }, limit);
    return readTo === undefined ? new Map(items.map((item) => [item.sk as string, item])) : undefined;
  });
  return new Map(sources.flatMap((s, i) => (read[i] ? [[s.env.environmentId, read[i]!] as const] : [])));
}

/** A scan's alerts, URIs and messages among its environment's items (as alertsUrisAndMessagesOfScan reads them). */
function scanDataOf(scan: ScanRecord, items: EnvItems) {
  const alerts = keys.alertsOfScan(scan.applicationId, scan.environmentId, scan.scanId);
  const messages = keys.messagesOfScan(scan.applicationId, scan.environmentId, scan.scanId);
  const uris = keys.urisOfScan(scan.applicationId, scan.environmentId, scan.scanId);
  const within = (from: string, to: string) =>
    [...items.values()]
      .filter((item) => byUtf8(item.sk as string, from) >= 0 && byUtf8(item.sk as string, to) <= 0)
      .sort((a, b) => byUtf8(a.sk as string, b.sk as string));
  return {
    alerts: within(alerts.skFrom, alerts.skTo).map((item) => fromItem<AlertRecord>(item)!),
    uris: within(uris.skFrom, uris.skTo).map((item) => fromItem<AlertUriRecord>(item)!),
    messages: within(messages.skPrefix, `${messages.skPrefix}\u{10FFFF}`).map(
      (item) => Object.fromEntries(MESSAGE_ATTRIBUTES.map((a) => [a, item[a]])) as RowMessage,
    ),
  };
}

/** A rule's status at `asOf` (its history), or now. */
function statusAt(rule: TriageRule | undefined, asOf: number | undefined): TriageStatus {
  if (!rule) return 'UNKNOWN';
  if (asOf === undefined) return rule.status;
  let status: TriageStatus = rule.history[0]?.oldResult ?? 'UNKNOWN';
  for (const entry of rule.history) if (entry.timestamp <= asOf) status = entry.newResult;
  return status;
}

/** `YYYY-MM-DD hh:mm:ss` (UTC), which spreadsheets read as a date-time. */
const excelTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
/** ISO 8601 duration, e.g. PT1H2M5S. */
function isoDuration(seconds: number): string {
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s || (!h && !m) ? `${s}S` : ''}`;
}

/**
 * A row's issue (its finding record's; a record written before issues has none: computed as the scan's end does) and
 * the tools that detect it (sorted): its open findings' streams, the row's own scan's always among them.
 */
function issueOfRow(
  index: IssueIndex | undefined,
  recorded: string | undefined,
  scan: ScanRecord,
  alert: AlertRecord,
  u: AlertUriRecord,
): { issueId: string; detectedBy: string[] } {
  const issueId = recorded ?? issueIdOfUri(scan, alert, u);
  return { issueId, detectedBy: [...new Set([streamOf(scan), ...(index?.toolsOf(issueId) ?? [])])].sort() };
}

/** The message attributes a row shows. */
const MESSAGE_ATTRIBUTES = ['msgId', 'evidence', 'otherInfo'] as const;
type RowMessage = Pick<AlertMessageRecord, (typeof MESSAGE_ATTRIBUTES)[number]>;
/** A scan's messages read with its URIs (alertsUrisAndMessagesOfScan), by msgId. */
type ScanMessages = Map<string, RowMessage>;

/**
 * Fewer keys than this of one scan or environment are read by key with the rest of the page's (shared BatchGetItems):
 * a range read is a call of its own, worth it only for a range of many of them.
 */
const RANGE_MIN_KEYS = 16;

/** Keys of one scan's or environment's items that the page's rows need, and how to read them. */
interface KeyGroup {
  keys: { pk: string; sk: string }[];
  /** Read as a range of at most this many items (rangeOrKeys); undefined: by key, with the page's other keys. */
  rangeLimit?: number;
}

/** The items of the groups' keys: each ranged group by rangeOrKeys, the others' together by key. */
async function readGroups(groups: KeyGroup[], attributes?: readonly string[]): Promise<Record<string, unknown>[]> {
  const ranged = groups.filter((g) => g.rangeLimit !== undefined);
  const keyed = groups.filter((g) => g.rangeLimit === undefined).flatMap((g) => g.keys);
  const read = await Promise.all([
    batchGet(keyed, attributes && [...attributes]),
    ...ranged.map((g) => rangeOrKeys(g.keys, g.rangeLimit!, attributes && [...attributes])),
  ]);
  return read.flat();
}

/** Values grouped by a key, each group's distinct by a second key, in order of first appearance. */
function groupedDistinct<T>(values: T[], group: (v: T) => string, id: (v: T) => string): Map<string, T[]> {
  const groups = new Map<string, Map<string, T>>();
  for (const v of values) {
    const g = groups.get(group(v)) ?? new Map<string, T>();
    if (!g.has(id(v))) g.set(id(v), v);
    groups.set(group(v), g);
  }
  return new Map([...groups].map(([k, g]) => [k, [...g.values()]]));
}

type PageUri = { source: ReportSource; u: AlertUriRecord };

/**
 * The page's messages (evidence, other info). A scan shown whole had them read with its URIs. A scan the page shows half of or
 * more (by its count) has the range of its rows' messages read (rangeOrKeys, at most twice as many as it needs);
 * any other scan's by key, with the rest of the page's.
 */
async function pageMessages(uris: PageUri[], scanMessages: Map<string, ScanMessages>): Promise<RowMessage[]> {
  const taken: RowMessage[] = [];
  const groups: KeyGroup[] = [];
  for (const [scanId, scanUris] of groupedDistinct(
    uris,
    (x) => x.source.scan.scanId,
    (x) => x.u.msgId,
  )) {
    const { scan } = scanUris[0]!.source;
    const wanted = scanUris.map(({ u }) => keys.alertMessage(scan.applicationId, scan.environmentId, scanId, u.msgId));
    const read = scanMessages.get(scanId);
    if (read) {
      // Read with the scan's URIs: a message not among them has no item.
      taken.push(...scanUris.flatMap(({ u }) => read.get(u.msgId) ?? []));
      continue;
    }
    const covered = 2 * wanted.length >= (scan.stats?.totalAlerts ?? 0);
    const ranged = wanted.length >= RANGE_MIN_KEYS && covered;
    groups.push({ keys: wanted, rangeLimit: ranged ? 2 * wanted.length : undefined });
  }
  const read = await readGroups(groups, MESSAGE_ATTRIBUTES);
  return [...taken, ...read.map((m) => fromItem<RowMessage>(m)!)];
}

/** The page's rows of each environment, and its rows in all (its current scans' counts). */
type EnvRows = Map<string, { onPage: number; total: number }>;

/**
 * The finding records and the rules of the page's rows. An environment the page shows half of or more (by its
 * current scans' counts) has the range of its rows' records read, and of their rules (rangeOrKeys, at most twice as
 * many as it needs); an environment whose rows mostly have no rule by its scans' triage counts has the range of
 * their rules read (at most as many as it needs: most of what is looked for is absent, which a BatchGetItem pays
 * for); the rest by key, every environment's together. One finding has several URIs when their paths normalize
 * alike (/users/1, /users/2): each finding is read once (BatchGetItem refuses duplicate keys).
 */
async function pageFindingsAndRules(uris: PageUri[], envRows: EnvRows, envItems: Map<string, EnvItems>) {
  const findingGroups: KeyGroup[] = [];
  const ruleGroups: KeyGroup[] = [];
  const taken: [Record<string, unknown>[], Record<string, unknown>[]] = [[], []];
  for (const [envId, envUris] of groupedDistinct(
    uris,
    (x) => x.source.env.environmentId,
    (x) => x.u.findingHash,
  )) {
    const { env } = envUris[0]!.source;
    const hashes = envUris.map(({ u }) => u.findingHash);
    const items = envItems.get(envId);
    if (items) {
      // Read among the environment's items: a key not among them has no item.
      const found = (key: { sk: string }): Record<string, unknown>[] => [items.get(key.sk) ?? []].flat();
      taken[0].push(
        ...hashes
          .flatMap((h) => found(keys.finding(env.applicationId, envId, h)))
          .map((item) => Object.fromEntries(FINDING_ATTRIBUTES.flatMap((a) => (a in item ? [[a, item[a]]] : [])))),
      );
      taken[1].push(...hashes.flatMap((h) => found(keys.triageRule(env.applicationId, envId, h))));
      continue;
    }
    const rows = envRows.get(envId) ?? { onPage: 0, total: 0 };
    const covered = hashes.length >= RANGE_MIN_KEYS && 2 * rows.onPage >= rows.total;
    const sparse = hashes.length >= RANGE_MIN_KEYS && 2 * triagedRows(envUris) <= hashes.length;
    findingGroups.push({
      keys: hashes.map((h) => keys.finding(env.applicationId, envId, h)),
      rangeLimit: covered ? 2 * hashes.length : undefined,
    });
    ruleGroups.push({
      keys: hashes.map((h) => keys.triageRule(env.applicationId, envId, h)),
      rangeLimit: covered ? 2 * hashes.length : sparse ? hashes.length : undefined,
    });
  }
  const [findings, rules] = await Promise.all([readGroups(findingGroups, FINDING_ATTRIBUTES), readGroups(ruleGroups)]);
  return [
    [...taken[0], ...findings],
    [...taken[1], ...rules],
  ] as const;
}

/** The finding record attributes a row shows. */
const FINDING_ATTRIBUTES = ['findingHash', 'firstSeen', 'verifiedFixedAt', 'issueId', 'assigneeId'] as const;

/**
 * The rows of the page's scans (these URIs') that their scans count as having a status, so a rule (their frozen
 * triage counts, kept current by triage while a scan is its environment's last): an estimate, all of them when a
 * scan does not count them.
 */
function triagedRows(uris: PageUri[]): number {
  const scans = new Map(uris.map(({ source: { scan } }) => [scan.scanId, scan]));
  let triaged = 0;
  for (const scan of scans.values()) {
    const byStatus = scan.stats?.byStatus;
    const untriaged = byStatus ? Object.values(byStatus.UNKNOWN ?? {}).reduce((n, c) => n + c, 0) : 0;
    triaged += Math.max(0, (scan.stats?.totalAlerts ?? 0) - untriaged);
  }
  return triaged;
}

/** What the page's rows show beside their URIs, read side by side: messages, findings, rules, users, teams, SLA days. */
async function rowReads(orgId: string, page: Page, envRows: EnvRows) {
  const { slices, scanMessages, envItems, details } = page;
  const uris = slices.flatMap(({ source, uris }) => uris.map((u) => ({ source, u })));
  const [messages, [firstSeen, rules], scanUsers, teams, slaDaysOf] = await Promise.all([
    pageMessages(uris, scanMessages),
    pageFindingsAndRules(uris, envRows, envItems),
    getUsers(slices.map((s) => s.source.scan.userId)),
    details.teams,
    details.slaDaysOf,
  ]);
  const messageOf = new Map(messages.map((m) => [m.msgId, m]));
  const findingOf = new Map(
    firstSeen
      .map((f) =>
        fromItem<Pick<FindingRecord, 'findingHash' | 'firstSeen' | 'verifiedFixedAt' | 'issueId' | 'assigneeId'>>(f)!,
      )
      .map((f) => [f.findingHash, f]),
  );
  const ruleOf = new Map(rules.map((item) => fromItem<TriageRule>(item)!).map((rule) => [rule.findingHash, rule]));
  const known = new Set(scanUsers.map((u) => u.userId));
  const triagers = await getUsers(
    [
      ...new Set([
        ...[...ruleOf.values()].map((r) => r.userId),
        ...[...findingOf.values()].flatMap((f) => (f.assigneeId ? [f.assigneeId] : [])),
      ]),
    ].filter((id) => !known.has(id)),
  );
  const userOf = new Map([...scanUsers, ...triagers].map((u) => [u.userId, u.fullName]));
  userOf.set(EXPIRY_ACTOR.userId, EXPIRY_ACTOR.name);
  const teamOf = new Map(teams.map((t) => [t.teamId, t.name]));
  return { messageOf, findingOf, ruleOf, userOf, teamOf, slaDaysOf };
}

/** reports.CurrentFindingRow of each URI of the page. */
async function rowsOf(
  orgId: string,
  page: Page,
  envRows: EnvRows,
  asOf: number | undefined,
  now: number,
  issuesRead: Promise<Map<string, IssueIndex>>,
) {
  // The issues' index (its summaries' BatchGetItem) is read beside the rows' details, not before them.
  const [{ messageOf, findingOf, ruleOf, userOf, teamOf, slaDaysOf }, issues] = await Promise.all([
    rowReads(orgId, page, envRows),
    issuesRead,
  ]);
  const { slices } = page;
  // Due dates as of the report's moment (`date`/`datetime`), or now.
  const at = asOf ?? now;
  const iso = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString());
  return slices.flatMap(({ source: { app, env, scan }, alert, uris }) =>
    uris.map((u) => {
      const finding = findingOf.get(u.findingHash);
      const first = Math.min(finding?.firstSeen ?? scan.startedAt, scan.startedAt);
      const last = scan.startedAt;
      const message = messageOf.get(u.msgId);
      const rule = ruleOf.get(u.findingHash);
      const history = (rule?.history ?? []).filter((h) => h.timestamp <= at);
      const clock = slaClock(first, severityDays(slaDaysOf(env), alert.severity), history, at);
      const lastChange = history.at(-1);
      const status = statusAt(rule, asOf);
      const current = asOf === undefined && rule ? rule : undefined;
      return {
        scanId: scan.scanId,
        applicationId: app.applicationId,
        applicationName: app.name,
        environmentId: env.environmentId,
        environmentName: env.name,
        status: reportStatus(status),
        findingPluginId: alert.pluginId,
        findingPluginName: alert.name,
        findingRisk: alert.severity,
        findingUrl: absoluteUrl(u.uri, scan.host),
        findingMethod: u.requestMethod,
        findingEvidence: message?.evidence ?? '',
        findingOtherInfo: message?.otherInfo ?? '',
        findingDescription: alert.description,
        findingFirstSeen: first,
        findingFirstSeenISO8601: new Date(first).toISOString(),
        findingFirstSeenExcelFormat: excelTime(first),
        findingLastSeen: last,
        findingLastSeenISO8601: new Date(last).toISOString(),
        findingLastSeenExcelFormat: excelTime(last),
        findingHash: u.findingHash,
        ...issueOfRow(issues.get(env.environmentId), finding?.issueId, scan, alert, u),
        cweId: alert.cweId,
        remediationAdvice: '',
        scanDuration: scan.durationSeconds ?? 0,
        scanDurationISO8601: isoDuration(scan.durationSeconds ?? 0),
        scanUserId: scan.userId,
        scanUserName: userOf.get(scan.userId) ?? '',
        team: (app.teamId && teamOf.get(app.teamId)) || '',
        dueDate: iso(clock.dueAt),
        daysLeft: clock.daysLeft,
        overdue: clock.overdue,
        triagedBy: lastChange?.userId ?? '',
        triagedByName: (lastChange && userOf.get(lastChange.userId)) || '',
        triagedAt: iso(lastChange?.timestamp),
        triageNote: lastChange?.note ?? '',
        riskAcceptedUntil: status === 'RISK_ACCEPTED' ? iso(current ? current.expiresAt : lastChange?.expiresAt) : '',
        // A retest found it gone (docs/HOSTED-SCANS.md, Retests); as of now, whatever the report's moment.
        verifiedFixedAt: iso(finding?.verifiedFixedAt),
        // Who is to act on it (docs/API.md, Assignees).
        assigneeId: finding?.assigneeId ?? '',
        assigneeName: (finding?.assigneeId && userOf.get(finding.assigneeId)) || '',
      };
    }),
  );
}

export type FindingRow = Awaited<ReturnType<typeof rowsOf>>[number];

/**
 * CSV columns: the public example's, in its order (first/last seen in ISO 8601), then the hash, CWE and team, then
 * ours: the due date and days left, and who triaged the finding last, when, why and until when it is accepted.
 */
const CSV_COLUMNS: [keyof FindingRow, string][] = [
  ['scanId', 'scanId'],
  ['applicationId', 'applicationId'],
  ['applicationName', 'applicationName'],
  ['environmentId', 'environmentId'],
  ['environmentName', 'environmentName'],
  ['status', 'status'],
  ['findingPluginId', 'findingPluginId'],
  ['findingPluginName', 'findingPluginName'],
  ['findingRisk', 'findingRisk'],
  ['findingUrl', 'findingUrl'],
  ['findingMethod', 'findingMethod'],
  ['findingEvidence', 'findingEvidence'],
  ['findingOtherInfo', 'findingOtherInfo'],
  ['findingDescription', 'findingDescription'],
  ['findingFirstSeenISO8601', 'findingFirstSeen'],
  ['findingLastSeenISO8601', 'findingLastSeen'],
  ['findingHash', 'findingHash'],
  ['cweId', 'cweId'],
  ['team', 'team'],
  ['dueDate', 'dueDate'],
  ['daysLeft', 'daysLeft'],
  ['overdue', 'overdue'],
  ['triagedByName', 'triagedBy'],
  ['triagedAt', 'triagedAt'],
  ['triageNote', 'triageNote'],
  ['riskAcceptedUntil', 'riskAcceptedUntil'],
  ['issueId', 'issueId'],
  ['detectedBy', 'detectedBy'],
];

/**
 * A cell a spreadsheet would read as a formula (CWE-1236): one starting with =, +, - or @, or with a tab or carriage
 * return that hides such a start. Scanned sites plant these in evidence and URLs. OWASP's neutralization: a leading
 * apostrophe, which makes the cell text, and the field quoted.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * RFC 4180 text with a header row: CRLF line ends; a field is quoted when it holds a comma, a quote or any line break
 * (a bare LF or CR too: csv-stringify's own rule quotes only the record delimiter, and Excel and Python's csv split
 * rows on a bare LF); text cells that would start a formula are neutralized.
 */
export function findingsCsv(rows: FindingRow[]): string {
  return stringify(rows, {
    header: true,
    record_delimiter: 'windows',
    quoted_match: /[\r\n]/,
    cast: {
      string: (value) => (FORMULA_START.test(value) ? { value: `'${value}`, quoted: true } : value),
      boolean: (value) => String(value), // csv-stringify's own: '1' and an empty cell
      object: (value) => (Array.isArray(value) ? value.join(' ') : JSON.stringify(value)), // detectedBy: `wapiti zap`
    },
    columns: CSV_COLUMNS.map(([key, header]) => ({ key, header })),
  });
}

/**
 * The issues index of the environments (issuesOf). Now: an environment off the page counts from its record's open
 * issues (EnvironmentRecord.openIssues*, the summary's count: no read); the page's environments, and those whose
 * record does not count them all (written before openIssuesInfo), from their summaries (shared/results/
 * issue-summary.ts; one BatchGetItem per 100), one without a summary (or a stale one) read whole. As of a moment,
 * each read whole.
 */
async function issueIndexes(
  envs: ReportEnvironment[],
  asOf: number | undefined,
  { slices, envItems }: Page,
): Promise<Map<string, IssueIndex>> {
  // The tool streams of the page's rows, by environment: a summary names the tools of their issues exactly when
  // it lists each issue's (two streams or more) or its one stream is theirs.
  const pageStreams = new Map<string, Set<string>>();
  for (const { source } of slices)
    pageStreams.set(
      source.env.environmentId,
      (pageStreams.get(source.env.environmentId) ?? new Set()).add(streamOf(source.scan)),
    );
  const counted = (env: ReportEnvironment) =>
    asOf === undefined && !pageStreams.has(env.environmentId) ? openIssuesTotal(env) : undefined;
  // An environment read as a range (envRanges) has its summary among its items.
  const inRange = (env: ReportEnvironment) =>
    envItems.get(env.environmentId)?.get(keys.openIssues(env.applicationId, env.environmentId).sk);
  const summaries =
    asOf === undefined
      ? await openIssuesOfEnvironments(
          envs.filter((env) => counted(env) === undefined && !envItems.has(env.environmentId)),
        )
      : new Map<string, OpenIssues>();
  if (asOf === undefined)
    for (const env of envs) {
      const item = counted(env) === undefined ? inRange(env) : undefined;
      if (item) summaries.set(env.environmentId, openIssuesOfItem(item));
    }
  const exact = (summary: OpenIssues, envId: string) =>
    !summary.stale &&
    (summary.tools !== undefined ||
      [...(pageStreams.get(envId) ?? [])].every((t) => summary.streams.every((s) => s === t)));
  const indexes = await mapLimited(envs, 8, async (env): Promise<IssueIndex> => {
    // Off the page no row asks for tools.
    const count = counted(env);
    if (count !== undefined) return { count, toolsOf: () => [] };
    const summary = summaries.get(env.environmentId);
    if (summary && exact(summary, env.environmentId))
      return { count: summary.count, toolsOf: (id) => issueToolsOf(summary, id) ?? [] };
    const { tools } = await issuesOf(env, asOf);
    return { count: tools.size, toolsOf: (id) => [...(tools.get(id) ?? [])] };
  });
  return new Map(envs.map((env, i) => [env.environmentId, indexes[i]!]));
}

/** Each environment of the page: its rows on the page and its current scans' rows in all. */
function envRowsOf(sources: PendingSource[], slices: Slice[]): EnvRows {
  const rows: EnvRows = new Map();
  for (const { source, uris } of slices) {
    const env = rows.get(source.env.environmentId) ?? { onPage: 0, total: 0 };
    rows.set(source.env.environmentId, { ...env, onPage: env.onPage + uris.length });
  }
  for (const { env, current } of sources) {
    const counted = rows.get(env.environmentId);
    if (counted) counted.total += current.totalAlerts;
  }
  return rows;
}

/**
 * A page of the organization's current findings and their total. Cost: the visible environments (one index walk or
 * the filtered ones); now, their streams' heads name their current scans and count their rows, and their open
 * issues' summaries count the issues (one BatchGetItem per 100 environments); as of a moment, a Query per environment
 * for its current scans and a read of its findings. Then only the scans, alerts and URI ranges the page covers (a
 * scan shown whole with its messages), a BatchGetItem for the page's scans, and its rows' messages, finding records
 * and rules as ranges where the page covers much of their scan or environment (bounded), else by key: never the
 * organization's findings (docs/DATA-MODEL.md, Findings). A small environment the page shows whole: one range of its
 * items instead (envRanges).
 */
export async function listOrganizationFindings(caller: Caller, orgId: string, q: FindingsReportQuery) {
  const membership = await caller.authorize(orgId);
  const asOf = q.datetime ?? q.date;
  const now = Date.now();
  const envs = await visibleEnvironments(orgId, membership, q);
  const scans = await currentScansOfEnvironments(
    envs.map((e) => e.env),
    asOf,
  );
  const sources = envs.flatMap((e, i) => scans[i]!.map((current) => ({ ...e, current })));
  const totalFindings = sources.reduce((n, s) => n + s.current.totalAlerts, 0);
  const withScans = envs.filter((_, i) => scans[i]!.length > 0).map((e) => e.env);
  const details = pageDetails(orgId, sources, q.pageToken * q.pageSize, q.pageSize);
  const page = { ...(await pageSlices(sources, q.pageToken * q.pageSize, q.pageSize)), details };
  const issuesRead = issueIndexes(withScans, asOf, page);
  const findings = await rowsOf(orgId, page, envRowsOf(sources, page.slices), asOf, now, issuesRead);
  const totalIssues = [...(await issuesRead).values()].reduce((n, index) => n + index.count, 0);
  return { findings, totalFindings, totalIssues };
}

/** The report as JSON (reports.CurrentFindingsResponse) or, for `Accept: text/csv`, as CSV with the total in X-Total-Count. */
export async function findingsReport(
  caller: Caller,
  orgId: string,
  q: FindingsReportQuery,
  mediaType: string | undefined,
) {
  const report = await listOrganizationFindings(caller, orgId, q);
  if (mediaType !== 'text/csv') return report;
  return new RawResponse({
    statusCode: 200,
    headers: { 'content-type': 'text/csv; charset=utf-8', 'x-total-count': String(report.totalFindings) },
    body: findingsCsv(report.findings),
  });
}
