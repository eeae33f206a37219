import { badRequest, notFound } from '../errors.ts';
import { config } from '../config.ts';
import { s3 } from '../storage/s3.ts';
import { objectKeys } from '../storage/objects.ts';
import { hostedAssetAnswer, presignedDownload } from './downloads.ts';
import { requirePermissionInSomeOrganization } from '../identity/sessions.ts';
import type { Caller } from '../context/caller.ts';
import { configNameSchema } from './model.ts';
import type { Permission } from '../context/permissions.ts';

// Global HawkScan configurations (docs/HOSTED-ASSETS.md, Global configuration): YAML files operators publish by name
// with the admin CLI, which any user permitted to read scan configuration in some organization may fetch. They belong
// to no organization. Publishing (which parses YAML) is in global-configuration-admin.ts, so the download function
// bundles no YAML parser.

export function validName(name: string): string {
  const parsed = configNameSchema.safeParse(name);
  if (!parsed.success) throw badRequest(`--name: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}

/**
 * A listing of the exact key rather than a HEAD: on AWS a HEAD of a missing key answers 404 only to a role that may
 * list the whole bucket (403 otherwise), while this needs ListBucket only under the key's own prefix.
 */
export async function exists(objectKey: string): Promise<boolean> {
  const { ListObjectsV2Command } = await import('@aws-sdk/client-s3'); // loaded on use: see storage/s3.ts
  const listed = await (
    await s3()
  ).send(new ListObjectsV2Command({ Bucket: config.assetsBucket, Prefix: objectKey, MaxKeys: 1 }));
  return listed.Contents?.[0]?.Key === objectKey;
}

export async function globalConfigurationDownload(
  caller: Caller,
  permission: Permission,
  name: string,
  redirect: boolean,
) {
  await requirePermissionInSomeOrganization(caller, permission);
  const objectKey = objectKeys.globalConfig(name);
  if (!(await exists(objectKey))) throw notFound(`global configuration ${name} not found`);
  return hostedAssetAnswer(await presignedDownload(objectKey), redirect);
}
