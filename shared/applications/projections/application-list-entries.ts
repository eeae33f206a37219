import { keys } from '../../db/keys.ts';
import { attributeChange, type Projected } from '../../db/entity-write.ts';
import type { ApplicationRecord } from '../model.ts';

// The application's list entries (docs/DATA-MODEL.md, Projections): while live, its entries in its bucket's orders
// (gsi1 status, gsi4 name, gsi6 id: keys.applicationListEntries) and, once scanned, its gsi5 entry by newest scan
// time (health.ts); once its cascade delete has started, the gsi5 deleting entry alone.

/** The attributes this projection keeps on the application's item. */
export const LIST_ENTRY_ATTRIBUTES = [
  'gsi1pk',
  'gsi1sk',
  'gsi4pk',
  'gsi4sk',
  'gsi5pk',
  'gsi5sk',
  'gsi6pk',
  'gsi6sk',
] as const;

/**
 * The bucket entries of a live application after `changes`. Reads the record's fields by name (no spread): the
 * index backfill (shared/db/backfill.ts) conditions its write on exactly the fields read.
 */
export const bucketEntryKeys = (
  app: ApplicationRecord,
  changes: Partial<Pick<ApplicationRecord, 'name' | 'teamId' | 'applicationStatus'>> = {},
) => {
  const teamId = 'teamId' in changes ? changes.teamId : app.teamId;
  return keys.applicationListEntries(
    app.organizationId,
    app.applicationType,
    teamId,
    changes.name ?? app.name,
    app.applicationId,
    changes.applicationStatus ?? app.applicationStatus,
  );
};

/** The gsi5 entry of a live application by its newest scan time (health.ts), when it has one. */
const scanTimeEntry = (app: ApplicationRecord) => {
  const scannedAt = app.health?.scannedAt ?? 0;
  return scannedAt > 0 ? keys.applicationByScanTime(app.organizationId, app.applicationId, scannedAt) : {};
};

/** The list entries of an application in its state `app`. */
export const entries = (app: ApplicationRecord | undefined): Record<string, string> => {
  if (!app) return {};
  if (app.deleting) return keys.deletingApplication(app.organizationId, app.applicationId);
  return { ...bucketEntryKeys(app), ...scanTimeEntry(app) };
};

/** The change of the application's list entries from `before` to `after`. */
export const project = (before: ApplicationRecord | undefined, after: ApplicationRecord | undefined): Projected =>
  attributeChange(entries(before), entries(after), after && !after.deleting ? undefined : LIST_ENTRY_ATTRIBUTES);
