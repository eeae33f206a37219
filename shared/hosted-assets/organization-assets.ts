import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { conditionFailed, fromItem, named } from '../db/items.ts';
import { retryOnConflict, transactionConflict } from '../db/retry.ts';
import { queryAll } from '../db/query.ts';
import { config } from '../config.ts';
import { auditEntry } from '../audit/entries.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { conflict, notFound } from '../errors.ts';
import { objectKeys, type OrganizationAssetKind } from '../storage/objects.ts';
import { deleteUnreferencedObject, putObject, readObjectText } from '../storage/objects-io.ts';
import { hostedAssetAnswer, presignedDownload } from './downloads.ts';
import type { ActivityType } from '../audit/model.ts';
import type { Caller } from '../context/caller.ts';
import { type OrganizationAssetRecord } from './model.ts';

// Named documents an organization keeps (scan configurations, scan policies). The text is an S3 object written
// once per version; the metadata item in the organization's partition names the current version, and every change
// of it is one transaction with its audit entry, so readers see the old text or the new one and a failed commit
// changes nothing (the pattern of docs/HOSTED-ASSETS.md). They belong to the organization, not to a team.

const LABELS: Record<OrganizationAssetKind, string> = { configuration: 'scan configuration', policy: 'scan policy' };
export const assetNotFound = (kind: OrganizationAssetKind, orgId: string, name: string) =>
  notFound(`${LABELS[kind]} ${name} not found in organization ${orgId}`);

export async function getOrganizationAsset(
  kind: OrganizationAssetKind,
  orgId: string,
  name: string,
): Promise<OrganizationAssetRecord | undefined> {
  const out = await db.send(
    new GetCommand({ TableName: config.tableName, Key: keys.organizationAsset(orgId, kind, name) }),
  );
  return fromItem<OrganizationAssetRecord>(out.Item);
}

export async function listOrganizationAssets(
  kind: OrganizationAssetKind,
  orgId: string,
): Promise<OrganizationAssetRecord[]> {
  const { pk, skPrefix } = keys.organizationAssetsOfOrg(orgId, kind);
  return (await queryAll({ partition: pk, skPrefix })).map((item) => fromItem<OrganizationAssetRecord>(item)!);
}

/** The current text of the named asset, or undefined when there is none. */
export async function organizationAssetText(
  kind: OrganizationAssetKind,
  orgId: string,
  name: string,
): Promise<string | undefined> {
  const record = await getOrganizationAsset(kind, orgId, name);
  return record && readObjectText(record.objectKey);
}

/** Conditions a write on the version that was read (none read: the name must still be free). */
const onVersion = (previousVersion: string | undefined) =>
  previousVersion
    ? { ConditionExpression: 'version = :previous', ExpressionAttributeValues: { ':previous': previousVersion } }
    : { ConditionExpression: 'attribute_not_exists(pk)' };

/** Fails at `assetChanged` when the version read was replaced, at `nameTaken` when none was read and one exists. */
const putRecord = (record: OrganizationAssetRecord, previousVersion: string | undefined): TransactItem =>
  named(previousVersion ? 'assetChanged' : 'nameTaken', {
    Put: {
      TableName: config.tableName,
      Item: {
        ...keys.organizationAsset(record.organizationId, record.kind, record.name),
        entity: 'organizationAsset',
        ...record,
      },
      ...onVersion(previousVersion),
    },
  });

const deleteRecord = (record: OrganizationAssetRecord): TransactItem =>
  named('assetChanged', {
    Delete: {
      TableName: config.tableName,
      Key: keys.organizationAsset(record.organizationId, record.kind, record.name),
      ...onVersion(record.version),
    },
  });

/**
 * Creates or replaces the named asset with `text`; `audit` and `items` (the scan secrets a configuration's literal
 * credentials moved to) are written in the same transaction.
 */
