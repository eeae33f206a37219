import { keys } from '../../db/keys.ts';
import { config } from '../../config.ts';
import { attributeChange, type Projected } from '../../db/entity-write.ts';
import { putNewItem, type TransactItem } from '../../db/transactions.ts';
import type { ScanRecord } from '../../results/model.ts';

// A scan's list entries, its lookup by id and its configuration's use (docs/DATA-MODEL.md, Scans and Projections):
// while live, gsi1 (its environment's scans) and gsi3 (its organization's) by start time; the lookup item
// (`SCAN#<scanId>`), named by the record's `ownedKey` so its delete removes it, is put when the scan starts; its
// configuration's use counts it from its start until its delete starts.

const ENTRY_ATTRIBUTES = ['gsi1pk', 'gsi1sk', 'gsi3pk', 'gsi3sk'];

/** The list keys of a live scan (none once its delete started). */
function entries(scan: ScanRecord | undefined): Record<string, unknown> {
  if (!scan || scan.deleting) return {};
  const {
    pk: _pk,
    sk: _sk,
    ...index
  } = keys.scan(scan.organizationId, scan.applicationId, scan.environmentId, scan.scanId, scan.startedAt);
  return index;
}

/** One more (or one fewer) scan of the configuration in its environment. */
function configUseChange(scan: ScanRecord, delta: number): TransactItem {
  return {
    Update: {
      TableName: config.tableName,
      Key: keys.scanConfigUse(scan.applicationId, scan.environmentId, scan.configHash),
      UpdateExpression: 'SET entity = :entity, configHash = :hash ADD scans :delta',
      ExpressionAttributeValues: { ':entity': 'scanConfigUse', ':hash': scan.configHash, ':delta': delta },
    },
  };
}

const live = (scan: ScanRecord | undefined) => !!scan && !scan.deleting;

/** The change from `before` to `after`: the entries and the lookup when it starts, the entries' removal when its delete starts. */
export function project(before: ScanRecord | undefined, after: ScanRecord | undefined): Projected {
  const moved = attributeChange(entries(before), entries(after), ENTRY_ATTRIBUTES);
  const items: TransactItem[] = [];
  let set = moved.set;
  if (!before && after) {
    set = { ...set, ownedKey: keys.scanLocation(after.scanId) };
    items.push(
      putNewItem({
        ...keys.scanLocation(after.scanId),
        entity: 'scanLocation',
        scanId: after.scanId,
        applicationId: after.applicationId,
        environmentId: after.environmentId,
      }),
    );
  }
  if (live(before) !== live(after)) items.push(configUseChange((after ?? before)!, live(after) ? 1 : -1));
  return { set, remove: moved.remove, items };
}
