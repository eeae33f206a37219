import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { cancelledItems, conditionFailed, failedConditions, named, recordItemNames } from '../../shared/db/items.ts';
import { failedCondition, transactionConflict } from '../../shared/db/retry.ts';

// A cancelled transaction reports its failed conditions by the names of its items (docs/DATA-MODEL.md, Projections).

const cancelled = (items: object[], ...codes: string[]) => {
  const error = new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
  recordItemNames(error, items);
  return error;
};

describe('named transaction items', () => {
  const record = { Put: { TableName: 't', Item: { pk: 'a', sk: 'b' } } };
  const claim = named('nameTaken', { Put: { TableName: 't', Item: { pk: 'a', sk: 'c' } } });
  const count = named('countChanged', { Update: { TableName: 't', Key: { pk: 'a', sk: 'a' }, UpdateExpression: '' } });

  it('report the item whose condition failed by its name, wherever it stands', () => {
    const error = cancelled([record, claim, count], 'None', 'ConditionalCheckFailed', 'None');
    expect(conditionFailed(error, 'nameTaken')).toBe(true);
    expect(conditionFailed(error, 'countChanged')).toBe(false);
    const reordered = cancelled([count, record, claim], 'None', 'None', 'ConditionalCheckFailed');
    expect(conditionFailed(reordered, 'nameTaken')).toBe(true);
  });

  it('name unnamed items by their position, and say nothing of other errors', () => {
    const error = cancelled([record, count], 'ConditionalCheckFailed', 'None');
    expect(cancelledItems(error)).toEqual([
      { code: 'ConditionalCheckFailed', name: 'item 0' },
      { code: 'None', name: 'countChanged' },
    ]);
    expect(conditionFailed(new Error('ConditionalCheckFailed'), 'item 0')).toBe(false);
  });

  it('list the names of every failed condition, and nothing for a conflict or another error', () => {
    const error = cancelled(
      [record, claim, count],
      'ConditionalCheckFailed',
      'TransactionConflict',
      'ConditionalCheckFailed',
    );
    expect(failedConditions(error)).toEqual(['item 0', 'countChanged']);
    expect(failedConditions(cancelled([claim], 'TransactionConflict'))).toEqual([]);
    expect(failedConditions(new Error('ConditionalCheckFailed'))).toEqual([]);
  });

  it('let a retry count only the named items as lost races, and carry the name as the reason', () => {
    const retryOnCount = failedCondition(['countChanged']);
    expect(retryOnCount(cancelled([record, claim, count], 'None', 'None', 'ConditionalCheckFailed'))).toBe(
      'ConditionalCheckFailed at countChanged',
    );
    expect(retryOnCount(cancelled([record, claim, count], 'None', 'ConditionalCheckFailed', 'None'))).toBeUndefined();
    expect(transactionConflict(['countChanged'])(cancelled([record, claim], 'TransactionConflict', 'None'))).toBe(
      'TransactionConflict at item 0',
    );
  });
});
