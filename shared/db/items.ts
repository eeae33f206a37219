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

/**
 * The reasons a transaction was cancelled, one per item in request order ('None' for items that passed).
 * Lets a caller say which condition failed ("user does not exist") instead of a generic error.
 */
export function cancellationReasons(error: unknown): string[] | undefined {
  if (error instanceof TransactionCanceledException)
    return (error.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
  return undefined;
}

export function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException;
}
