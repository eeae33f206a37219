import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { named } from '../db/items.ts';
import type { TransactItem } from '../db/transactions.ts';
import { environmentStreamsChanges, getEnvironment } from '../applications/environment-repository.ts';
import { isRiskSeverity } from '../input/severities.ts';
import { detectionsOfIssue, getFinding, getTriageRule } from '../results/finding-repository.ts';
import { type FindingRecord, type TriageRule, isUntriaged } from '../results/model.ts';
import { getScan } from '../results/scan-repository.ts';
import { currentStreams } from '../results/streams.ts';
import { isCurrent } from '../trends/model.ts';
import { environmentTrendTotal, retestFixTrend } from '../trends/writes.ts';
import { countingScan } from './scan-findings.ts';
import { untriagedStreams, type UntriagedPlace } from './projections/triage-figures.ts';
import { issueCountsChange, openIssuesStale } from '../results/issue-summary.ts';
import {
  openIssuesChanged,
  type EnvironmentRecord,
  type EnvironmentStreams,
  type OpenIssueCounts,
} from '../applications/model.ts';

// What a retest's outcome writes on its finding (docs/HOSTED-SCANS.md, Retests), in the transaction that ends the
// retest's run: FIXED fixes it in its stream and marks it verified, STILL_PRESENT keeps it open with the new evidence.

type FindingRef = { organizationId: string; applicationId: string; environmentId: string; findingHash: string };

/**
 * The one write that fixes a finding by a retest (docs/DATA-MODEL.md, Tool streams: "or a retest verifies the
 * fix"), with what reads the union of the environment's streams: the record's `fixedAt` and `verifiedFixedAt` (it
 * is no longer current: trends count it fixed, the overdue check passes it, a later scan of its stream that reports
 * it again reopens it), the untriaged figures of its stream's latest scan when that scan reported it (and so the
 * environment's and its application's health), and the trends' fix. From reads made now: every write is
 * conditioned on what was read (the record's last scan and fix, the streams, the trends' version), so a concurrent
 * scan or triage makes the caller read again. The finding gone: the record's condition fails at `findingGone`.
 */
export async function findingFixedByRetest(
  finding: FindingRef,
  retestId: string,
  at: number,
  evidence: string,
): Promise<TransactItem[]> {
  const trend = await environmentTrendTotal(finding);
  const [record, rule, env] = await Promise.all([
    getFinding(finding, finding.findingHash),
    getTriageRule(finding, finding.findingHash),
    getEnvironment(finding.applicationId, finding.environmentId),
  ]);
  const lastRetest = { retestId, status: 'FIXED' as const, at, evidence };
  if (!record || !env || !isCurrent(record)) return [findingRetested(finding, lastRetest, at, record)];
  const fixed: FindingRecord = { ...record, fixedAt: at };
  const [streams, openIssues] = await Promise.all([untriagedFix(env, record, rule), openIssuesFix(env, record, fixed)]);
  return [
    findingRetested(finding, lastRetest, at, record),
    ...(streams || openIssues
      ? await environmentStreamsChanges([{ env, streams: streams ?? (await currentStreams(env)), openIssues }])
      : []),
    ...(await retestFixTrend(finding, trend, record, fixed, rule)),
    // Whether its issue is still open depends on its other findings: the report reads them until the next publication.
    openIssuesStale(finding),
  ];
}

/** A retest that saw the finding again: it stays open (no `verifiedFixedAt`), with what the engine saw this time. */
export function findingStillPresent(
  finding: FindingRef,
  retestId: string,
  at: number,
  evidence: string,
): TransactItem[] {
  return [findingRetested(finding, { retestId, status: 'STILL_PRESENT', at, evidence }, undefined, undefined)];
}

/**
 * The environment's open issues by severity after the fix (undefined: they do not change, or it is not counted
 * yet): its issue's findings read (docs/ISSUES.md, detections), before and after (issueCountsChange). The
 * environment's write is conditioned on its counts as read: a concurrent publication makes the caller read again.
 */
async function openIssuesFix(
  env: EnvironmentRecord,
  was: FindingRecord,
  is: FindingRecord,
): Promise<OpenIssueCounts | undefined> {
  if (env.openIssuesHigh === undefined || env.openIssuesMedium === undefined || env.openIssuesLow === undefined)
    return undefined;
  const others = was.issueId
    ? (await detectionsOfIssue(env, was.issueId)).filter((d) => d.findingHash !== was.findingHash)
    : [];
  const records = (await Promise.all(others.map((d) => getFinding(env, d.findingHash)))).filter((f) => f !== undefined);
  const counts = issueCountsChange(
    { openIssuesHigh: env.openIssuesHigh, openIssuesMedium: env.openIssuesMedium, openIssuesLow: env.openIssuesLow },
    [...records, was],
    [...records, is],
  );
  return openIssuesChanged(env, counts) ? counts : undefined;
}

/**
 * The finding leaves the untriaged figures of its stream's latest scan, when that scan is its last one (it reported
 * it) and counted it untriaged: the projection of triage (triage-figures.ts, untriagedStreams) from the finding in
 * that scan's figures to in none. Its environment's streams after it (undefined: they do not change).
 */
async function untriagedFix(
  env: EnvironmentRecord,
  record: FindingRecord,
  rule: TriageRule | undefined,
): Promise<EnvironmentStreams | undefined> {
  // Nothing it could move: no reads.
  if (!isRiskSeverity(record.severity) || !isUntriaged(rule?.status ?? 'UNKNOWN')) return undefined;
  const streams = await currentStreams(env);
  const scan = await countingScan(streams, record, (scanId) => getScan({ ...env, scanId }));
  const place = (scanId: string | undefined): UntriagedPlace => ({
    scanId,
    severity: record.severity,
    lastScanUris: record.lastScanUris,
    status: rule?.status ?? 'UNKNOWN',
  });
  const after = untriagedStreams(
    new Map([[record.findingHash, place(scan?.scanId)]]),
    new Map([[record.findingHash, place(undefined)]]),
    streams,
  );
  return after;
}

/**
 * The finding's retest fields: `lastRetest`, and `verifiedFixedAt` with `fixedAt` for a fix (`verifiedFixedAt`
 * alone for one already fixed); conditioned on the record as read (`read`: its last scan, its fix).
 */
function findingRetested(
  finding: FindingRef,
  lastRetest: NonNullable<FindingRecord['lastRetest']>,
  verifiedFixedAt: number | undefined,
  read: FindingRecord | undefined,
): TransactItem {
  const fixes = verifiedFixedAt !== undefined && read !== undefined && isCurrent(read);
  const update =
    verifiedFixedAt === undefined
      ? 'SET lastRetest = :retest REMOVE verifiedFixedAt'
      : `SET lastRetest = :retest, verifiedFixedAt = :at${fixes ? ', fixedAt = :at' : ''}`;
  return named('findingGone', {
    Update: {
      TableName: config.tableName,
      Key: keys.finding(finding.applicationId, finding.environmentId, finding.findingHash),
      UpdateExpression: update,
      ConditionExpression: read
        ? `attribute_exists(pk) AND lastScanId = :scan AND ${isCurrent(read) ? 'attribute_not_exists(fixedAt)' : 'fixedAt = :fixed'}`
        : 'attribute_exists(pk)',
      ExpressionAttributeValues: {
        ':retest': lastRetest,
        ...(verifiedFixedAt === undefined ? {} : { ':at': verifiedFixedAt }),
        ...(read && { ':scan': read.lastScanId }),
        ...(read && !isCurrent(read) && { ':fixed': read.fixedAt }),
      },
    },
  });
}
