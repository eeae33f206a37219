import { keys } from '../../db/keys.ts';
import { attributeChange, type Projected } from '../../db/entity-write.ts';
import { type EnvironmentRecord, type LastScan, NO_SCAN_STATUS } from '../model.ts';

// The environment's list entries (docs/DATA-MODEL.md, Projections): one index key pair per list order (gsi1 to
// gsi6, keys.environmentIndexes) on its own item while it is live, none once its delete has started.

/** The attributes this projection keeps on the environment's item. */
export const LIST_ENTRY_ATTRIBUTES = [
  'gsi1pk',
  'gsi1sk',
  'gsi2pk',
  'gsi2sk',
  'gsi3pk',
  'gsi3sk',
  'gsi4pk',
  'gsi4sk',
  'gsi5pk',
  'gsi5sk',
  'gsi6pk',
  'gsi6sk',
] as const;

/**
 * The list entries of a live environment named `name` whose last scan is `scan`. Reads the fields by name (no
 * spread): the index backfill (shared/db/backfill.ts) conditions its write on exactly the fields read.
 */
export const listEntryKeys = (env: EnvironmentRecord, name = env.name, scan: Partial<LastScan> = env) =>
  keys.environmentIndexes(env.organizationId, env.environmentId, name, {
    lastScanTimestamp: scan.lastScanTimestamp,
    lastScanStatus: scan.lastScanStatus ?? NO_SCAN_STATUS,
    lastScanDuration: scan.lastScanDuration,
    lastScanTotalUntriaged: scan.lastScanTotalUntriaged,
  });

/** The list entries of an environment in its state `env` (none unless live). */
export const entries = (env: EnvironmentRecord | undefined): Record<string, string> =>
  env && !env.deleting ? listEntryKeys(env) : {};

/** The change of the environment's list entries from `before` to `after`. */
export const project = (before: EnvironmentRecord | undefined, after: EnvironmentRecord | undefined): Projected =>
  attributeChange(entries(before), entries(after), after && !after.deleting ? undefined : LIST_ENTRY_ATTRIBUTES);
