import { entityKind } from '../db/entity-write.ts';
import type { ScanRecord } from '../results/model.ts';
import type { ApplicationContext } from '../webhooks/model.ts';
import * as scanEntries from './projections/scan-entries.ts';
import * as scanOutbox from './projections/scan-outbox.ts';

// The scan's entity kind with its projections (docs/DATA-MODEL.md, Projections; shared/db/entity-write.ts,
// EntityKind): every write of a scan (scan-write.ts) applies each of them.

/**
 * A scan, in its application (`ApplicationContext`: name and owner, which its events name): its list entries,
 * lookup and configuration use, and its events in the outbox.
 */
export const scan = entityKind<ScanRecord, ApplicationContext>('scan', {
  entries: scanEntries.project,
  outbox: scanOutbox.project,
});
