import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { batchDelete, batchGet, deleteFound, queryAll, queryItems } from '../db/query.ts';
import { putNewItem, type TransactItem } from '../db/transactions.ts';
import { config } from '../config.ts';
import { applicationEnvironmentCountChange, organizationCounterChange, type ApplicationRecord, type ApplicationType } from './application-repository.ts';
import type { RiskSeverity } from '../scans/inputs.ts';

/** Last-scan status as the environment view reports it (application_view.EnvironmentView.lastScanStatus). */
export type LastScanStatus = 'COMPLETED' | 'ERROR' | 'STARTED';

/** The most recent scan of an environment, written by the scan-results issue through environmentLastScanUpdate. */
export interface LastScan {
  lastScanId: string;
  lastScanStatus: LastScanStatus;
  /** Milliseconds since the epoch. */
  lastScanTimestamp: number;
  lastScanCompletedTimestamp?: number;
  lastScanDuration?: number;
  lastScanTotalUntriaged?: number;
  lastScanHighUntriaged?: number;
  lastScanMediumUntriaged?: number;
  lastScanLowUntriaged?: number;
  latestScanConfigHash?: string;
  lastScanHawkscanVersion?: string;
  /** DEFAULT, REST, GRAPHQL, GRPC or SOAP: what the last scan's configuration scans. */
  latestScanType?: string;
}

/** An environment as stored (SPEC 2.2/2.3); its team is its application's (lists join the two). */
export interface EnvironmentRecord extends Partial<LastScan> {
  environmentId: string;
  applicationId: string;
  organizationId: string;
  name: string;
  /** Copied from the application (never changes after creation) so that lists can filter without a join. */
  applicationType: ApplicationType;
  deleting?: boolean;
  createdAt: number;
  /**
   * The S3 object holding the default configuration set by POST .../config/default; absent: the one written when
   * the environment was created (objectKeys.environmentConfig).
   */
  defaultConfigKey?: string;
}

/** The gsi1 partition of environments without scans (the LAST_SCAN_STATUS_UNSPECIFIED filter). */
export const NO_SCAN_STATUS = 'NONE';

const toRecord = (item: Record<string, unknown> | undefined) => fromItem<EnvironmentRecord>(item);
/** Reads the fields by name (no spread): the index backfill (shared/db/backfill.ts) conditions its write on them. */
const indexKeys = (env: EnvironmentRecord, name = env.name, scan: Partial<LastScan> = env) =>
  keys.environmentIndexes(env.organizationId, env.environmentId, name, {
    lastScanTimestamp: scan.lastScanTimestamp,
    lastScanStatus: scan.lastScanStatus ?? NO_SCAN_STATUS,
    lastScanDuration: scan.lastScanDuration,
    lastScanTotalUntriaged: scan.lastScanTotalUntriaged,
  });

/**
 * Every index key an environment item carries in its current state: one entry per list order while live, none once
 * its delete has started. What a new item is written with, and what the index backfill (npm run migrate) gives
 * items written by earlier versions.
 */
export const environmentIndexKeys = (env: EnvironmentRecord): Record<string, string> => (env.deleting ? {} : indexKeys(env));

export async function getEnvironmentIncludingDeleting(appId: string, envId: string): Promise<EnvironmentRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: config.tableName, Key: keys.environment(appId, envId) }));
  return toRecord(out.Item);
}

/** The environment, unless unknown or being deleted. */
export async function getEnvironment(appId: string, envId: string): Promise<EnvironmentRecord | undefined> {
  const env = await getEnvironmentIncludingDeleting(appId, envId);
  return env && !env.deleting ? env : undefined;
}

/** Environments by (application, environment) id, deleting ones included; order is not kept. */
export async function getEnvironmentsByKeys(refs: { applicationId: string; environmentId: string }[]): Promise<EnvironmentRecord[]> {
  const items = await batchGet(refs.map((r) => keys.environment(r.applicationId, r.environmentId)));
  return items.map((item) => toRecord(item)!);
}

/** The live environment with this name (case-insensitive) in the application: one GetItem on the name claim. */
export async function getEnvironmentByName(appId: string, name: string): Promise<EnvironmentRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: config.tableName, Key: keys.environmentName(appId, name) }));
  const envId = out.Item?.environmentId as string | undefined;
  return envId ? getEnvironment(appId, envId) : undefined;
}

/** The application's live environments (its partition's ENV# items). */
export async function environmentsOfApp(appId: string): Promise<EnvironmentRecord[]> {
  const { pk, skPrefix } = keys.environmentsOfApp(appId);
  const items = await queryAll({ partition: pk, skPrefix });
  return items.map((item) => toRecord(item)!).filter((env) => !env.deleting);
}

