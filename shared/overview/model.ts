import { type ListEntry } from '../applications/model.ts';
import { DAY_MS } from '../governance/model.ts';

// The overview's model (docs/GOVERNANCE.md, The overview): how much each part reads and lists, the coverage facts.
// Records, types and pure rules only (docs/LAYOUT.md, Layers): it imports the kernel and other resources' model.ts,
// never a repository.

export const COVERAGE_LISTED = 20;

/** The coverage gaps' figures, and the environments listed (at most COVERAGE_LISTED, never scanned, then oldest). */
export interface CoverageFacts {
  /** False: the walk stopped at its bound, and the counts are lower bounds. */
  complete: boolean;
  neverScanned: number;
  notScannedIn7Days: number;
  notScannedIn30Days: number;
  listed: ListEntry[];
}

/**
 * Entries read at most for the riskiest applications: of their ranked entries (a member whose team rules hide
 * applications skips those), or, before npm run migrate gives an organization its entries, of the findings index.
 */
export const RISK_WALK_ENTRIES = 200;

export const RISKIEST_LISTED = 10;

/** Environments (most untriaged first) whose latest completed scan is searched for overdue findings. */
export const OVERDUE_ENVIRONMENTS = 10;

export const OVERDUE_LISTED = 20;

/** Entries of the scan-date index (never scanned, then oldest scan, first) read at most, for the coverage gaps. */
export const COVERAGE_WALK_ENTRIES = 500;

/**
 * How far the overview's walks read: the request's bounds (above), or none for a full recomputation (`recompute`:
 * the riskiest applications recomputed from the environments, riskiestRecomputed, not read from their entries).
 */
export interface OverviewWalks {
  riskEntries: number;
  coverageEntries: number;
  recompute?: boolean;
}

// ---- The overdue digest of an environment (docs/GOVERNANCE.md, The overview; stored by overdue-digests.ts)
//
// A due date is a clock's start (the first sighting plus the time the clock stood still: governance/model.ts
// clockStart) plus its severity's days. The start does not depend on the SLA policy, so a digest of the starts
// answers under whatever policy and overrides are in force when read, and as of any moment.

export const DUE_SEVERITIES = ['High', 'Medium', 'Low'] as const;
export type DueSeverity = (typeof DUE_SEVERITIES)[number];

/** A finding of one of the environment's current scans that has a due date (scans/scan-sla.ts overdueOfScan `due`). */
export interface DueDetection {
  findingHash: string;
  issueId: string;
  pluginId: string;
  severity: string;
  requestMethod: string;
  url: string;
  status: string;
  scanId: string;
  /** Its clock's start (ms). */
  start: number;
}

/** What the overview lists of a finding, besides its due date. */
export type DigestDetail = Pick<
  DueDetection,
  'findingHash' | 'pluginId' | 'requestMethod' | 'url' | 'status' | 'scanId'
>;

/**
 * An issue's earliest detection of one severity: the one that stands for it under any policy (the earliest start,
 * then the smallest hash, then the first read: `seq`, as issueRepresentatives keeps the first of equals).
 */
export interface DigestHead {
  /** The issue's number in the digest (heads of one issue share it). */
  issue: number;
  severity: DueSeverity;
  start: number;
  findingHash: string;
  seq: number;
}

/**
 * An environment's overdue digest. Issues with heads of several severities and the issues whose head is among the
 * OVERDUE_LISTED earliest of its severity keep their heads (the latter with their details: only they can be listed);
 * every other issue is one start in its severity's sorted list.
 */
export interface OverdueDigest {
  /** Issues with a due date. */
  issues: number;
  starts: Record<DueSeverity, number[]>;
  heads: DigestHead[];
  /** Aligned with `heads`: the details of a listed candidate's heads, null for the others. */
  details: (DigestDetail | null)[];
}

const headOrder = (a: Pick<DigestHead, 'start' | 'findingHash' | 'seq'>, b: typeof a) =>
  a.start - b.start || a.findingHash.localeCompare(b.findingHash) || a.seq - b.seq;

const isDueSeverity = (severity: string): severity is DueSeverity =>
  (DUE_SEVERITIES as readonly string[]).includes(severity);

/** The digest of an environment's due detections, in the order overdueOfEnvironments reads them (scan by scan). */
export function overdueDigestOf(detections: readonly DueDetection[]): OverdueDigest {
  const byIssue = new Map<string, Map<DueSeverity, DigestHead & { detection: DueDetection }>>();
  detections.forEach((detection, seq) => {
    if (!isDueSeverity(detection.severity)) return;
    const heads = byIssue.get(detection.issueId) ?? new Map();
    byIssue.set(detection.issueId, heads);
    const head = { issue: 0, severity: detection.severity, start: detection.start, findingHash: detection.findingHash };
    const held = heads.get(detection.severity);
    if (!held || headOrder({ ...head, seq }, held) < 0) heads.set(detection.severity, { ...head, seq, detection });
  });
  const issues = [...byIssue.values()];
  const listed = new Set<(typeof issues)[number]>();
  for (const severity of DUE_SEVERITIES) {
    const ofSeverity = issues
      .filter((heads) => heads.has(severity))
      .sort((a, b) => headOrder(a.get(severity)!, b.get(severity)!));
    for (const heads of ofSeverity.slice(0, OVERDUE_LISTED)) listed.add(heads);
  }
  const digest: OverdueDigest = {
    issues: issues.length,
    starts: { High: [], Medium: [], Low: [] },
    heads: [],
    details: [],
  };
  let n = 0;
  for (const heads of issues) {
    if (!listed.has(heads) && heads.size === 1) {
      const [head] = heads.values();
      digest.starts[head.severity].push(head.start);
      continue;
    }
    for (const { detection, ...head } of heads.values()) {
      digest.heads.push({ ...head, issue: n });
      const { findingHash, pluginId, requestMethod, url, status, scanId } = detection;
      digest.details.push(listed.has(heads) ? { findingHash, pluginId, requestMethod, url, status, scanId } : null);
    }
    n++;
  }
  for (const severity of DUE_SEVERITIES) digest.starts[severity].sort((a, b) => a - b);
  return digest;
}

