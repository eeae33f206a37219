import { keys } from '../db/keys.ts';
import { entityWrite, type EntityChange } from '../db/entity-write.ts';
import { scan as scanKind } from './entities.ts';
import type { TransactItem } from '../db/transactions.ts';
import type { ApplicationContext } from '../webhooks/model.ts';
import type { ScanRecord } from '../results/model.ts';

// A scan's writes with their projections (docs/DATA-MODEL.md, Projections): its list entries, lookup and
// configuration use, and its events in the outbox, in one transaction with the caller's audit entry.

function scanWrite(
  before: ScanRecord | undefined,
  after: ScanRecord,
  app: ApplicationContext,
  condition?: EntityChange<ScanRecord>['condition'],
): TransactItem[] {
  return entityWrite(
    scanKind,
    {
      key: keys.scanRecord(after.applicationId, after.environmentId, after.scanId),
      before,
      after,
      name: 'scanChanged',
      condition,
    },
    app,
  );
}

/** A scan's start (or an import's, started and completed at once): it fails at `scanChanged` if the scan exists. */
export const scanStart = (scan: ScanRecord, app: ApplicationContext): TransactItem[] => scanWrite(undefined, scan, app);

/**
 * A scan's end (POST /api/v1/scan/{scanId}/complete) from the record as read: its status, duration, URL count and
 * statistics. It fails at `scanChanged` unless the scan is still STARTED with the URIs read counted, not being
 * deleted, and no failed completion started putting the environment's records back since the read
 * (scanFindingsRestoreStart).
 */
export function scanEnd(
  scan: ScanRecord,
  end: Pick<ScanRecord, 'status' | 'completedAt' | 'durationSeconds' | 'urlCount' | 'stats'>,
  app: ApplicationContext,
): TransactItem[] {
  const restores =
    scan.findingsRestores === undefined ? 'attribute_not_exists(findingsRestores)' : 'findingsRestores = :restores';
  return scanWrite(scan, { ...scan, ...end }, app, {
    expression: `#status = :started AND reportedUris = :reported AND attribute_not_exists(deleting) AND ${restores}`,
    names: { '#status': 'status' },
    values: {
      ':started': 'STARTED',
      ':reported': scan.reportedUris,
      ...(scan.findingsRestores === undefined ? {} : { ':restores': scan.findingsRestores }),
    },
  });
}

/** Starts a scan's delete: it leaves the lists and its configuration use ends; deleteScanData then removes it. */
export const scanDeleteStart = (scan: ScanRecord, app: ApplicationContext): TransactItem[] =>
  scanWrite(scan, { ...scan, deleting: true }, app, { expression: 'attribute_not_exists(deleting)' });
