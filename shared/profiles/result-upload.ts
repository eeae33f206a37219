import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { failedConditions } from '../db/items.ts';
import { transactWrite } from '../db/transactions.ts';
import { HttpError, badRequest, conflict } from '../errors.ts';
import type { Caller } from '../context/caller.ts';
import { logger } from '../context/logger.ts';
import { validateDescription } from '../hosted-assets/openapi-validation.ts';
import { carriedRun } from '../perch/agents.ts';
import { carriedRunEnd } from '../perch/repository.ts';
import { type PerchRun, isActive } from '../perch/model.ts';
import { wakeAgents } from '../perch/signals.ts';
import { objectKeys } from '../storage/objects.ts';
import { deleteUnreferencedObject, putObject } from '../storage/objects-io.ts';
import type { ProfileResultBody } from './inputs.ts';
import type { StoredResult } from './profiles.ts';
import type { DescriptionCheck } from './model.ts';

// uploadProfileScanResult (docs/PROFILE-SCANS.md): the carrying agent's result, with the API description it found.
// Apart from the reads in profiles.ts because it validates the description: the validator is most of its bundle.

/** The validator's message when it ran out of time or memory (DESCRIPTION_VALIDATION): load, not a verdict. */
const TOO_COSTLY = /^validating it needs more than /;

/**
 * The discovered description checked with the hosted-description validator (uploadOASForApplication's), so the
 * result says whether it can become the hosted one as it is, and why not. `kept` is the text to keep beside the
 * result: a valid one, or one the validator could not finish (useDiscoveredOpenApiSpec validates it again).
 */
async function checkDescription(
  path: string,
  text: string,
): Promise<{ check: DescriptionCheck; kept?: { text: string; contentType: string } }> {
  const check = (status: DescriptionCheck['discoveredOpenapiSpecStatus'], problem = '', version = '') => ({
    discoveredOpenapiSpecStatus: status,
    discoveredOpenapiSpecVersion: version,
    discoveredOpenapiSpecProblem: problem,
  });
  if (!path) return { check: check('') };
  if (!text)
    return { check: check('NOT_VALIDATED', 'the agent did not send the description (too large, or an older agent)') };
  try {
    const valid = await validateDescription(text);
    const contentType = valid.format === 'json' ? 'application/json' : 'application/yaml';
    return { check: check('VALID', '', valid.openapiVersion), kept: { text: valid.text, contentType } };
  } catch (error) {
    if (!(error instanceof HttpError)) {
      logger.error('a discovered description could not be validated', { error });
      return { check: check('NOT_VALIDATED', 'the description could not be validated; profile the target again') };
    }
    const problem = error.message.replace(/^Invalid OpenAPI description: /, '');
    if (TOO_COSTLY.test(problem))
      return { check: check('NOT_VALIDATED', problem), kept: { text, contentType: 'text/plain' } };
    return { check: check('INVALID', problem) };
  }
}

/**
 * PUT /api/v1/app/{appId}/perch/runs/{scanKey}/profile: the carrying agent's result. Stored and the run ended
 * (COMPLETED, its device freed) in one transaction; a run that already ended (stopped) takes no result. The
 * discovered description, when kept, is written beside it first (and deleted again when the transaction fails).
 */
export async function uploadProfileResult(
  caller: Caller,
  appId: string,
  scanKey: string,
  deviceId: string,
  readBody: () => Promise<ProfileResultBody>,
) {
  const run = await carriedRun(caller, appId, scanKey, deviceId);
  if (run.kind !== 'PROFILE') throw badRequest(`run ${scanKey} is a scan, not a profile scan`);
  if (!isActive(run)) throw conflict(`profile scan ${scanKey} already ended (${run.state}): its result is not kept`);
  const { discoveredOpenapiSpec, ...body } = await readBody();
  const { check, kept } = await checkDescription(body.discoveredOpenapiSpecPath, discoveredOpenapiSpec);
  const descriptionKey = objectKeys.profileDescription(appId, scanKey);
  if (kept) await putObject(descriptionKey, kept.text, `${kept.contentType}; charset=utf-8`);
  const now = Date.now();
  const result: StoredResult = { ...body, ...check, scanId: scanKey, timestamp: now };
  const after: PerchRun = { ...run, state: 'COMPLETED', phase: 'completed', updatedAt: now, endedAt: now };
  try {
    await transactWrite([
      // A profile counts against the organization's concurrency limit like a scan (docs/HOSTED-SCANS.md).
      ...carriedRunEnd(run, after, deviceId),
      {
        Put: {
          TableName: config.tableName,
          Item: {
            ...keys.profileResult(appId, scanKey),
            entity: 'profileResult',
            organizationId: run.organizationId,
            scanKey,
            createdAt: now,
            // One JSON attribute: the result is read and answered whole.
            result: JSON.stringify(result),
          },
        },
      },
    ]);
  } catch (error) {
    if (kept) await deleteUnreferencedObject(descriptionKey);
    if (!failedConditions(error).length) throw error;
    throw conflict(`profile scan ${scanKey} changed meanwhile (stopped?): read its status again`);
  }
  await wakeAgents(run.organizationId);
  return {};
}