export type EnvironmentOrder = 'name' | 'scanDate';

/** The organization's live environments in index order (name or last scan time, then id), read lazily. */
export async function* environmentsOfOrg(orgId: string, order: EnvironmentOrder, forward: boolean, pageLimit?: number): AsyncGenerator<EnvironmentRecord> {
  const query =
    order === 'name'
      ? { index: 'gsi2' as const, partition: keys.environmentsOfOrgByName(orgId).gsi2pk }
      : { index: 'gsi3' as const, partition: keys.environmentsOfOrgByScanDate(orgId).gsi3pk };
  for await (const item of queryItems({ ...query, forward, pageLimit })) yield toRecord(item)!;
}

/** The organization's live environments with this name (case-insensitive): reads only those. */
export async function environmentsOfOrgNamed(orgId: string, name: string): Promise<EnvironmentRecord[]> {
  const { gsi2pk, gsi2skPrefix } = keys.environmentsOfOrgNamed(orgId, name);
  const items = await queryAll({ index: 'gsi2', partition: gsi2pk, skPrefix: gsi2skPrefix });
  return items.map((item) => toRecord(item)!).filter((env) => env.name.toLowerCase() === name.toLowerCase());
}

// ---- Writes: each returns TransactWriteItems for the caller to commit with its audit entry.

/** A new environment: its record, its name claim, the application's count and the organization's counter. */
export function environmentCreation(app: ApplicationRecord, env: EnvironmentRecord): TransactItem[] {
  return [
    ...environmentPuts(env),
    applicationEnvironmentCountChange(app, 1),
    organizationCounterChange(app.organizationId, app.applicationType, app.teamId, { applications: 0, environments: 1 }),
  ];
}

/** The environment record and its name claim (alone: when its application is created in the same transaction). */
export function environmentPuts(env: EnvironmentRecord): TransactItem[] {
  return [
    putNewItem({ ...keys.environment(env.applicationId, env.environmentId), ...environmentIndexKeys(env), entity: 'environment', ...env }),
    putNewItem({ ...keys.environmentName(env.applicationId, env.name), entity: 'environmentName', environmentId: env.environmentId }),
  ];
}

/** Renames a live environment, moving its name claim (fails if the new name is taken in the application). */
export function environmentRename(env: EnvironmentRecord, name: string): TransactItem[] {
  const { gsi1sk, gsi2sk } = indexKeys(env, name);
  const items: TransactItem[] = [
    {
      Update: {
        TableName: config.tableName,
        Key: keys.environment(env.applicationId, env.environmentId),
        UpdateExpression: 'SET #name = :name, gsi1sk = :gsi1sk, gsi2sk = :gsi2sk',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleting)',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: { ':name': name, ':gsi1sk': gsi1sk, ':gsi2sk': gsi2sk },
      },
    },
  ];
  if (name.toLowerCase() !== env.name.toLowerCase()) {
    items.push(
      { Delete: { TableName: config.tableName, Key: keys.environmentName(env.applicationId, env.name) } },
      putNewItem({ ...keys.environmentName(env.applicationId, name), entity: 'environmentName', environmentId: env.environmentId }),
    );
  }
  return items;
}

