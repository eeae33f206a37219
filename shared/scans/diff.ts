import { setImmediate } from 'node:timers/promises';
import { badRequest } from '../errors.ts';
import { batchGet } from '../db/query.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { SEVERITIES } from '../input/severities.ts';
import { alertsOfScan, countedUriList, scansOfEnvironmentNewestFirst } from '../results/scan-repository.ts';
import { scanDigestOf } from './scan-digest.ts';
import {
  type AlertRecord,
  type CountedUri,
  type FindingRecord,
  type ScanRecord,
  streamOf,
  issueIdOfUri,
  type PathTemplates,
} from '../results/model.ts';
import { issueTemplatesOf } from '../findings/scan-findings.ts';
import type { Caller } from '../context/caller.ts';
import { accessibleScan } from './scans.ts';
import type { ScanDiffQuery } from './inputs.ts';
import { MAX_DIFF_PAGE, MAX_DIFF_PAGE_BYTES } from '../limits.ts';

// GET /api/v1/scan/{scanId}/diff (docs/DATA-MODEL.md, Scan diffs): what changed between two scans of one
// environment, finding by finding (findingHash).

export interface DiffFinding {
  findingHash: string;
  /** The issue the finding is a detection of (results/model.ts, issueId; docs/ISSUES.md). */
  issueId: string;
  pluginId: string;
  name: string;
  severity: string;
  method: string;
  /** One literal URI of the finding in its scan. */
  uri: string;
  param: string;
}

/** The sets of a diff, in the order its pages list them. */
export type DiffSet = 'new' | 'regressed' | 'fixed' | 'unchanged';

export interface ScanDiff extends Record<DiffSet, DiffFinding[]> {
  scanId: string;
  /** '' when the scan has no previous completed scan in its stream: every finding is new. */
  againstScanId: string;
  /** Each set's size: a page lists part of them. */
  totals: Record<DiffSet, number>;
  /** The next page's token, its offset ('' after the last): pages run through new, regressed, fixed, then unchanged. */
  nextPageToken: string;
}

/**
 * Which page: up to `pageSize` entries (and MAX_DIFF_PAGE_BYTES of JSON) from offset `pageToken`, counted across the
 * sets in their order.
 */
export interface DiffPage {
  pageSize: number;
  pageToken: number;
}

/** A finding of a scan, its issue not yet computed, with what computes it. */
export interface Found {
  finding: DiffFinding;
  cweId: string;
}

/**
 * The scan's findings by hash (the first URI of each). From its digest when it has one (scans/scan-digest.ts: a few
 * items, each finding's issue computed at publication, kept when the issue templates are still those); else one
 * Query of the scan's URI range, projected (a finding's URIs are all of its alert, in their order), rather than one
 * per alert. An `issueId` left '' is computed by withIssue, for the findings the answer lists only.
 */
async function findingsOf(
  scan: ScanRecord,
  templates: Promise<PathTemplates | undefined>,
): Promise<Map<string, Found>> {
  const found = new Map<string, Found>();
  const add = (
    alert: Pick<AlertRecord, 'name' | 'severity' | 'cweId'>,
    pluginId: string,
    u: Pick<CountedUri, 'findingHash' | 'requestMethod' | 'uri' | 'param'>,
    issueId: string,
  ) => {
    if (found.has(u.findingHash)) return;
    found.set(u.findingHash, {
      cweId: alert.cweId,
      finding: {
        findingHash: u.findingHash,
        issueId,
        pluginId,
        name: alert.name,
        severity: alert.severity,
        method: u.requestMethod,
        uri: u.uri,
        param: u.param,
      },
    });
  };
  const digest = await scanDigestOf(scan);
  if (digest) {
    const issuesHold = digest.templates === ((await templates)?.key ?? '');
    for (const row of digest.rows)
      add(digest.plugins.get(row.pluginId)!, row.pluginId, row, issuesHold ? row.issueId : '');
    return found;
  }
  for (const u of await countedUriList(scan, await alertsOfScan(scan))) add(u.alert, u.alert.pluginId, u, '');
  return found;
}

/**
 * The finding with its issue (finding-identity.ts, issueIdOfUri): computed once per finding listed that its digest
 * did not give (a hash of its normalized identity; 20,000 of them took 0.3-0.6 s on the bench's busy machine, so a
 * finding both scans report is not computed twice).
 */
const withIssue =
  (env: ScanRecord, templates: PathTemplates | undefined) =>
  ({ finding: f, cweId }: Found): DiffFinding =>
    f.issueId
      ? f
      : {
          ...f,
          issueId: issueIdOfUri(
            env,
            { cweId, pluginId: f.pluginId },
            { requestMethod: f.method, uri: f.uri, param: f.param },
            templates,
          ),
        };

/** The latest completed scan of the scan's stream started before it (docs/DATA-MODEL.md, Tool streams). */
export async function previousInStream(scan: ScanRecord): Promise<ScanRecord | undefined> {
  const stream = streamOf(scan);
  for await (const candidate of scansOfEnvironmentNewestFirst(scan.environmentId, scan.startedAt)) {
    if (candidate.scanId === scan.scanId || candidate.status !== 'COMPLETED' || candidate.deleting) continue;
    if (candidate.startedAt <= scan.startedAt && streamOf(candidate) === stream) return candidate;
  }
  return undefined;
}

/** BatchGetItem calls in flight for the appeared findings' records (500 findings: 5 calls, all at once). */
const DIFF_RECORD_READS = 8;

