import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { putNewItem, transactWrite } from '../db/transactions.ts';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { config } from '../config.ts';

export interface Organization {
  organizationId: string;
  name: string;
  /** Only organizations whose plan has API access may be reached through the API (docs/API.md, Sessions). */
  apiAccess: boolean;
  createdAt: number;
}

/**
 * A new organization, with the markers that its health aggregates count every application, its coverage counters
 * every environment and its riskiest applications' entries every application (it has none yet).
 */
export async function putOrganization(org: Organization): Promise<void> {
  await transactWrite([
    putNewItem({ ...keys.organization(org.organizationId), entity: 'organization', ...org }),
    { Put: { TableName: config.tableName, Item: { ...keys.healthReady(org.organizationId), entity: 'healthReady' } } },
    {
      Put: {
        TableName: config.tableName,
        Item: { ...keys.coverageReady(org.organizationId), entity: 'coverageReady' },
      },
    },
    {
      Put: {
        TableName: config.tableName,
        Item: { ...keys.riskiestReady(org.organizationId), entity: 'riskiestReady' },
      },
    },
  ]);
}

export async function getOrganization(orgId: string): Promise<Organization | undefined> {
  const out = await db.send(new GetCommand({ TableName: config.tableName, Key: keys.organization(orgId) }));
  return fromItem<Organization>(out.Item);
}

/** Every organization (operators' list-orgs): a filtered scan of the table, read page by page. */
export async function listAllOrganizations(): Promise<Organization[]> {
  const organizations: Organization[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: config.tableName,
        FilterExpression: 'entity = :entity',
        ExpressionAttributeValues: { ':entity': 'organization' },
        ExclusiveStartKey,
      }),
    );
    organizations.push(...(page.Items ?? []).map((item) => fromItem<Organization>(item)!));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return organizations.sort((a, b) => a.createdAt - b.createdAt);
}
