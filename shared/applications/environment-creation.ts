import { s3 } from '../storage/s3.ts';
import { objectKeys } from '../storage/objects.ts';
import { config } from '../config.ts';
import type { EnvironmentRecord } from './model.ts';

// What creating an environment needs, both alone (create environment) and with its application (create
// application with `env`): the name rule, the record and its default hosted scan configuration in S3.

/**
 * Stores the new environment's default hosted scan configuration (a stackhawk.yml naming the application, the
 * environment and the host), then runs `commit`. The object is written first and removed if the commit fails, so
 * a committed environment always has its configuration and a failed create leaves nothing behind.
 */
export async function writeEnvironmentConfig(
  env: EnvironmentRecord | undefined,
  host: string | null | undefined,
  commit: () => Promise<void>,
): Promise<void> {
  if (!env) return commit();
  const Key = objectKeys.environmentConfig(env.applicationId, env.environmentId);
  const app = { applicationId: env.applicationId, env: env.name, ...(host ? { host } : {}) };
  const { DeleteObjectCommand, PutObjectCommand } = await import('@aws-sdk/client-s3'); // loaded on use: see storage/s3.ts
  const client = await s3();
  await client.send(
    new PutObjectCommand({
      Bucket: config.assetsBucket,
      Key,
      Body: asYaml({ app }),
      ContentType: 'application/x-yaml',
    }),
  );
  try {
    await commit();
  } catch (error) {
    await client.send(new DeleteObjectCommand({ Bucket: config.assetsBucket, Key })).catch(() => undefined);
    throw error;
  }
}

/** JSON is a YAML 1.2 document: a flat config needs no YAML library, which keeps it out of these functions' bundles. */
function asYaml(document: object): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