const rank = new Map<string, number>(SEVERITIES.map((s, i) => [s, i]));
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Most severe first, then by plugin, URI, method and hash, compared by code point (the same order on every machine
 * and every page, and cheaper than the locale's collation over 10,000 findings); sorted in place, each finding's
 * severity ranked once rather than at each comparison.
 */
function inOrder(found: Found[]): void {
  const ranked = found.map((f) => ({
    f: f.finding,
    found: f,
    rank: rank.get(f.finding.severity) ?? SEVERITIES.length,
  }));
  ranked.sort(
    (a, b) =>
      a.rank - b.rank ||
      byCodePoint(a.f.pluginId, b.f.pluginId) ||
      byCodePoint(a.f.uri, b.f.uri) ||
      byCodePoint(a.f.method, b.f.method) ||
      byCodePoint(a.f.findingHash, b.f.findingHash),
  );
  ranked.forEach((r, i) => (found[i] = r.found));
}

/**
 * A page of a diff's sets: from offset `page.pageToken` through the sets in their order (new, regressed, fixed,
 * unchanged), until `page.pageSize` entries or `maxBytes` of their JSON (at least one entry). Only a set the page
 * reaches is sorted, and only its entries are made (`toEntry`: their issues computed).
 */
export function pageOfSets(
  sets: Record<DiffSet, Found[]>,
  page: DiffPage,
  toEntry: (found: Found) => DiffFinding,
  maxBytes = MAX_DIFF_PAGE_BYTES,
): { listed: Record<DiffSet, DiffFinding[]>; nextPageToken: string } {
  const listed: Record<DiffSet, DiffFinding[]> = { new: [], regressed: [], fixed: [], unchanged: [] };
  let [at, count, bytes, next] = [0, 0, 0, ''];
  for (const set of ['new', 'regressed', 'fixed', 'unchanged'] as const) {
    const found = sets[set];
    const start = Math.max(page.pageToken - at, 0);
    if (!next && start < found.length) inOrder(found);
    for (let i = start; !next && i < found.length; i++) {
      if (count === page.pageSize || bytes >= maxBytes) next = String(at + i);
      else {
        const entry = toEntry(found[i]!);
        listed[set].push(entry);
        bytes += Buffer.byteLength(JSON.stringify(entry));
        count++;
      }
    }
    at += found.length;
  }
  return { listed, nextPageToken: next };
}

/**
 * The diff of two scans' findings: `new` (in `scan` only, never reported before `base`), `regressed` (in `scan`
 * only, reported before `base` started: fixed since, and back), `fixed` (in `base` only) and `unchanged`.
 */
export async function diffOfScans(
  scan: ScanRecord,
  base: ScanRecord | undefined,
  page: DiffPage = { pageSize: MAX_DIFF_PAGE, pageToken: 0 },
): Promise<ScanDiff> {
  const reading = issueTemplatesOf(scan.applicationId);
  const [templates, now, before] = await Promise.all([
    reading,
    findingsOf(scan, reading),
    base ? findingsOf(base, reading) : new Map<string, Found>(),
  ]);
  const appeared = [...now.values()].filter((f) => !before.has(f.finding.findingHash));
  // A finding's record keeps its first sighting: one reported before the base scan started and absent from it
  // regressed.
  const reads = base
    ? batchGet(
        appeared.map((f) => keys.finding(scan.applicationId, scan.environmentId, f.finding.findingHash)),
        ['findingHash', 'firstSeen'],
        false,
        DIFF_RECORD_READS,
      )
    : Promise.resolve([]);
  // While they are read (their calls sent first: the next turn of the event loop): the sets that do not wait on them
  // put in order (pageOfSets, which finds them so).
  await setImmediate();
  const fixed = [...before.values()].filter((f) => !now.has(f.finding.findingHash));
  const unchanged = [...now.values()].filter((f) => before.has(f.finding.findingHash));
  if (page.pageToken < appeared.length + fixed.length) inOrder(fixed);
  if (page.pageToken < appeared.length + fixed.length + unchanged.length) inOrder(unchanged);
  const records = await reads;
  const earlier = new Set(
    records
      .map((item) => fromItem<Pick<FindingRecord, 'findingHash' | 'firstSeen'>>(item)!)
      .filter((f) => base && f.firstSeen < base.startedAt)
      .map((f) => f.findingHash),
  );
  const sets: Record<DiffSet, Found[]> = {
    new: appeared.filter((f) => !earlier.has(f.finding.findingHash)),
    regressed: appeared.filter((f) => earlier.has(f.finding.findingHash)),
    fixed,
    unchanged,
  };
  const { listed, nextPageToken } = pageOfSets(sets, page, withIssue(scan, templates));
  return {
    scanId: scan.scanId,
    againstScanId: base?.scanId ?? '',
    ...listed,
    totals: {
      new: sets.new.length,
      regressed: sets.regressed.length,
      fixed: sets.fixed.length,
      unchanged: sets.unchanged.length,
    },
    nextPageToken,
  };
}

/**
 * GET /api/v1/scan/{scanId}/diff: the scan against `against` (a scan of the same environment: 400 otherwise; 404
 * for a scan the caller cannot see, another organization's included), or the previous completed scan of its stream.
 */
export async function scanDiff(caller: Caller, scanId: string, q: ScanDiffQuery): Promise<ScanDiff> {
  const { scan } = await accessibleScan(caller, scanId);
  let base: ScanRecord | undefined;
  if (q.against !== undefined) {
    base = (await accessibleScan(caller, q.against.toLowerCase())).scan;
    if (base.environmentId !== scan.environmentId)
      throw badRequest(`against: scan ${q.against} is of another environment than scan ${scanId}`);
  } else base = await previousInStream(scan);
  return diffOfScans(scan, base, q);
}
