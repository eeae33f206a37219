import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { config } from '../../shared/config.ts';
import { objectKeys } from '../../shared/storage/objects.ts';
import { putObject } from '../../shared/storage/objects-io.ts';

// Configurations as the versions before credentials moved into scan secrets stored them (docs/HOSTED-SCANS.md,
// "Scan configurations and their credentials"), written straight to the local engines.

/** A configuration as the versions before this change stored it: its text as sent, credentials and all. */
export async function legacyOrganizationConfiguration(orgId: string, name: string, text: string): Promise<void> {
  const version = randomUUID();
  const objectKey = objectKeys.organizationAsset(orgId, 'configuration', version);
  await putObject(objectKey, text, 'application/yaml; charset=utf-8');
  await db.send(
    new PutCommand({
      TableName: config.tableName,
      Item: {
        ...keys.organizationAsset(orgId, 'configuration', name),
        entity: 'organizationAsset',
        organizationId: orgId,
        kind: 'configuration',
        name,
        version,
        objectKey,
        sizeBytes: Buffer.byteLength(text),
        updatedAt: Date.now(),
        updatedBy: 'legacy',
        details: { configType: 'ORG' },
      },
    }),
  );
}