/** An issue of the digest that is overdue, by the head that stands for it (`head`: its index in the digest). */
export interface DigestOverdue {
  head: number;
  severity: DueSeverity;
  findingHash: string;
  dueDate: number;
  daysLeft: number;
}

/** How many of the sorted `starts` are below `bound`. */
function countBelow(starts: readonly number[], bound: number) {
  let [low, high] = [0, starts.length];
  while (low < high) {
    const mid = (low + high) >> 1;
    if (starts[mid] < bound) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The overdue figures of a digest under `days` (the policy and overrides in force for its environment) at `now`: the
 * issues with a due date, the overdue ones (`count`) by the severity of the detection that stands for each, and those
 * of its issues with heads that are overdue (every issue the overview can list among them), most overdue first.
 */
export function overdueOfDigest(
  digest: Pick<OverdueDigest, 'issues' | 'starts' | 'heads'>,
  days: Record<DueSeverity, number>,
  now: number,
) {
  const bySeverity = { High: 0, Medium: 0, Low: 0 };
  // Overdue: now > start + days, i.e. start < now - days (integers: exact).
  for (const severity of DUE_SEVERITIES)
    bySeverity[severity] = countBelow(digest.starts[severity], now - days[severity] * DAY_MS);
  const standing = new Map<number, DigestOverdue & { seq: number }>();
  digest.heads.forEach((head, index) => {
    const dueDate = head.start + days[head.severity] * DAY_MS;
    const held = standing.get(head.issue);
    const order =
      held && (dueDate - held.dueDate || head.findingHash.localeCompare(held.findingHash) || head.seq - held.seq);
    if (held && order! >= 0) return;
    const daysLeft = Math.floor((dueDate - now) / DAY_MS);
    standing.set(head.issue, {
      head: index,
      severity: head.severity,
      findingHash: head.findingHash,
      dueDate,
      daysLeft,
      seq: head.seq,
    });
  });
  const overdue: DigestOverdue[] = [];
  for (const { seq: _seq, ...issue } of standing.values()) {
    if (!(now > issue.dueDate)) continue;
    bySeverity[issue.severity]++;
    overdue.push(issue);
  }
  overdue.sort((a, b) => a.dueDate - b.dueDate || a.findingHash.localeCompare(b.findingHash));
  const count = bySeverity.High + bySeverity.Medium + bySeverity.Low;
  return { findingsWithDueDate: digest.issues, bySeverity, count, overdue };
}

// The digest as stored: numbers as unsigned LEB128 varints (starts sorted, as their differences: a scan's findings
// share their first sighting, so most take one byte), a hex hash as its 32 bytes.

function pushVarint(out: number[], value: number) {
  let n = value;
  while (n >= 128) {
    out.push((n % 128) + 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
}

function readVarint(bytes: Uint8Array, at: { i: number }) {
  let [n, scale] = [0, 1];
  for (;;) {
    const byte = bytes[at.i++];
    n += (byte % 128) * scale;
    if (byte < 128) return n;
    scale *= 128;
  }
}

/** Sorted non-negative integers (ms), as the differences of each from the one before. */
export function encodeStarts(starts: readonly number[]): Uint8Array {
  const out: number[] = [];
  let previous = 0;
  for (const start of starts) {
    pushVarint(out, start - previous);
    previous = start;
  }
  return Uint8Array.from(out);
}

export function decodeStarts(bytes: Uint8Array | undefined): number[] {
  const starts: number[] = [];
  const at = { i: 0 };
  let previous = 0;
  while (bytes && at.i < bytes.length) starts.push((previous += readVarint(bytes, at)));
  return starts;
}

const HEX_HASH = /^[0-9a-f]{64}$/;

/** Heads: issue, severity, start, seq, then the hash (0 and 32 bytes for a SHA-256 in hex, else its length + 1 and text). */
export function encodeHeads(heads: readonly DigestHead[]): Uint8Array {
  const out: number[] = [];
  for (const head of heads) {
    pushVarint(out, head.issue);
    out.push(DUE_SEVERITIES.indexOf(head.severity));
    pushVarint(out, head.start);
    pushVarint(out, head.seq);
    const hex = HEX_HASH.test(head.findingHash);
    const bytes = hex ? Buffer.from(head.findingHash, 'hex') : Buffer.from(head.findingHash, 'utf8');
    pushVarint(out, hex ? 0 : bytes.length + 1);
    out.push(...bytes);
  }
  return Uint8Array.from(out);
}

export function decodeHeads(bytes: Uint8Array | undefined): DigestHead[] {
  const heads: DigestHead[] = [];
  const at = { i: 0 };
  while (bytes && at.i < bytes.length) {
    const issue = readVarint(bytes, at);
    const severity = DUE_SEVERITIES[bytes[at.i++]];
    const start = readVarint(bytes, at);
    const seq = readVarint(bytes, at);
    const marker = readVarint(bytes, at);
    const length = marker ? marker - 1 : 32;
    const raw = Buffer.from(bytes.subarray(at.i, at.i + length));
    at.i += length;
    heads.push({ issue, severity, start, seq, findingHash: raw.toString(marker ? 'utf8' : 'hex') });
  }
  return heads;
}
