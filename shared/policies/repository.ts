import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { config } from '../config.ts';
import type { TransactItem } from '../db/transactions.ts';
import { type ApplicationPolicyRecord } from './model.ts';

export async function getApplicationPolicy(appId: string): Promise<ApplicationPolicyRecord | undefined> {
  const out = await db.send(
    new GetCommand({ TableName: config.tableName, Key: keys.applicationPolicy(appId), ConsistentRead: true }),
  );
  return fromItem<ApplicationPolicyRecord>(out.Item);
}

/** Stores the next revision, provided nobody changed the policy since `policy.revision - 1` was read. */
export const putApplicationPolicy = (policy: ApplicationPolicyRecord): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: { ...keys.applicationPolicy(policy.applicationId), entity: 'applicationPolicy', ...policy },
    ...(policy.revision > 1
      ? { ConditionExpression: 'revision = :previous', ExpressionAttributeValues: { ':previous': policy.revision - 1 } }
      : { ConditionExpression: 'attribute_not_exists(pk)' }),
  },
});
