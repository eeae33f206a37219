import { badRequest } from '../errors.ts';
import { putOrganizationAsset } from '../hosted-assets/organization-assets.ts';
import type { TransactItem } from '../db/transactions.ts';
import type { Caller } from '../context/caller.ts';
import { parseConfiguration, UpsertScanConfiguration } from './model.ts';

// Saving an organization scan configuration (configurations.ts has the other operations on them).

/**
 * The configuration's text parsed: it must be one YAML mapping (a stackhawk.yml); whether the scanner accepts it is
 * validate's question.
 */
export function checkedConfiguration(conf: string): Record<string, unknown> {
  const parsed = parseConfiguration(conf);
  if (parsed.syntaxError) {
    const { message, line, col } = parsed.syntaxError;
    throw badRequest(`conf: not valid YAML: ${message} (line ${line}, column ${col})`);
  }
  if (!parsed.value) throw badRequest('conf: must be a YAML mapping (a stackhawk.yml with app, hawk, ...)');
  return parsed.value;
}

/**
 * POST .../update: creates or replaces the named configuration (ORGANIZATION_CONFIGURATION_MODIFIED), with the scan
 * secrets its credentials moved to (`moved`: their writes and names, shared/scans/organization-configurations.ts).
 */
export async function upsertScanConfiguration(
  caller: Caller,
  orgId: string,
  input: UpsertScanConfiguration,
  moved: { items: TransactItem[]; names: string[] },
): Promise<void> {
  await putOrganizationAsset(
    caller,
    {
      kind: 'configuration',
      orgId,
      name: input.name,
      text: input.conf,
      contentType: 'application/yaml; charset=utf-8',
      details: { configType: input.configType },
    },
    {
      type: 'ORGANIZATION_CONFIGURATION_MODIFIED',
      payload: {
        configName: input.name,
        configType: input.configType,
        ...(moved.names.length ? { movedSecrets: moved.names } : {}),
      },
    },
    moved.items,
  );
}
