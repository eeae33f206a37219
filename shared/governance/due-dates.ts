import { keys } from '../db/keys.ts';
import { batchGet, queryItems } from '../db/query.ts';
import { fromItem } from '../db/items.ts';
import type { FindingRecord, TriageRule } from '../results/model.ts';
import { DAY_MS, slaClock, type SlaClock, severityDays } from './model.ts';
import { slaDaysResolver } from './sla-days.ts';

// Due dates of some of a scan's findings (docs/GOVERNANCE.md, Due dates), for the views that list them.

interface ScanOfFindings {
  applicationId: string;
  environmentId: string;
  scanId: string;
  startedAt: number;
}

/**
 * From this many findings on, their first sightings come from one Query of the environment's finding records, which
 * counts the bytes it reads, instead of a BatchGetItem, which counts every record as a whole 4 KB: a scan's few
 * hundred findings cost a tenth of the read units.
 */
export const QUERY_FROM_FINDINGS = 32;
/** The Query reads at most this many records per finding asked for (fixed findings keep their records too). */
const RECORDS_READ_PER_FINDING = 2;

/**
 * Each finding's first sighting: its finding record's, or the scan's start when that is earlier (or unknown).
 * Cost: bounded by the findings asked for, whatever the environment's history (what the Query leaves unread is read
 * by key).
 */
export async function firstSightings(scan: ScanOfFindings, hashes: Iterable<string>): Promise<Map<string, number>> {
  const wanted = new Set(hashes);
  const firstSeen = new Map<string, number>();
  const take = (item: Record<string, unknown>) => {
    const f = fromItem<Pick<FindingRecord, 'findingHash' | 'firstSeen'>>(item)!;
    if (wanted.has(f.findingHash)) firstSeen.set(f.findingHash, Math.min(f.firstSeen, scan.startedAt));
  };
  let readAll = false;
  if (wanted.size >= QUERY_FROM_FINDINGS) {
    const range = keys.findingsOfEnvironment(scan.applicationId, scan.environmentId);
    let budget = wanted.size * RECORDS_READ_PER_FINDING;
    for await (const item of queryItems({
      partition: range.pk,
      skPrefix: range.skPrefix,
      attributes: ['findingHash', 'firstSeen'],
      pageLimit: Math.min(1000, budget),
    })) {
      take(item);
      if (firstSeen.size === wanted.size) break;
      if (--budget <= 0) break;
    }
    readAll = budget > 0; // the whole environment was read: a finding still missing has no record
  }
  const unread = readAll ? [] : [...wanted].filter((hash) => !firstSeen.has(hash));
  if (unread.length)
    for (const item of await batchGet(
      unread.map((hash) => keys.finding(scan.applicationId, scan.environmentId, hash)),
      ['findingHash', 'firstSeen'],
    ))
      take(item);
  return firstSeen;
}

/**
 * The SLA clocks, as of `now`, of findings of `scan` (hash and severity), with their environment's triage rules, each
 * with its `start` (dueAt less its days: clockStart). Cost: the findings' first sightings (firstSightings) and one
 * BatchGetItem of the SLA policy and its overrides.
 */
export async function slaClocks(
  orgId: string,
  scan: ScanOfFindings,
  findings: { findingHash: string; severity: string }[],
  rules: Map<string, Pick<TriageRule, 'history'>>,
  now: number,
): Promise<Map<string, SlaClock & { start?: number }>> {
  const [firstSeen, slaDaysOf] = await Promise.all([
    firstSightings(
      scan,
      findings.map((f) => f.findingHash),
    ),
    slaDaysResolver(orgId, [scan]),
  ]);
  const days = slaDaysOf(scan);
  return new Map(
    findings.map((f) => {
      const severity = severityDays(days, f.severity);
      const history = rules.get(f.findingHash)?.history ?? [];
      const clock = slaClock(firstSeen.get(f.findingHash) ?? scan.startedAt, severity, history, now);
      return [
        f.findingHash,
        { ...clock, ...(clock.dueAt !== undefined && { start: clock.dueAt - severity! * DAY_MS }) },
      ];
    }),
  );
}
