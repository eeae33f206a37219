import { createHash } from 'node:crypto';
import { GetObjectCommand, NoSuchKey, PutObjectCommand } from '@aws-sdk/client-s3';
import { parseDocument, parse } from 'yaml';
import { s3 } from './storage/s3.ts';
import { objectKeys } from './storage/objects.ts';
import { config } from './config.ts';
import { badRequest, notFound } from './errors.ts';
import { messageType } from './proto/encoding.ts';
import { accessibleApplication } from './application-access.ts';
import { environmentsOfApp } from './repositories/environments.ts';
import { configUsedByEnvironments } from './repositories/scans.ts';
import type { Caller } from './http/caller.ts';

// Scan configurations as the scanner reports them (a stackhawk.yml): validated, stored in S3 under their hash,
// read back parsed by GET /api/v1/app/{appId}/config/{configHash}. Only the functions that need `yaml` import this.

const CONF_TYPE = 'hawkscan.HawkscanConf';

/** The reported configuration's hash (hex SHA-256 of the text, so the same text always gets the same hash). */
export function configHashOf(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** 400 unless the text is one YAML document holding a HawkScan configuration (a mapping the API can return). */
export function validateScanConfig(text: string): void {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length) throw badRequest(`config: not valid YAML: ${doc.errors[0].message.split('\n')[0]}`);
  const value = doc.toJS({ maxAliasCount: 100 });
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('config: must be a YAML mapping (a stackhawk.yml with app, hawk, ...)');
  try {
    messageType(CONF_TYPE).fromObject(value);
  } catch (error) {
    throw badRequest(`config: not a HawkScan configuration: ${(error as Error).message}`);
  }
}

/** Stores the configuration under its hash (content-addressed: writing it again changes nothing). */
export async function storeScanConfig(appId: string, configHash: string, text: string): Promise<void> {
  const Key = objectKeys.scanConfig(appId, configHash);
  await s3.send(new PutObjectCommand({ Bucket: config.assetsBucket, Key, Body: text, ContentType: 'application/x-yaml' }));
}

/** application.ApplicationConfigResponse: the configuration a scan of the application reported, parsed. */
export async function getScanConfig(caller: Caller, appId: string, configHash: string) {
  await accessibleApplication(caller, appId, { teamRestricted: true });
  const envIds = (await environmentsOfApp(appId)).map((env) => env.environmentId);
  const missing = () => notFound(`no scan of application ${appId} used configuration ${configHash}`);
  if (!(await configUsedByEnvironments(appId, envIds, configHash))) throw missing();
  try {
    const object = await s3.send(new GetObjectCommand({ Bucket: config.assetsBucket, Key: objectKeys.scanConfig(appId, configHash) }));
    return { configHash, conf: parse(await object.Body!.transformToString('utf8')) };
  } catch (error) {
    if (error instanceof NoSuchKey) throw missing();
    throw error;
  }
}
