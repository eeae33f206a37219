import { TransactionCanceledException, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { mainTable } from './tables.ts';

/** The storage attributes of an item: the table's and every index's keys (from the table definition), and `entity`. */
const STORAGE_ATTRIBUTES: ReadonlySet<string> = new Set([
  mainTable.partitionKey.name,
  ...(mainTable.sortKey ? [mainTable.sortKey.name] : []),
  ...mainTable.globalSecondaryIndexes.flatMap((index) => [index.partitionKey.name, index.sortKey.name]),
  'entity',
]);

/** Strips the storage attributes from an item, leaving the entity's own fields. */
export function fromItem<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const entity: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) if (!STORAGE_ATTRIBUTES.has(name)) entity[name] = value;
  return entity as T;
}

/** The reasons a transaction was cancelled, one per item in request order ('None' for items that passed). */
function cancellationReasons(error: unknown): string[] | undefined {
  if (error instanceof TransactionCanceledException)
    return (error.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
  return undefined;
}

// Named transaction items (docs/DATA-MODEL.md, Projections): a write names the items whose failed condition means
// something to its caller (`nameTaken`, `countChanged`), and the caller asks for the reason by that name, never by
// the item's position, which changes whenever a projection adds or drops an item.

const itemNames = new WeakMap<object, string>();
const cancelledItemNames = new WeakMap<object, (string | undefined)[]>();

/** Names `item` in every transaction it is committed in (transactWrite records the names of its items). */
export function named<T extends object>(name: string, item: T): T {
  itemNames.set(item, name);
  return item;
}

/** Records, on the error of a cancelled transaction, the names of its items (in request order). */
export function recordItemNames(error: unknown, items: object[]): void {
  if (error instanceof TransactionCanceledException)
    cancelledItemNames.set(
      error,
      items.map((item) => itemNames.get(item)),
    );
}

/** Each item's reason of a cancelled transaction, with its name (`item N` when it has none). */
export function cancelledItems(error: unknown): { code: string; name: string }[] | undefined {
  const codes = cancellationReasons(error);
  if (!codes) return undefined;
  const names = cancelledItemNames.get(error as object) ?? [];
  return codes.map((code, i) => ({ code, name: names[i] ?? `item ${i}` }));
}

/**
 * The names of the items whose condition cancelled the transaction, in request order (none for any other error).
 * For a caller to whom any failed condition means the same (another request changed what it read).
 */
export function failedConditions(error: unknown): string[] {
  return (cancelledItems(error) ?? [])
    .filter((item) => item.code === 'ConditionalCheckFailed')
    .map((item) => item.name);
}

/** Whether the transaction was cancelled by the failed condition of the item named `name`. */
export function conditionFailed(error: unknown, name: string): boolean {
  return failedConditions(error).includes(name);
}

export function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException;
}
