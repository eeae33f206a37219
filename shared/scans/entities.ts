import { entityKind } from '../db/entity-write.ts';
import type { ScanRecord } from '../results/model.ts';
import type { ApplicationContext } from '../webhooks/model.ts';
import { overdueDigestMove } from '../applications/model.ts';
import * as scanEntries from './projections/scan-entries.ts';
import * as scanOutbox from './projections/scan-outbox.ts';

// The scan's entity kind with its projections (docs/DATA-MODEL.md, Projections; shared/db/entity-write.ts,
// EntityKind): every write of a scan (scan-write.ts) applies each of them.

/**
 * A scan, in its application (`ApplicationContext`: name and owner, which its events name): its list entries,
 * lookup and configuration use, its events in the outbox, and its environment's overdue digest version when it
 * becomes one of the environment's current scans or stops being one.
 */
export const scan = entityKind<ScanRecord, ApplicationContext>('scan', {
  entries: scanEntries.project,
  outbox: scanOutbox.project,
  overdueDigest: (before, after) =>
    countsAsCurrent(before) !== countsAsCurrent(after) ? overdueDigestMove((after ?? before)!) : {},
});

/** Whether a scan can be one of its environment's current scans (findings/report.ts currentScansOf reads these). */
const countsAsCurrent = (scan: ScanRecord | undefined) => scan?.status === 'COMPLETED' && !scan.deleting;
