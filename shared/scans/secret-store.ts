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

/** The owner's secrets' values, by name (a migration's: configurations moved into them reuse their names). */
export async function scanSecretValues(owner: SecretOwner): Promise<Map<string, string>> {
  const records = await scanSecretsOf(owner);
  return new Map(
    await Promise.all(
      records.map(
        async (record) => [record.name, await unseal(record.sealedValue, sealContext(owner, record.name))] as const,
      ),
    ),
  );
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*)?\}/g;

/** The names a configuration's text references as `${NAME}` (or `${NAME:default}`). */
export const referencedNames = (text: string): Set<string> =>
  new Set([...text.matchAll(REFERENCE)].map((match) => match[1]));
