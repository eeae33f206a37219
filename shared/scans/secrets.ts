import { accessibleApplication } from '../applications/access.ts';
import { auditEntry } from '../audit/entries.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { conditionFailed } from '../db/items.ts';
import { badRequest, notFound } from '../errors.ts';
import type { Caller } from '../context/caller.ts';
import { MAX_SCAN_SECRETS } from './inputs.ts';
import { scanSecretDelete, scanSecretPut, scanSecretsOf, type SecretOwner } from './secret-store.ts';

// The scan secrets operations (docs/HOSTED-SCANS.md, "Scan secrets"): write-only. A secret is set, listed by name
// and removed, each change atomic with its audit entry, which names the secret and never holds its value.

/** The application `{appId}` as the owner of its secrets, with what its audit entries name. */
async function applicationOwner(caller: Caller, appId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  const owner: SecretOwner = { appId, orgId: app.organizationId };
  const audit = (name: string, change: string) =>
    auditEntry(caller, app.organizationId, 'APPLICATION_MODIFIED', {
      applicationId: appId,
      appName: app.name,
      scanSecret: name,
      change,
    });
  return { owner, audit };
}

/** The organization `{orgId}` (its membership checked by the pipeline) as the owner of its secrets. */
function organizationOwner(caller: Caller, orgId: string) {
  const owner: SecretOwner = { orgId };
  const audit = (name: string, change: string) =>
    auditEntry(caller, orgId, 'ORG_SETTINGS_MODIFIED', { setting: 'scanSecret', scanSecret: name, change });
  return { owner, audit };
}

interface Owned {
  owner: SecretOwner;
  audit: (name: string, change: string) => TransactItem;
}

const listed = async ({ owner }: Owned) => ({
  secrets: (await scanSecretsOf(owner)).map((secret) => ({
    name: secret.name,
    updatedAt: new Date(secret.updatedAt).toISOString(),
  })),
});

async function setSecret(caller: Caller, { owner, audit }: Owned, name: string, value: string): Promise<void> {
  const existing = await scanSecretsOf(owner);
  if (!existing.some((secret) => secret.name === name) && existing.length >= MAX_SCAN_SECRETS)
    throw badRequest(`at most ${MAX_SCAN_SECRETS} scan secrets: remove one before adding ${name}`);
  await transactWrite([
    await scanSecretPut(owner, name, value, caller.userId),
    audit(name, existing.some((secret) => secret.name === name) ? 'replaced' : 'added'),
  ]);
}

async function removeSecret({ owner, audit }: Owned, name: string): Promise<void> {
  try {
    await transactWrite([scanSecretDelete(owner, name), audit(name, 'removed')]);
  } catch (error) {
    if (conditionFailed(error, 'scanSecretGone')) throw notFound(`no scan secret named ${name}`);
    throw error;
  }
}

/** GET /api/v1/app/{appId}/secrets (listApplicationScanSecrets): names and times only. */
export const listApplicationScanSecrets = async (caller: Caller, appId: string) =>
  listed(await applicationOwner(caller, appId));

/** PUT /api/v1/app/{appId}/secrets/{name} (setApplicationScanSecret). */
export const setApplicationScanSecret = async (caller: Caller, appId: string, name: string, value: string) =>
  setSecret(caller, await applicationOwner(caller, appId), name, value);

/** DELETE /api/v1/app/{appId}/secrets/{name} (deleteApplicationScanSecret). */
export const deleteApplicationScanSecret = async (caller: Caller, appId: string, name: string) =>
  removeSecret(await applicationOwner(caller, appId), name);

/** GET /api/v1/org/{orgId}/secrets (listOrganizationScanSecrets). */
export const listOrganizationScanSecrets = (caller: Caller, orgId: string) => listed(organizationOwner(caller, orgId));

/** PUT /api/v1/org/{orgId}/secrets/{name} (setOrganizationScanSecret). */
export const setOrganizationScanSecret = (caller: Caller, orgId: string, name: string, value: string) =>
  setSecret(caller, organizationOwner(caller, orgId), name, value);

/** DELETE /api/v1/org/{orgId}/secrets/{name} (deleteOrganizationScanSecret). */
export const deleteOrganizationScanSecret = (caller: Caller, orgId: string, name: string) =>
  removeSecret(organizationOwner(caller, orgId), name);
