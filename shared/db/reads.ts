import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client.ts';
import { config } from '../config.ts';

type Key = Record<string, unknown>;

/** Reads many items of the main table by key (100 per call, retrying unprocessed keys). Order is not kept. */
export async function batchGet(itemKeys: Key[]): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < itemKeys.length; i += 100) {
    let request: Record<string, { Keys: Key[] }> | undefined = { [config.tableName]: { Keys: itemKeys.slice(i, i + 100) } };
    while (request && Object.keys(request).length > 0) {
      const out = await db.send(new BatchGetCommand({ RequestItems: request }));
      items.push(...(out.Responses?.[config.tableName] ?? []));
      request = out.UnprocessedKeys as typeof request;
    }
  }
  return items;
}

/** Every item of an index partition whose sort key starts with a prefix, following pagination. */
export async function queryAllByIndexPrefix(
  indexName: 'gsi1' | 'gsi2' | 'gsi3',
  partition: string,
  sortPrefix: string,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Key | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: config.tableName,
        IndexName: indexName,
        KeyConditionExpression: `${indexName}pk = :pk AND begins_with(${indexName}sk, :prefix)`,
        ExpressionAttributeValues: { ':pk': partition, ':prefix': sortPrefix },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}
