import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { batchGet, queryAll, type PartitionQuery } from '../db/query.ts';
import { config } from '../config.ts';
import type { TransactItem } from '../db/transactions.ts';
import { type CodeRepositoryRecord } from './model.ts';

// The stored form of the source-code repositories an organization registers (its partition, `REPO#<repoId>`).

export async function getCodeRepository(orgId: string, repoId: string): Promise<CodeRepositoryRecord | undefined> {
  const out = await db.send(
    new GetCommand({
      TableName: config.tableName,
      Key: keys.codeRepository(orgId, repoId.toLowerCase()),
      ConsistentRead: true,
    }),
  );
  return fromItem<CodeRepositoryRecord>(out.Item);
}

/** The organization's repositories among `repoIds` (unknown ones are left out). */
export async function getCodeRepositories(orgId: string, repoIds: string[]): Promise<CodeRepositoryRecord[]> {
  const items = await batchGet(
    [...new Set(repoIds.map((id) => id.toLowerCase()))].map((id) => keys.codeRepository(orgId, id)),
  );
  return items.map((item) => fromItem<CodeRepositoryRecord>(item)!);
}

export async function codeRepositoriesOfOrg(orgId: string): Promise<CodeRepositoryRecord[]> {
  return (await queryAll(codeRepositoriesRead(orgId))).map((item) => fromItem<CodeRepositoryRecord>(item)!);
}

/** The read of the organization's code repositories (a list sorted by them prefetches it). */
export const codeRepositoriesRead = (orgId: string): PartitionQuery => {
  const { pk, skPrefix } = keys.codeRepositoriesOfOrg(orgId);
  return { partition: pk, skPrefix };
};

/** Stores `repo` (its revision already incremented), provided nobody changed it since revision - 1. */
export const putCodeRepository = (repo: CodeRepositoryRecord): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: { ...keys.codeRepository(repo.organizationId, repo.repoId), entity: 'codeRepository', ...repo },
    ...(repo.revision > 1
      ? { ConditionExpression: 'revision = :previous', ExpressionAttributeValues: { ':previous': repo.revision - 1 } }
      : { ConditionExpression: 'attribute_not_exists(pk)' }),
  },
});

/** Per application: the repositories mapped to it (the organization's repositories read once). */
export async function repositoriesByApplication(orgId: string): Promise<Map<string, CodeRepositoryRecord[]>> {
  const byApp = new Map<string, CodeRepositoryRecord[]>();
  for (const repo of await codeRepositoriesOfOrg(orgId)) {
    for (const appId of repo.appIds) byApp.set(appId, [...(byApp.get(appId) ?? []), repo]);
  }
  return byApp;
}
