import { TransactionCanceledException, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

const KEY_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'gsi3pk', 'gsi3sk', 'gsi4pk', 'gsi4sk', 'gsi5pk', 'gsi5sk', 'gsi6pk', 'gsi6sk', 'gsi7pk', 'gsi7sk', 'entity'];

/** Strips the storage keys from an item, leaving the entity's own fields. */
export function fromItem<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const entity: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) if (!KEY_ATTRIBUTES.includes(name)) entity[name] = value;
  return entity as T;
}

/**
 * The reasons a transaction was cancelled, one per item in request order ('None' for items that passed).
 * Lets a caller say which condition failed ("user does not exist") instead of a generic error.
 */
export function cancellationReasons(error: unknown): string[] | undefined {
  if (error instanceof TransactionCanceledException) return (error.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
  return undefined;
}

export function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException;
}
