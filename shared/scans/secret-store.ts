import { keys } from '../db/keys.ts';
import { fromItem, named } from '../db/items.ts';
import { queryAll } from '../db/query.ts';
import type { TransactItem } from '../db/transactions.ts';
import { config } from '../config.ts';
import { seal, unseal } from '../secrets/sealing.ts';

// Scan secrets (docs/HOSTED-SCANS.md, "Scan secrets"): login secrets a scan configuration references as `${NAME}`,
// kept per application and per organization, sealed bound to their record (shared/secrets/sealing.ts), never shown.

/** Whose secret it is: an application's (of its organization) or an organization's. */
export type SecretOwner = { appId: string; orgId: string } | { appId?: undefined; orgId: string };

export interface ScanSecretRecord {
  name: string;
  /** The value, sealed for this owner and name: copied to another record it does not open. */
  sealedValue: string;
  updatedAt: number;
  updatedBy: string;
}

const keyOf = (owner: SecretOwner, name: string) =>
  owner.appId ? keys.applicationScanSecret(owner.appId, name) : keys.organizationScanSecret(owner.orgId, name);

const sealContext = (owner: SecretOwner, name: string) =>
  owner.appId ? `scansecret:app:${owner.appId}:${name}` : `scansecret:org:${owner.orgId}:${name}`;

/** The owner's secrets, by name (sealed). */
export async function scanSecretsOf(owner: SecretOwner): Promise<ScanSecretRecord[]> {
  const { pk, skPrefix } = owner.appId
    ? keys.applicationScanSecrets(owner.appId)
    : keys.organizationScanSecrets(owner.orgId);
  return (await queryAll({ partition: pk, skPrefix, consistent: true })).map((item) =>
    fromItem<ScanSecretRecord>(item)!,
  );
}

/** The write of `value` as the owner's secret `name` (created or replaced), sealed. */
export async function scanSecretPut(
  owner: SecretOwner,
  name: string,
  value: string,
  userId: string,
  now = Date.now(),
): Promise<TransactItem> {
  const record: ScanSecretRecord = {
    name,
    sealedValue: await seal(value, sealContext(owner, name)),
    updatedAt: now,
    updatedBy: userId,
  };
  return { Put: { TableName: config.tableName, Item: { ...keyOf(owner, name), entity: 'scanSecret', ...record } } };
}

/** The delete of the owner's secret `name`; its transaction fails (condition `scanSecretGone`) when there is none. */
export const scanSecretDelete = (owner: SecretOwner, name: string): TransactItem =>
  named('scanSecretGone', {
    Delete: { TableName: config.tableName, Key: keyOf(owner, name), ConditionExpression: 'attribute_exists(pk)' },
  });

/**
 * Where each of `names` resolves from in the store: the application's secrets before the organization's. Names in
 * neither are left out (the agent's environment may hold them).
 */
export async function storedSecretOwners(
  appId: string,
  orgId: string,
  names: Iterable<string>,
): Promise<Map<string, 'application' | 'organization'>> {
  const wanted = new Set(names);
  const owners = new Map<string, 'application' | 'organization'>();
  if (!wanted.size) return owners;
  const [own, organization] = await Promise.all([scanSecretsOf({ appId, orgId }), scanSecretsOf({ orgId })]);
  for (const { name } of organization) if (wanted.has(name)) owners.set(name, 'organization');
  for (const { name } of own) if (wanted.has(name)) owners.set(name, 'application');
  return owners;
}

/**
 * The values of `names` a scan of the application resolves from the store: the application's secret, else the
 * organization's (the agent's environment comes after both, on the agent). Names in neither are left out.
 */
export async function resolveScanSecrets(
  appId: string,
  orgId: string,
  names: Iterable<string>,
): Promise<Record<string, string>> {
  const wanted = new Set(names);
  if (!wanted.size) return {};
  const [own, organization] = await Promise.all([scanSecretsOf({ appId, orgId }), scanSecretsOf({ orgId })]);
  const resolved: Record<string, string> = {};
  // The application's are written last: they win.
  for (const [owner, records] of [
    [{ orgId }, organization],
    [{ appId, orgId }, own],
  ] as const) {
    for (const record of records)
      if (wanted.has(record.name))
        resolved[record.name] = await unseal(record.sealedValue, sealContext(owner, record.name));
  }
  return resolved;
}

/** A secret the owner holds: its value, and its sealed value (unique to each write: what reusing it conditions on). */
export interface HeldSecret {
  value: string;
  sealedValue: string;
}

/**
 * The owner's secrets, by name, with their values: a save's or a migration's, whose credentials reuse the secret
 * holding their value and never replace one holding another (shared/scans/secret-references.ts).
 */
export async function heldScanSecrets(owner: SecretOwner): Promise<Map<string, HeldSecret>> {
  const records = await scanSecretsOf(owner);
  return new Map(
    await Promise.all(
      records.map(
        async (record) =>
          [
            record.name,
            {
              value: await unseal(record.sealedValue, sealContext(owner, record.name)),
              sealedValue: record.sealedValue,
            },
          ] as const,
      ),
    ),
  );
}

/** The write of a new secret; its transaction fails (condition `secretTaken`) when one of its name appeared meanwhile. */
export async function scanSecretAdd(
  owner: SecretOwner,
  name: string,
  value: string,
  userId: string,
): Promise<TransactItem> {
  const { Put } = await scanSecretPut(owner, name, value, userId);
  return named('secretTaken', { Put: { ...Put!, ConditionExpression: 'attribute_not_exists(pk)' } });
}

/** The check that a reused secret still holds what was read; its transaction fails (`secretTaken`) when it changed. */
export const scanSecretUnchanged = (owner: SecretOwner, name: string, held: HeldSecret): TransactItem =>
  named('secretTaken', {
    ConditionCheck: {
      TableName: config.tableName,
      Key: keyOf(owner, name),
      ConditionExpression: 'sealedValue = :sealedValue',
      ExpressionAttributeValues: { ':sealedValue': held.sealedValue },
    },
  });

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*)?\}/g;

/** The names a configuration's text references as `${NAME}` (or `${NAME:default}`). */
export const referencedNames = (text: string): Set<string> =>
  new Set([...text.matchAll(REFERENCE)].map((match) => match[1]));
