import { randomUUID } from 'node:crypto';
import { accessibleApplication } from '../applications/access.ts';
import { auditEntry } from '../audit/entries.ts';
import { config } from '../config.ts';
import { s3 } from '../storage/s3.ts';
import { objectKeys } from '../storage/objects.ts';
import { presignedDownload } from './downloads.ts';
import { descriptionText, validateDescription, type ValidDescription } from './openapi-validation.ts';
import { commitToLiveApplication, requireLiveApplication } from '../applications/application-repository.ts';
import { deleteUnreferencedObject } from '../storage/objects-io.ts';
import type { Caller } from '../context/caller.ts';
import type { ApplicationRecord } from '../applications/model.ts';
import {
  getHostedDescription,
  putDescriptionRoutes,
  replaceHostedDescription,
  type HostedDescriptionRecord,
} from './repository.ts';

// POST /api/v1/oas/{appId}/upload (docs/HOSTED-ASSETS.md, Uploading a description): kept apart from the other
// OAS operations because the validator it needs is most of its Lambda bundle.

/**
 * Validates and stores an application's description, replacing the current one (uploadOASForApplication). The new
 * version is written to S3 under a key of its own first; then one transaction makes it current and writes the
 * audit entry; only then is the replaced version deleted. Readers follow the metadata item, so they see the old
 * description or the new one, never a partial one, and a failed commit leaves the old one in place.
 */
export async function uploadDescription(
  caller: Caller,
  appId: string,
  body: Buffer,
  contentTypeHeader: string | undefined,
) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true, deniedStatus: 403 });
  const description = await validateDescription(descriptionText(body, contentTypeHeader));
  return storeHostedDescription(caller, app, description);
}

/**
 * Makes a validated description the application's hosted one, as uploadDescription does; `auditDetails` add to
 * the audit entry's payload (where the description came from: useDiscoveredOpenApiSpec names its profile scan).
 */
export async function storeHostedDescription(
  caller: Caller,
  app: ApplicationRecord,
  description: ValidDescription,
  auditDetails: Record<string, unknown> = {},
) {
  const { PutObjectCommand } = await import('@aws-sdk/client-s3'); // loaded on use: see storage/s3.ts
  const appId = app.applicationId;
  const version = randomUUID();
  const stored = Buffer.from(description.text, 'utf8');
  const record: HostedDescriptionRecord = {
    applicationId: appId,
    organizationId: app.organizationId,
    version,
    objectKey: objectKeys.hostedDescription(appId, version),
    contentType: description.format === 'json' ? 'application/json' : 'application/yaml',
    sizeBytes: stored.length,
    openapiVersion: description.openapiVersion,
    uploadedAt: Date.now(),
    uploadedBy: caller.userId,
  };
  await (
    await s3()
  ).send(
    new PutObjectCommand({
      Bucket: config.assetsBucket,
      Key: record.objectKey,
      Body: stored,
      ContentType: `${record.contentType}; charset=utf-8`,
    }),
  );
  const audit = auditEntry(caller, app.organizationId, 'ORGANIZATION_CONFIGURATION_MODIFIED', {
    appId,
    appName: app.name,
    oasId: appId,
    openapiVersion: record.openapiVersion,
    fileSize: record.sizeBytes,
    ...auditDetails,
  });
  let replaced: HostedDescriptionRecord | undefined;
  try {
    await commitToLiveApplication(appId, async () => {
      replaced = await getHostedDescription(appId);
      return [
        requireLiveApplication(appId),
        replaceHostedDescription(record, replaced?.version),
        ...putDescriptionRoutes(appId, version, description.routes),
        audit,
      ];
    });
  } catch (error) {
    await deleteUnreferencedObject(record.objectKey);
    throw error;
  }
  if (replaced) await deleteUnreferencedObject(replaced.objectKey);
  return {
    oasId: appId,
    fileSize: record.sizeBytes,
    openapiVersion: record.openapiVersion,
    ...(await presignedDownload(record.objectKey)),
  };
}