export async function putOrganizationAsset(
  caller: Caller,
  input: {
    kind: OrganizationAssetKind;
    orgId: string;
    name: string;
    text: string;
    contentType: string;
    details: Record<string, string>;
  },
  audit: { type: ActivityType; payload: Record<string, unknown> },
  items: TransactItem[] = [],
): Promise<void> {
  const version = randomUUID();
  const objectKey = objectKeys.organizationAsset(input.orgId, input.kind, version);
  await putObject(objectKey, input.text, input.contentType);
  const record: OrganizationAssetRecord = {
    organizationId: input.orgId,
    kind: input.kind,
    name: input.name,
    version,
    objectKey,
    sizeBytes: Buffer.byteLength(input.text, 'utf8'),
    updatedAt: Date.now(),
    updatedBy: caller.userId,
    details: input.details,
  };
  try {
    await retryOnConflict(
      {
        conflict: transactionConflict(),
        exhausted: () => conflict(`${LABELS[input.kind]} ${input.name} was changed concurrently; retry`),
      },
      async () => {
        const replaced = await getOrganizationAsset(input.kind, input.orgId, input.name);
        const entry = auditEntry(caller, input.orgId, audit.type, {
          ...audit.payload,
          fileSize: record.sizeBytes,
          created: !replaced,
        });
        await transactWrite([putRecord(record, replaced?.version), ...items, entry]);
        if (replaced) await deleteUnreferencedObject(replaced.objectKey);
      },
    );
  } catch (error) {
    await deleteUnreferencedObject(objectKey);
    throw error;
  }
}

/**
 * A migration's replacement of the asset's text (no caller, no audit entry; `items` in its transaction): false when
 * the record read was replaced or deleted meanwhile (nothing written).
 */
export async function replaceOrganizationAssetText(
  record: OrganizationAssetRecord,
  text: string,
  contentType: string,
  items: TransactItem[],
): Promise<boolean> {
  const version = randomUUID();
  const objectKey = objectKeys.organizationAsset(record.organizationId, record.kind, version);
  await putObject(objectKey, text, contentType);
  const replaced = { ...record, version, objectKey, sizeBytes: Buffer.byteLength(text, 'utf8') };
  try {
    await transactWrite([putRecord(replaced, record.version), ...items]);
  } catch (error) {
    await deleteUnreferencedObject(objectKey);
    if (conditionFailed(error, 'assetChanged')) return false;
    throw error;
  }
  await deleteUnreferencedObject(record.objectKey);
  return true;
}

/** Moves the metadata to the new name (409 when it is taken); the stored text stays where it is. */
export async function renameOrganizationAsset(
  caller: Caller,
  input: { kind: OrganizationAssetKind; orgId: string; originalName: string; newName: string },
  audit: { type: ActivityType; payload: Record<string, unknown> },
): Promise<void> {
  const original = await getOrganizationAsset(input.kind, input.orgId, input.originalName);
  if (!original) throw assetNotFound(input.kind, input.orgId, input.originalName);
  const renamed: OrganizationAssetRecord = {
    ...original,
    name: input.newName,
    updatedAt: Date.now(),
    updatedBy: caller.userId,
  };
  try {
    await transactWrite([
      deleteRecord(original),
      putRecord(renamed, undefined),
      auditEntry(caller, input.orgId, audit.type, audit.payload),
    ]);
  } catch (error) {
    if (conditionFailed(error, 'nameTaken'))
      throw conflict(`newName: a ${LABELS[input.kind]} named ${input.newName} already exists`);
    if (conditionFailed(error, 'assetChanged'))
      throw conflict(`${LABELS[input.kind]} ${input.originalName} was changed concurrently; retry`);
    throw error;
  }
}

/** Deletes the named asset (the audit entry in the same transaction), then its text. */
export async function removeOrganizationAsset(
  caller: Caller,
  input: { kind: OrganizationAssetKind; orgId: string; name: string },
  audit: { type: ActivityType; payload: Record<string, unknown> },
): Promise<void> {
  const record = await getOrganizationAsset(input.kind, input.orgId, input.name);
  if (!record) throw assetNotFound(input.kind, input.orgId, input.name);
  try {
    await transactWrite([deleteRecord(record), auditEntry(caller, input.orgId, audit.type, audit.payload)]);
  } catch (error) {
    if (conditionFailed(error, 'assetChanged'))
      throw conflict(`${LABELS[input.kind]} ${input.name} was changed concurrently; retry`);
    throw error;
  }
  await deleteUnreferencedObject(record.objectKey);
}

/** The hosted-asset answer (presigned URL) for the named asset, as JSON or as a redirect. */
export async function organizationAssetDownload(
  kind: OrganizationAssetKind,
  orgId: string,
  name: string,
  redirect: boolean,
) {
  const record = await getOrganizationAsset(kind, orgId, name);
  if (!record) throw assetNotFound(kind, orgId, name);
  return hostedAssetAnswer(await presignedDownload(record.objectKey), redirect);
}
