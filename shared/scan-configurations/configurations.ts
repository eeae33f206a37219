import { badRequest } from '../errors.ts';
import { compareBy, pageOf, pageTokens, v2PageRequest } from '../lists.ts';
import {
  listOrganizationAssets,
  removeOrganizationAsset,
  renameOrganizationAsset,
} from '../hosted-assets/organization-assets.ts';
import type { Caller } from '../context/caller.ts';
import type { ListScanConfigurationsQuery } from './inputs.ts';

// Organization scan configurations (/api/v1/configuration/{orgId}/...): named stackhawk.yml documents an
// organization keeps for its scans, stored as organization assets (hosted-assets/organization-assets.ts). The
// organization was authorized by the pipeline before these run. Saving one (upsert.ts) parses its YAML: apart, so
// that listing, renaming and deleting do not bundle a YAML parser.

/** POST .../rename. */
export async function renameScanConfiguration(
  caller: Caller,
  orgId: string,
  input: { originalName: string; newName: string },
): Promise<void> {
  if (input.newName === input.originalName) throw badRequest('newName: must differ from originalName');
  await renameOrganizationAsset(
    caller,
    { kind: 'configuration', orgId, ...input },
    {
      type: 'ORGANIZATION_CONFIGURATION_MODIFIED',
      payload: { configName: input.newName, previousName: input.originalName },
    },
  );
}

/** DELETE .../{configName} (ORGANIZATION_CONFIGURATION_REMOVED). */
export function removeScanConfiguration(caller: Caller, orgId: string, name: string): Promise<void> {
  return removeOrganizationAsset(
    caller,
    { kind: 'configuration', orgId, name },
    { type: 'ORGANIZATION_CONFIGURATION_REMOVED', payload: { configName: name } },
  );
}

/** GET .../list: `configuration.ListOrganizationScanConfigurationsResponse`, by name (`query`: part of the name). */
export async function scanConfigurationList(orgId: string, query: ListScanConfigurationsQuery) {
  const request = v2PageRequest(query.page, query.pageToken, query.pageSize);
  const needle = query.query?.toLowerCase() ?? '';
  const all = (await listOrganizationAssets('configuration', orgId))
    .filter((record) => record.name.toLowerCase().includes(needle))
    .sort(
      compareBy(
        (record) => record.name.toLowerCase(),
        (record) => record.name,
        query.sortDir === 'desc' ? 'DESC' : 'ASC',
      ),
    );
  const page = pageOf(all, request);
  return {
    configs: page.items.map((record) => ({ name: record.name, description: '', organizationId: orgId })),
    ...pageTokens(request, page),
  };
}
