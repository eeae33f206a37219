import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { batchGet, queryAll } from '../db/query.ts';
import { config } from '../config.ts';
import type { TransactItem } from '../audit/entries.ts';

/** The current uploaded description of an application; the bytes are in S3 under `objectKey`. */
export interface HostedDescriptionRecord {
  applicationId: string;
  organizationId: string;
  /** Which stored version is current: each upload writes a new object (docs/HOSTED-ASSETS.md). */
  version: string;
  objectKey: string;
  contentType: string;
  sizeBytes: number;
  openapiVersion: string;
  uploadedAt: number;
  uploadedBy: string;
}

/** A repository-sourced description included in an application. */
export interface MappedDescription {
  oasId: string;
  repositoryId: string;
  sourceRootPath: string;
}

export interface OasMappingRecord {
  applicationId: string;
  assets: MappedDescription[];
  /** Incremented by every change: writes are conditional on the revision they read. */
  revision: number;
}

export async function getHostedDescription(appId: string): Promise<HostedDescriptionRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: config.tableName, Key: keys.hostedDescriptionOfApp(appId) }));
  return fromItem<HostedDescriptionRecord>(out.Item);
}

/** The applications among `appIds` that have an uploaded description (their ids). */
export async function hostedDescriptionsOf(appIds: string[]): Promise<Set<string>> {
  const items = await batchGet(appIds.map((id) => keys.hostedDescriptionOfApp(id)));
  return new Set(items.map((item) => fromItem<HostedDescriptionRecord>(item)!.applicationId));
}

export async function listHostedDescriptionsOfOrg(orgId: string): Promise<HostedDescriptionRecord[]> {
  const { gsi1pk, gsi1skPrefix } = keys.hostedDescriptionsOfOrg(orgId);
  const items = await queryAll({ index: 'gsi1', partition: gsi1pk, skPrefix: gsi1skPrefix });
  return items.map((item) => fromItem<HostedDescriptionRecord>(item)!);
}

/** Makes `record` current, provided the current version is still `previousVersion` (none: no description yet). */
export const replaceHostedDescription = (
  record: HostedDescriptionRecord,
  previousVersion: string | undefined,
): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: {
      ...keys.hostedDescription(record.applicationId, record.organizationId),
      entity: 'hostedDescription',
      ...record,
    },
    ...(previousVersion
      ? { ConditionExpression: 'version = :previous', ExpressionAttributeValues: { ':previous': previousVersion } }
      : { ConditionExpression: 'attribute_not_exists(pk)' }),
  },
});

export async function getOasMapping(appId: string): Promise<OasMappingRecord> {
  const out = await db.send(new GetCommand({ TableName: config.tableName, Key: keys.oasMapping(appId) }));
  return fromItem<OasMappingRecord>(out.Item) ?? { applicationId: appId, assets: [], revision: 0 };
}

/** Stores the next revision of a mapping, provided nobody changed it since `mapping.revision - 1` was read. */
export const putOasMapping = (mapping: OasMappingRecord): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: { ...keys.oasMapping(mapping.applicationId), entity: 'oasMapping', ...mapping },
    ...(mapping.revision > 1
      ? {
          ConditionExpression: 'revision = :previous',
          ExpressionAttributeValues: { ':previous': mapping.revision - 1 },
        }
      : { ConditionExpression: 'attribute_not_exists(pk)' }),
  },
});