/** Makes `objectKey` the live environment's default configuration, provided it still is `env`'s current one. */
export function environmentDefaultConfigUpdate(env: EnvironmentRecord, objectKey: string): TransactItem {
  const current = env.defaultConfigKey
    ? { condition: 'defaultConfigKey = :previous', values: { ':previous': env.defaultConfigKey } }
    : { condition: 'attribute_not_exists(defaultConfigKey)', values: {} };
  return {
    Update: {
      TableName: config.tableName,
      Key: keys.environment(env.applicationId, env.environmentId),
      UpdateExpression: 'SET defaultConfigKey = :key',
      ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(deleting) AND ${current.condition}`,
      ExpressionAttributeValues: { ':key': objectKey, ...current.values },
    },
  };
}

const LAST_SCAN_FIELDS: (keyof LastScan)[] = [
  'lastScanId',
  'lastScanStatus',
  'lastScanTimestamp',
  'lastScanCompletedTimestamp',
  'lastScanDuration',
  'lastScanTotalUntriaged',
  'lastScanHighUntriaged',
  'lastScanMediumUntriaged',
  'lastScanLowUntriaged',
  'latestScanConfigHash',
  'lastScanHawkscanVersion',
  'latestScanType',
];

/**
 * Sets (or, with `undefined`, clears: the environment has no scans left) the last scan of a live environment,
 * keeping the scan-date and status index keys in step with the fields. `expectedLastScanId` (or `null`: none)
 * makes the update conditional on the scan it replaces, so that an older scan never overwrites a newer one.
 */
export function environmentLastScanUpdate(env: EnvironmentRecord, scan: LastScan | undefined, expectedLastScanId?: string | null): TransactItem {
  const { gsi1pk, gsi3sk, gsi5sk, gsi6sk } = indexKeys(env, env.name, scan ?? {});
  const fields: Record<string, unknown> = { gsi1pk, gsi3sk, gsi5sk, gsi6sk };
  for (const name of LAST_SCAN_FIELDS) if (scan?.[name] !== undefined) fields[name] = scan[name];
  const removed = LAST_SCAN_FIELDS.filter((name) => !(name in fields));
  const names = [...Object.keys(fields), ...removed];
  const values: Record<string, unknown> = Object.fromEntries(Object.keys(fields).map((n, i) => [`:v${i}`, fields[n]]));
  let condition = 'attribute_exists(pk) AND attribute_not_exists(deleting)';
  if (expectedLastScanId) {
    condition += ` AND lastScanId = :expected`;
    values[':expected'] = expectedLastScanId;
  } else if (expectedLastScanId === null) condition += ' AND attribute_not_exists(lastScanId)';
  const set = Object.keys(fields).map((_, i) => `#f${i} = :v${i}`);
  const remove = removed.map((_, i) => `#f${Object.keys(fields).length + i}`);
  return {
    Update: {
      TableName: config.tableName,
      Key: keys.environment(env.applicationId, env.environmentId),
      UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
      ConditionExpression: condition,
      ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#f${i}`, n])),
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * Starts an environment delete: the environment leaves the indexes (lists stop reading it), frees its name and
 * leaves the counts; its scan data is then removed by deleteEnvironmentData.
 */
export function environmentDeletingMark(app: ApplicationRecord, env: EnvironmentRecord): TransactItem[] {
  return [
    {
      Update: {
        TableName: config.tableName,
        Key: keys.environment(env.applicationId, env.environmentId),
        UpdateExpression: 'SET deleting = :true REMOVE gsi1pk, gsi1sk, gsi2pk, gsi2sk, gsi3pk, gsi3sk, gsi4pk, gsi4sk, gsi5pk, gsi5sk, gsi6pk, gsi6sk',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleting)',
        ExpressionAttributeValues: { ':true': true },
      },
    },
    { Delete: { TableName: config.tableName, Key: keys.environmentName(env.applicationId, env.name) } },
    applicationEnvironmentCountChange(app, -1),
    organizationCounterChange(app.organizationId, app.applicationType, app.teamId, { applications: 0, environments: -1 }),
  ];
}

/** Deletes the environment's scan data, then its record (after environmentDeletingMark; a retry resumes). */
export async function deleteEnvironmentData(appId: string, envId: string): Promise<void> {
  const { pk, skPrefix } = keys.environmentData(appId, envId);
  await deleteFound({ partition: pk, skPrefix });
  await batchDelete([keys.environment(appId, envId)]);
}

/**
 * Moves `delta` findings of `severity` into (+) or out of (-) the untriaged figures of the environment's last scan,
 * provided it is still `lastScanId` (a triage of a finding in that scan) and its total is still the one read in
 * `env`: the findings-count index key (gsi6) is set from that total, so it stays in step with the figure.
 */
export function environmentUntriagedChange(env: EnvironmentRecord, lastScanId: string, severity: RiskSeverity, delta: number): TransactItem {
  const read = env.lastScanTotalUntriaged;
  const total = (read ?? 0) + delta;
  return {
    Update: {
      TableName: config.tableName,
      Key: keys.environment(env.applicationId, env.environmentId),
      UpdateExpression: 'SET lastScanTotalUntriaged = :total, gsi6sk = :gsi6sk ADD #severity :delta',
      ConditionExpression: `lastScanId = :scanId AND attribute_not_exists(deleting) AND ${read === undefined ? 'attribute_not_exists(lastScanTotalUntriaged)' : 'lastScanTotalUntriaged = :read'}`,
      ExpressionAttributeNames: { '#severity': `lastScan${severity}Untriaged` },
      ExpressionAttributeValues: {
        ':delta': delta,
        ':scanId': lastScanId,
        ':total': total,
        ':gsi6sk': keys.environmentFindingsSortKey(env.environmentId, total),
        ...(read === undefined ? {} : { ':read': read }),
      },
    },
  };
}
