import { config } from '../config.ts';
import { notFound } from '../errors.ts';
import { keys } from '../db/keys.ts';
import { getItem } from '../db/query.ts';
import type { TransactItem } from '../db/transactions.ts';
import type { Caller } from '../context/caller.ts';
import { accessibleScan } from './scans.ts';
import type { ScanRecord } from '../results/model.ts';

// A hosted scan's coverage record (docs/HOSTED-SCANS.md, Coverage): what the engine crawled and sent through the
// agent, module by module, and the run's verdict. The agent gathers it and sends it with the run's end
// (endScanRun), which stores it in the transaction that completes the scan; getScanCoverage answers it.

export interface ScanCoverage {
  pages: number;
  forms: number;
  requests: number;
  authenticatedRequests: number;
  relogins: number;
  modules: { name: string; requests: number; findings: number; cutAtTimeLimit: boolean }[];
  durationSeconds: number;
  deadlineSeconds: number;
  verdict: 'COMPLETE' | 'PARTIAL' | 'AUTH_DEGRADED' | 'LOW_COVERAGE';
  reasons: string[];
  /** The authorization phase's figures (docs/SCANNER-AUTH.md, Authorization testing), when it ran. */
  authorization?: {
    candidates: number;
    users: { name: string; replayed: number }[];
    unauthenticatedReplayed: number;
    skippedUnsafe: number;
    excluded: number;
    findings: number;
    cutBy: '' | 'REQUEST_BUDGET' | 'DEADLINE';
    durationSeconds: number;
  };
}

/** The coverage record's write, in the transaction that completes `scan`. */
export const coverageWrite = (
  scan: Pick<ScanRecord, 'applicationId' | 'environmentId' | 'scanId'>,
  coverage: ScanCoverage,
): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: {
      ...keys.scanCoverage(scan.applicationId, scan.environmentId, scan.scanId),
      entity: 'scanCoverage',
      coverage,
    },
  },
});

/** The scan's coverage record, or undefined for a scan without one (imported and CLI scans). */
export async function coverageOfScan(scan: Pick<ScanRecord, 'applicationId' | 'environmentId' | 'scanId'>) {
  const item = await getItem(keys.scanCoverage(scan.applicationId, scan.environmentId, scan.scanId));
  return item ? (item.coverage as ScanCoverage) : undefined;
}

/** GET /api/v1/scan/{scanId}/coverage */
export async function scanCoverage(caller: Caller, scanId: string) {
  const { scan } = await accessibleScan(caller, scanId);
  const coverage = await coverageOfScan(scan);
  if (!coverage)
    throw notFound(
      `scan ${scanId} has no coverage record: hosted scans (startScan) have one once their run ended; imported and CLI scans have none`,
    );
  return { scanId, ...coverage };
}
