import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from './client.ts';
import { config } from '../config.ts';
import { cancelledItems, recordItemNames } from './items.ts';
import { retryOnConflict } from './retry.ts';

// Building blocks of the main table's TransactWriteItems calls.
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The transaction fails (ConditionalCheckFailed at this item: name it with items.ts `named`) unless the item exists. */
export const requireItem = (Key: Record<string, unknown>): TransactItem => ({
  ConditionCheck: { TableName: config.tableName, Key, ConditionExpression: 'attribute_exists(pk)' },
});

/** Creates the item; the transaction fails at this item if an item with its key exists. */
export const putNewItem = (Item: Record<string, unknown>): TransactItem => ({
  Put: { TableName: config.tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' },
});

/** An UpdateExpression that sets `set` (clauses `name = value`) and, when there are any, removes `remove`. */
export const setAndRemove = (set: string[], remove: string[]): string =>
  `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`;

/** DynamoDB's limit of items in one TransactWriteItems. */
export const MAX_TRANSACTION_ITEMS = 100;

/**
 * One atomic write: all items land, or none (at most MAX_TRANSACTION_ITEMS). The one write path of the table's
 * transactions: sent again when DynamoDB cancels it only because another transaction held one of its items at the
 * same moment (reason TransactionConflict, e.g. two creates updating the organization's counters at once; nothing
 * was written), through retryOnConflict (retry.ts). Any other cancellation (a failed condition) is thrown to the
 * caller at once, its items named (items.ts conditionFailed).
 */
export async function transactWrite(items: TransactItem[]): Promise<void> {
  await retryOnConflict({ conflict: conflictsOnly, backoffMs: 40 }, async () => {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: items }));
    } catch (error) {
      // A caller asks which condition failed by the item's name (items.ts conditionFailed), not its position.
      recordItemNames(error, items);
      throw error;
    }
  });
}

function conflictsOnly(error: unknown): string | undefined {
  const codes = (cancelledItems(error) ?? []).map((item) => item.code);
  const conflictOnly =
    codes.includes('TransactionConflict') && codes.every((code) => code === 'TransactionConflict' || code === 'None');
  return conflictOnly ? 'TransactionConflict' : undefined;
}
