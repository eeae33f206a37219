import { GetObjectCommand, NoSuchKey } from '@aws-sdk/client-s3';
import { s3 } from '../storage/s3.ts';
import { objectKeys } from '../storage/objects.ts';
import { config } from '../config.ts';
import { notFound } from '../errors.ts';
import { accessibleApplication } from '../applications/access.ts';
import { environmentsOfApp } from '../applications/environment-repository.ts';
import { configUsedByEnvironments } from './repository.ts';
import type { Caller } from '../http/caller.ts';

/** application.ApplicationConfigResponse: the configuration a scan of the application reported, parsed. */
export async function getScanConfig(caller: Caller, appId: string, configHash: string) {
  await accessibleApplication(caller, appId, { teamRestricted: true });
  const envIds = (await environmentsOfApp(appId)).map((env) => env.environmentId);
  const missing = () => notFound(`no scan of application ${appId} used configuration ${configHash}`);
  if (!(await configUsedByEnvironments(appId, envIds, configHash))) throw missing();
  try {
    const object = await (await s3()).send(new GetObjectCommand({ Bucket: config.assetsBucket, Key: objectKeys.parsedScanConfig(appId, configHash) }));
    return { configHash, conf: JSON.parse(await object.Body!.transformToString('utf8')) };
  } catch (error) {
    if (error instanceof NoSuchKey) throw missing();
    throw error;
  }
}
