import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { named } from '../db/items.ts';
import { derivedWrites } from '../db/entity-write.ts';
import type { TransactItem } from '../db/transactions.ts';
import { environmentStreamsRead, getEnvironment } from '../applications/environment-repository.ts';
import { isRiskSeverity } from '../input/severities.ts';
import { detectionsOfIssue, getFinding, getTriageRule } from '../results/finding-repository.ts';
import { type FindingRecord, type TriageRule, isUntriaged, issueCountsChange } from '../results/model.ts';
import { getScan } from '../results/scan-repository.ts';
import { currentStreams } from '../results/streams.ts';
import { isCurrent } from '../trends/model.ts';
import { environmentTrendTotal, retestFixRead } from '../trends/writes.ts';
import { countingScan } from './scan-findings.ts';
import { retestFix, type RetestFixContext } from './entities.ts';
import { openIssuesChanged, type EnvironmentRecord, type OpenIssueCounts } from '../applications/model.ts';

// What a retest's outcome writes on its finding (docs/HOSTED-SCANS.md, Retests), in the transaction that ends the
// retest's run: FIXED fixes it in its stream and marks it verified, STILL_PRESENT keeps it open with the new evidence.

type FindingRef = { organizationId: string; applicationId: string; environmentId: string; findingHash: string };

/**
 * The one write that fixes a finding by a retest (docs/DATA-MODEL.md, Tool streams: "or a retest verifies the
 * fix"): the record's `fixedAt` and `verifiedFixedAt` (it is no longer current: trends count it fixed, the overdue
 * check passes it, a later scan of its stream that reports it again reopens it), and what reads the union of the
 * environment's streams derives from the fix, through the retestFix kind (findings/entities.ts): the untriaged
 * figures of its stream's latest scan when that scan reported it (and so the environment's and its application's
 * health), the environment's open issues, the trends' fix, its open issues' summary. From reads made now: every
 * write is conditioned on what was read (the record's last scan and fix, the streams, the trends' version), so a
 * concurrent scan or triage makes the caller read again. The finding gone: the record's condition fails at
 * `findingGone`.
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
  const [figures, trends] = await Promise.all([figuresRead(env, record, fixed, rule), retestFixRead(finding, trend)]);
  const context: RetestFixContext = { env, rule, ...figures, ...trends, now: at };
  return [findingRetested(finding, lastRetest, at, record), ...derivedWrites(retestFix, record, fixed, context)];
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
 * What the fix's environment and application writes read (RetestFixContext): the scan whose figures count the
 * finding (read only when the finding could move them: of a risk severity, untriaged), the environment's open issues
 * after the fix (openIssuesFix), and, when either moves, the streams as read and the application as read now with
 * its live environments when its figures need them.
 */
async function figuresRead(
  env: EnvironmentRecord,
  record: FindingRecord,
  fixed: FindingRecord,
  rule: TriageRule | undefined,
): Promise<Pick<RetestFixContext, 'countingScan' | 'figures'>> {
  const counts = isRiskSeverity(record.severity) && isUntriaged(rule?.status ?? 'UNKNOWN');
  const [streams, openIssues] = await Promise.all([
    counts ? currentStreams(env) : undefined,
    openIssuesFix(env, record, fixed),
  ]);
  const scan = streams && (await countingScan(streams, record, (scanId) => getScan({ ...env, scanId })));
  // Nothing of the environment moves: no more reads.
  if (!(scan && record.lastScanUris > 0) && !openIssues) return { countingScan: scan?.scanId, figures: undefined };
  const [read, { app, live }] = await Promise.all([
    streams ?? currentStreams(env),
    environmentStreamsRead(env.applicationId),
  ]);
  return { countingScan: scan?.scanId, figures: { streams: read, openIssues, app, live } };
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
    {
      openIssuesHigh: env.openIssuesHigh,
      openIssuesMedium: env.openIssuesMedium,
      openIssuesLow: env.openIssuesLow,
      ...(env.openIssuesInfo !== undefined && { openIssuesInfo: env.openIssuesInfo }),
    },
    [...records, was],
    [...records, is],
  );
  return openIssuesChanged(env, counts) ? counts : undefined;
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
