import { randomUUID } from 'node:crypto';
import { getEnvironment, environmentDefaultConfigUpdate } from '../applications/environment-repository.ts';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { config } from '../config.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import type { Outcome } from '../db/backfill.ts';
import { LostRace, retryOnConflict, transactionConflict, type RetriesExhausted } from '../db/retry.ts';
import { logger } from '../context/logger.ts';
import { getOrganizationAsset, replaceOrganizationAssetText } from '../hosted-assets/organization-assets.ts';
import { type OrganizationAssetRecord } from '../hosted-assets/model.ts';
import { parseConfiguration } from '../scan-configurations/model.ts';
import { objectKeys } from '../storage/objects.ts';
import { deleteUnreferencedObject, putObject, readObjectText } from '../storage/objects-io.ts';
import { MAX_SCAN_SECRETS } from './inputs.ts';
import { textWithSecretReferences, withSecretReferences, type MovedSecret } from './secret-references.ts';
import { heldScanSecrets, scanSecretAdd, type HeldSecret, type SecretOwner } from './secret-store.ts';

// Configurations stored before literal credentials moved into scan secrets (docs/HOSTED-SCANS.md, "Scan
// configurations and their credentials"), moved the way a save moves them, by the table migration (npm run
// migrate; npm start on an older data directory: shared/table-migration.ts): environments' default configurations
// into their application's secrets, organization scan configurations into the organization's (a hosted run's:
// shared/perch/run-config-migration.ts). Configurations saved
// before share secret names, so a credential reuses the secret holding its value and never replaces another.
// Each item's change is one transaction, conditioned on what was read; a lost race reads again.

const MIGRATION = 'table migration';

/**
 * The writes of the secrets that moved and no existing one holds (`existing`: the owner's, by name), each failing
 * (`secretTaken`) when a secret of its name appeared meanwhile: another configuration of the owner moved at the same
 * time, and the next attempt takes another name. None when the owner's limit would be passed: the item is left,
 * and said.
 */
export async function migratedSecretWrites(
  owner: SecretOwner,
  moved: MovedSecret[],
  existing: ReadonlyMap<string, HeldSecret>,
  what: string,
): Promise<TransactItem[] | undefined> {
  const fresh = moved.filter((secret) => !existing.has(secret.name));
  if (existing.size + fresh.length > MAX_SCAN_SECRETS) {
    logger.warn('a configuration keeps its literal credentials: its secrets would pass the limit', {
      what,
      limit: MAX_SCAN_SECRETS,
    });
    return undefined;
  }
  return Promise.all(fresh.map((secret) => scanSecretAdd(owner, secret.name, secret.value, MIGRATION)));
}

const anyConflict = transactionConflict();

/** Runs a step's attempt, retried while it loses races; exhausted: 'conflict', for the next run. */
export async function migrationAttempts(attempt: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await retryOnConflict({ conflict: anyConflict }, attempt);
  } catch (error) {
    if ((error as Partial<RetriesExhausted>).retryReason) return 'conflict';
    throw error;
  }
}

/** A stored JSON document; undefined for a text that is not one (nothing to move in it). */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** An environment's default configuration (a JSON document). */
export function migrateEnvironmentConfig(item: Record<string, unknown>): Promise<Outcome> {
  const appId = item.applicationId as string;
  const envId = item.environmentId as string;
  return migrationAttempts(async () => {
    const env = await getEnvironment(appId, envId);
    if (!env) return 'gone';
    const currentKey = env.defaultConfigKey ?? objectKeys.environmentConfig(appId, envId);
    const text = await readObjectText(currentKey);
    if (text === undefined) return 'current';
    const owner = { appId, orgId: env.organizationId };
    const existing = await heldScanSecrets(owner);
    const { conf, moved } = withSecretReferences(jsonOf(text), existing, true);
    if (!moved.length) return 'current';
    const writes = await migratedSecretWrites(owner, moved, existing, `environment ${envId} of application ${appId}`);
    if (!writes) return 'current';
    const objectKey = objectKeys.environmentDefaultConfig(appId, envId, randomUUID());
    await putObject(objectKey, `${JSON.stringify(conf, null, 2)}\n`, 'application/json');
    try {
      await transactWrite([...environmentDefaultConfigUpdate(env, objectKey), ...writes]);
    } catch (error) {
      await deleteUnreferencedObject(objectKey);
      throw error;
    }
    await deleteUnreferencedObject(currentKey);
    return 'updated';
  });
}

/** An organization scan configuration (a YAML text, edited in place). */
export function migrateOrganizationConfiguration(item: Record<string, unknown>): Promise<Outcome> {
  if (item.kind !== 'configuration') return Promise.resolve('current');
  const orgId = item.organizationId as string;
  const name = item.name as string;
  return migrationAttempts(async () => {
    const record: OrganizationAssetRecord | undefined = await getOrganizationAsset('configuration', orgId, name);
    if (!record) return 'gone';
    const text = await readObjectText(record.objectKey);
    const parsed = text === undefined ? undefined : parseConfiguration(text).value;
    if (text === undefined || !parsed) return 'current';
    const owner = { orgId };
    const existing = await heldScanSecrets(owner);
    const referencing = textWithSecretReferences(text, parsed, existing, true);
    if (!referencing.moved.length) return 'current';
    const writes = await migratedSecretWrites(
      owner,
      referencing.moved,
      existing,
      `scan configuration ${name} of organization ${orgId}`,
    );
    if (!writes) return 'current';
    if (!(await replaceOrganizationAssetText(record, referencing.text, 'application/yaml; charset=utf-8', writes)))
      throw new LostRace('assetChanged');
    return 'updated';
  });
}

/** The table's marker that its stored configurations' credentials moved (a new table: at once; npm start checks it). */
export async function markTableCredentialsMoved(tableName = config.tableName): Promise<void> {
  await db.send(
    new PutCommand({ TableName: tableName, Item: { ...keys.tableCredentialsMoved(), entity: 'migration' } }),
  );
}
