import { DeleteObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { LineCounter, isMap, parseDocument } from 'yaml';
import { badRequest, notFound, unauthorized } from './errors.ts';
import { config } from './config.ts';
import { s3 } from './storage/s3.ts';
import { objectKeys } from './storage/objects.ts';
import { hostedAssetAnswer, presignedDownload } from './hosted-assets.ts';
import { getOrganizations, listMembershipsOfUser } from './repositories/memberships.ts';
import type { Caller } from './http/caller.ts';
import { configNameSchema } from './hosted-asset-inputs.ts';
import type { Permission } from './permissions.ts';

// Global HawkScan configurations (SPEC 4.3): YAML files operators publish by name with the admin CLI, which any
// user permitted to read scan configuration in some organization may fetch. They belong to no organization.

function validName(name: string): string {
  const parsed = configNameSchema.safeParse(name);
  if (!parsed.success) throw badRequest(`--name: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}

async function exists(objectKey: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: config.assetsBucket, Key: objectKey }));
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'NotFound') return false;
    throw error;
  }
}

/**
 * Not tied to an organization, so the route's permission is required in at least one organization whose plan
 * has API access; otherwise 401, like any insufficient authentication (SPEC 5.7).
 */
async function requirePermissionInSomeOrganization(caller: Caller, permission: Permission): Promise<void> {
  const memberships = (await listMembershipsOfUser(caller.userId)).filter((m) => m.permissions.includes(permission));
  const organizations = await getOrganizations(memberships.map((m) => m.organizationId));
  if (!organizations.some((org) => org.apiAccess)) throw unauthorized();
}

export async function globalConfigurationDownload(caller: Caller, permission: Permission, name: string, redirect: boolean) {
  await requirePermissionInSomeOrganization(caller, permission);
  const objectKey = objectKeys.globalConfig(name);
  if (!(await exists(objectKey))) throw notFound(`global configuration ${name} not found`);
  return hostedAssetAnswer(await presignedDownload(objectKey), redirect);
}

/** Admin: publishes (or replaces) a global configuration after checking it is a YAML mapping. */
export async function putGlobalConfiguration(input: { name: string; text: string }): Promise<{ name: string; sizeBytes: number }> {
  const name = validName(input.name);
  const lineCounter = new LineCounter();
  const document = parseDocument(input.text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const [error] = document.errors;
  if (error) {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    throw badRequest(`--file is not valid YAML: ${error.message.split('\n')[0]} (line ${line}, column ${col})`);
  }
  if (!isMap(document.contents)) throw badRequest('--file must hold a YAML mapping (a HawkScan configuration such as `app: ...`)');
  const body = Buffer.from(input.text, 'utf8');
  await s3.send(
    new PutObjectCommand({ Bucket: config.assetsBucket, Key: objectKeys.globalConfig(name), Body: body, ContentType: 'application/yaml; charset=utf-8' }),
  );
  return { name, sizeBytes: body.length };
}

export async function deleteGlobalConfiguration(input: { name: string }): Promise<{ deleted: string }> {
  const name = validName(input.name);
  const objectKey = objectKeys.globalConfig(name);
  if (!(await exists(objectKey))) throw notFound(`global configuration ${name} not found`);
  await s3.send(new DeleteObjectCommand({ Bucket: config.assetsBucket, Key: objectKey }));
  return { deleted: name };
}
