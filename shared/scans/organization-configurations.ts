import { conflict } from '../errors.ts';
import { organizationAssetDownload, organizationAssetText } from '../hosted-assets/organization-assets.ts';
import { checkedConfiguration, upsertScanConfiguration } from '../scan-configurations/upsert.ts';
import { parseConfiguration, UpsertScanConfiguration } from '../scan-configurations/model.ts';
import type { Caller } from '../context/caller.ts';
import {
  literalCredentialPaths,
  movedSecretWrites,
  secretRaceConflict,
  secretsHeldFor,
  textWithSecretReferences,
} from './secret-references.ts';

// Organization scan configurations and their credentials (docs/HOSTED-SCANS.md, "Scan configurations and their
// credentials"): HawkScan downloads their text to scan with, so no literal credential is stored in it. Saving one
// moves its literal credentials into the organization's scan secrets; a download of a text stored before that
// (not yet migrated: npm run migrate) is refused rather than served.

/** POST /api/v1/configuration/{orgId}/update (setScanConfigurationForOrg): `hawk.SavedScanConfig`. */
export async function saveScanConfiguration(caller: Caller, orgId: string, input: UpsertScanConfiguration) {
  const parsed = checkedConfiguration(input.conf);
  const held = await secretsHeldFor({ orgId }, parsed);
  const { text, moved } = textWithSecretReferences(input.conf, parsed, held);
  const items = await movedSecretWrites({ orgId }, moved, caller.userId, held);
  const movedSecrets = moved.map((secret) => secret.name);
  await upsertScanConfiguration(caller, orgId, { ...input, conf: text }, { items, names: movedSecrets }).catch(
    (error: unknown) => {
      secretRaceConflict(error);
      throw error;
    },
  );
  return { movedSecrets };
}

/**
 * 409 when a stored configuration's text holds a literal credential (or cannot be read as YAML to tell), naming
 * where; `what` names it in the message, `fix` says how it goes.
 */
export function refuseLiteralCredentials(text: string, what: string, fix: string): void {
  const { value } = parseConfiguration(text);
  const paths = value ? literalCredentialPaths(value) : ['(the text is not a YAML mapping)'];
  if (paths.length)
    throw conflict(
      `${what} holds a literal credential (${paths.slice(0, 5).join(', ')}), which no read returns: ${fix}`,
    );
}

/** GET /api/v1/configuration/{orgId}/{configName} (getScanConfigurationForOrg). */
export async function scanConfigurationDownload(orgId: string, name: string, redirect: boolean) {
  const text = await organizationAssetText('configuration', orgId, name);
  if (text !== undefined)
    refuseLiteralCredentials(
      text,
      `scan configuration ${name}`,
      'it was stored before credentials moved into scan secrets; an operator runs `npm run migrate` (npm start does it itself), or save it again',
    );
  return organizationAssetDownload('configuration', orgId, name, redirect);
}
