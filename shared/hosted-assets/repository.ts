import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { failedConditions, fromItem } from '../db/items.ts';
import { batchGet, queryAll } from '../db/query.ts';
import { config } from '../config.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import type { Outcome } from '../db/backfill.ts';
import { logger } from '../context/logger.ts';
import { DESCRIPTION_LIMITS } from '../limits.ts';
import { documentValue, parseBoundedYaml } from '../input/documents.ts';
import { readObjectText } from '../storage/objects-io.ts';
import { decodedRoutes, descriptionRoutes, encodedRoutes, type DescriptionRoutes } from './description-routes.ts';

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

const routesItem = (appId: string, version: string, routes: DescriptionRoutes) => ({
  ...keys.hostedDescriptionRoutes(appId),
  entity: 'hostedDescriptionRoutes',
  applicationId: appId,
  version,
  routes: encodedRoutes(routes),
});

/**
 * Stores the routes of the description `version` of the application: in the transaction that makes it current. With
 * them their tag, a small item the overview's overdue digests compare (issue ids depend on the routes).
 */
export const putDescriptionRoutes = (appId: string, version: string, routes: DescriptionRoutes): TransactItem[] => [
  { Put: { TableName: config.tableName, Item: routesItem(appId, version, routes) } },
  routesTagPut(appId, version),
];

const routesTagPut = (appId: string, version: string): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: { ...keys.hostedDescriptionRoutesTag(appId), entity: 'hostedDescriptionRoutesTag', version },
  },
});

/** The routes of the application's hosted description; undefined when it has none. */
export async function getDescriptionRoutes(appId: string): Promise<DescriptionRoutes | undefined> {
  const out = await db.send(
    new GetCommand({ TableName: config.tableName, Key: keys.hostedDescriptionRoutes(appId), ConsistentRead: true }),
  );
  const item = fromItem<{ routes: Uint8Array }>(out.Item);
  return item && decodedRoutes(item.routes);
}

/**
 * The routes of a description stored before they were kept (npm run migrate, npm start on an older data directory;
 * docs/ISSUES.md, Upgrade): read from its stored text, already validated at its upload. Idempotent: an item already
 * there (this step's, or an upload's since) stays.
 */
export async function backfillDescriptionRoutes(record: HostedDescriptionRecord): Promise<Outcome> {
  const existing = await db.send(
    new GetCommand({ TableName: config.tableName, Key: keys.hostedDescriptionRoutes(record.applicationId) }),
  );
  if (existing.Item) return 'current';
  const text = await readObjectText(record.objectKey);
  if (text === undefined) return 'gone';
  let routes: DescriptionRoutes = { paths: [], basePaths: [] };
  try {
    routes = descriptionRoutes(documentValue(parseBoundedYaml(text, DESCRIPTION_LIMITS), DESCRIPTION_LIMITS));
  } catch (error) {
    // Validated at its upload, so not expected: its findings' paths are then normalized without it.
    logger.warn('a stored description could not be read for its paths', { appId: record.applicationId, error });
  }
  try {
    // With their tag, atomically: an overdue digest built in between would otherwise keep the routes' absence.
    await transactWrite([
      {
        Put: {
          TableName: config.tableName,
          Item: routesItem(record.applicationId, record.version, routes),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      routesTagPut(record.applicationId, record.version),
    ]);
    return 'updated';
  } catch (error) {
    if (failedConditions(error).length > 0) return 'current';
    throw error;
  }
}

/** The table's marker that every hosted description has its routes item (npm start then skips this step). */
export async function markDescriptionRoutes(tableName = config.tableName): Promise<void> {
  await db.send(
    new PutCommand({ TableName: tableName, Item: { ...keys.tableDescriptionRoutes(), entity: 'migration' } }),
  );
}
