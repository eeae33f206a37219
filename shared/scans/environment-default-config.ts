import { createHash, randomUUID } from 'node:crypto';
import { accessibleEnvironment } from '../applications/access.ts';
import { environmentDefaultConfigUpdate } from '../applications/environment-repository.ts';
import { auditEntry } from '../audit/entries.ts';
import { transactWrite } from '../db/transactions.ts';
import { conditionFailed } from '../db/items.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { objectKeys } from '../storage/objects.ts';
import { deleteUnreferencedObject, putObject, readObjectText } from '../storage/objects-io.ts';
import { messageProblems } from '../proto/encoding.ts';
import type { Caller } from '../context/caller.ts';
import { REDACTED, redactCredentials } from './redaction.ts';
import { authorizationProblems, withoutAuthorization } from './authorization-config.ts';
import { movedSecretWrites, secretRaceConflict, secretsHeldFor, withSecretReferences } from './secret-references.ts';
import type { CreateEnvironmentDefaultConfig } from './inputs.ts';

// GET/POST /api/v1/app/{appId}/env/{envId}/config/default: the environment's default stackhawk.yml, first written
// when the environment is created, then replaced as a whole. Stored as JSON (a YAML 1.2 document), so neither
// function bundles a YAML parser. A replacement is a new object made current by one transaction with the
// environment's ENVIRONMENT_MODIFIED entry; the replaced object is deleted after it.

const CONF_TYPE = 'hawkscan.HawkscanConf';
const MAX_CONFIG_BYTES = 256 * 1024;

/** `application.ApplicationConfigResponse`: the configuration (credentials redacted) and the hash of its stored text. */
export async function environmentDefaultConfig(caller: Caller, appId: string, envId: string) {
  const { env } = await accessibleEnvironment(caller, appId, envId, { teamRestricted: true });
  const text = await readObjectText(env.defaultConfigKey ?? objectKeys.environmentConfig(appId, envId));
  if (text === undefined) throw notFound(`environment ${envId} has no default configuration`);
  return {
    configHash: createHash('sha256').update(text, 'utf8').digest('hex'),
    conf: redactCredentials(JSON.parse(text)),
  };
}

export async function replaceEnvironmentDefaultConfig(
  caller: Caller,
  appId: string,
  envId: string,
  body: CreateEnvironmentDefaultConfig,
): Promise<object> {
  if (body.applicationId && body.applicationId !== appId)
    throw badRequest(`body.applicationId: must be the application of the path, ${appId}`);
  if (body.envId && body.envId !== envId) throw badRequest(`body.envId: must be the environment of the path, ${envId}`);
  const problems = [
    ...messageProblems(CONF_TYPE, withoutAuthorization(body.conf), 'body.conf'),
    ...authorizationProblems(body.conf, 'body.conf'),
  ];
  if (problems.length) throw badRequest(`not a HawkScan configuration: ${problems.join('; ')}`);
  const { app, env } = await accessibleEnvironment(caller, appId, envId, { teamRestricted: true });
  // Literal credentials move into the application's scan secrets (docs/HOSTED-SCANS.md, "Scan secrets").
  const owner = { appId, orgId: app.organizationId };
  const held = await secretsHeldFor(owner, body.conf);
  const { conf, moved } = withSecretReferences(body.conf, held);
  const text = `${JSON.stringify(conf, null, 2)}\n`;
  // A configuration read back and saved as it was would store the marker in place of the credential.
  if (text.includes(JSON.stringify(REDACTED)))
    throw badRequest(
      `body.conf: a value reads ${REDACTED}, as reads show a credential: give the credential or a \${HAWK_SCAN_*} reference`,
    );
  if (Buffer.byteLength(text) > MAX_CONFIG_BYTES)
    throw badRequest(`body.conf: must be at most ${MAX_CONFIG_BYTES} bytes as JSON`);

  const movedSecrets = moved.map((secret) => secret.name);
  const secretWrites = await movedSecretWrites(owner, moved, caller.userId, held);
  const objectKey = objectKeys.environmentDefaultConfig(appId, envId, randomUUID());
  await putObject(objectKey, text, 'application/json');
  const audit = auditEntry(caller, app.organizationId, 'ENVIRONMENT_MODIFIED', {
    applicationId: appId,
    appName: app.name,
    envId,
    envName: env.name,
    defaultConfig: 'replaced',
    ...(moved.length ? { movedSecrets } : {}),
  });
  try {
    await transactWrite([...environmentDefaultConfigUpdate(env, objectKey), ...secretWrites, audit]);
  } catch (error) {
    await deleteUnreferencedObject(objectKey);
    secretRaceConflict(error);
    if (conditionFailed(error, 'environmentChanged'))
      throw conflict(`environment ${envId} was changed or deleted concurrently; retry`);
    throw error;
  }
  await deleteUnreferencedObject(env.defaultConfigKey ?? objectKeys.environmentConfig(appId, envId));
  return { movedSecrets };
}
