import { accessibleApplication } from '../applications/access.ts';
import { keys } from '../db/keys.ts';
import { getItem } from '../db/query.ts';
import { badRequest, notFound } from '../errors.ts';
import type { Caller } from '../context/caller.ts';
import { storeHostedDescription } from '../hosted-assets/oas-upload.ts';
import { validateDescription } from '../hosted-assets/openapi-validation.ts';
import { objectKeys } from '../storage/objects.ts';
import { readObjectText } from '../storage/objects-io.ts';
import { parsed } from './profiles.ts';

/**
 * POST /api/v1/app/{appId}/profile/results/{scanId}/use-spec (useDiscoveredOpenApiSpec): the description a profile
 * scan found and kept becomes the application's hosted one, through uploadOASForApplication's write path (new
 * version, one transaction with its audit entry, the replaced version deleted). It is validated again first, so
 * what becomes hosted passes the validator of today.
 */
export async function useDiscoveredOpenApiSpec(caller: Caller, appId: string, scanId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true, deniedStatus: 403 });
  const item = await getItem(keys.profileResult(appId, scanId));
  if (!item) throw notFound(`no profile scan result ${scanId} in application ${appId}`);
  const result = parsed(item);
  const status = result.discoveredOpenapiSpecStatus;
  if (!result.discoveredOpenapiSpecPath)
    throw badRequest(`profile scan ${scanId} found no API description: upload one (uploadOASForApplication)`);
  if (status === 'INVALID')
    throw badRequest(
      `the API description profile scan ${scanId} found (${result.discoveredOpenapiSpecPath}) is not valid: ${result.discoveredOpenapiSpecProblem}; fix it on the target and profile again, or upload one (uploadOASForApplication)`,
    );
  // One the validator could not finish is kept too: validating it again here decides. (A result without a
  // status is from before descriptions were kept.)
  const kept = status === 'VALID' || status === 'NOT_VALIDATED';
  const text = kept ? await readObjectText(objectKeys.profileDescription(appId, scanId)) : undefined;
  if (text === undefined)
    throw badRequest(
      `the API description profile scan ${scanId} found is not kept${status === 'NOT_VALIDATED' ? ` (${result.discoveredOpenapiSpecProblem})` : ''}: profile the target again`,
    );
  return storeHostedDescription(caller, app, await validateDescription(text), {
    profileScanId: scanId,
    sourcePath: result.discoveredOpenapiSpecPath,
  });
}
