import { keys } from '../db/keys.ts';
import { batchGet } from '../db/query.ts';
import { fromItem } from '../db/items.ts';
import type { FindingRecord, TriageRule } from '../findings/repository.ts';
import { slaClock, type SlaClock } from './clock.ts';
import { severityDays } from './policy.ts';
import { slaDaysResolver } from './sla-days.ts';

// Due dates of some of a scan's findings (docs/GOVERNANCE.md, Due dates), for the views that list them.

interface ScanOfFindings {
  applicationId: string;
  environmentId: string;
  scanId: string;
  startedAt: number;
}

/** Each finding's first sighting: its finding record's, or the scan's start when that is earlier (or unknown). */
export async function firstSightings(scan: ScanOfFindings, hashes: Iterable<string>): Promise<Map<string, number>> {
  const records = await batchGet(
    [...new Set(hashes)].map((hash) => keys.finding(scan.applicationId, scan.environmentId, hash)),
    ['findingHash', 'firstSeen'],
  );
  const firstSeen = new Map(
    records
      .map((r) => fromItem<Pick<FindingRecord, 'findingHash' | 'firstSeen'>>(r)!)
      .map((f) => [f.findingHash, Math.min(f.firstSeen, scan.startedAt)]),
  );
  return firstSeen;
}

/**
 * The SLA clocks, as of `now`, of findings of `scan` (hash and severity), with their environment's triage rules.
 * Cost: one BatchGetItem of the findings' first sightings and one of the SLA policy and its overrides.
 */
export async function slaClocks(
  orgId: string,
  scan: ScanOfFindings,
  findings: { findingHash: string; severity: string }[],
  rules: Map<string, Pick<TriageRule, 'history'>>,
  now: number,
): Promise<Map<string, SlaClock>> {
  const [firstSeen, slaDaysOf] = await Promise.all([
    firstSightings(
      scan,
      findings.map((f) => f.findingHash),
    ),
    slaDaysResolver(orgId, [scan]),
  ]);
  const days = slaDaysOf(scan);
  return new Map(
    findings.map((f) => [
      f.findingHash,
      slaClock(
        firstSeen.get(f.findingHash) ?? scan.startedAt,
        severityDays(days, f.severity),
        rules.get(f.findingHash)?.history ?? [],
        now,
      ),
    ]),
  );
}
