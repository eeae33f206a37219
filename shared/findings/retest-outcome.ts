import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { named } from '../db/items.ts';
import type { TransactItem } from '../db/transactions.ts';
import type { FindingRecord } from '../results/model.ts';

// What a retest's outcome writes on its finding (docs/HOSTED-SCANS.md, Retests), in the transaction that ends the
// retest's run: FIXED marks it fixed and verified, STILL_PRESENT keeps it open with the new evidence.

type FindingRef = { applicationId: string; environmentId: string; findingHash: string };

/**
 * The one write that marks a finding fixed by a retest: `verifiedFixedAt`, and the retest as its last. Its
 * `fixedAt` (the trends' fix, docs/GOVERNANCE.md, Trends) stays the environment's next completed scan's to decide.
 */
export function findingFixedByRetest(finding: FindingRef, retestId: string, at: number, evidence: string) {
  return findingRetested(finding, { retestId, status: 'FIXED', at, evidence }, at);
}

/** A retest that saw the finding again: it stays open (no `verifiedFixedAt`), with what the engine saw this time. */
export function findingStillPresent(finding: FindingRef, retestId: string, at: number, evidence: string) {
  return findingRetested(finding, { retestId, status: 'STILL_PRESENT', at, evidence }, undefined);
}

function findingRetested(
  finding: FindingRef,
  lastRetest: NonNullable<FindingRecord['lastRetest']>,
  verifiedFixedAt: number | undefined,
): TransactItem {
  return named('findingGone', {
    Update: {
      TableName: config.tableName,
      Key: keys.finding(finding.applicationId, finding.environmentId, finding.findingHash),
      UpdateExpression:
        verifiedFixedAt === undefined
          ? 'SET lastRetest = :retest REMOVE verifiedFixedAt'
          : 'SET lastRetest = :retest, verifiedFixedAt = :at',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: {
        ':retest': lastRetest,
        ...(verifiedFixedAt === undefined ? {} : { ':at': verifiedFixedAt }),
      },
    },
  });
}
