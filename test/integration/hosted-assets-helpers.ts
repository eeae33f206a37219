import { randomUUID } from 'node:crypto';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { config } from '../../shared/config.ts';
import { s3 } from '../../shared/storage/s3.ts';
import { objectKeys } from '../../shared/storage/objects.ts';
import { putMembership } from '../../shared/identity/membership-repository.ts';
import type { AuditRecord } from '../../shared/audit/model.ts';
import type { ApplicationRecord } from '../../shared/applications/model.ts';
import type { Permission } from '../../shared/context/permissions.ts';

// Test data for the hosted-asset suites, written straight to the local engines.

/** An application record as the applications issue stores it (only the fields reads need). */
export async function seedApplication(
  orgId: string,
  options: { teamId?: string; name?: string } = {},
): Promise<string> {
  const applicationId = randomUUID();
  const record: ApplicationRecord = {
    applicationId,
    organizationId: orgId,
    name: options.name ?? `app-${applicationId.slice(0, 8)}`,
    applicationType: 'STANDARD',
    applicationStatus: 'ENV_INCOMPLETE',
    teamId: options.teamId,
    environmentCount: 0,
    createdAt: Date.now(),
  };
  await db.send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...keys.application(applicationId), entity: 'application', ...record },
    }),
  );
  return applicationId;
}

/** Sets a member's permissions and, seeded directly (without team items), its teams. */
export async function setMembership(
  orgId: string,
  userId: string,
  permissions: Permission[],
  teamIds: string[],
): Promise<void> {
  await putMembership(
    { organizationId: orgId, userId, role: 'MEMBER', permissions, createdAt: Date.now() },
    { replace: true },
  );
  const { pk, sk } = keys.membership(orgId, userId);
  await db.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: { pk, sk },
      UpdateExpression: 'SET teamIds = :teams',
      ExpressionAttributeValues: { ':teams': teamIds },
    }),
  );
}

export async function auditEntriesOf(orgId: string): Promise<AuditRecord[]> {
  const out = await db.send(
    new QueryCommand({
      TableName: config.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.auditEntriesOfOrg(orgId).pk },
    }),
  );
  return (out.Items ?? []) as AuditRecord[];
}

export async function storedDescriptionKeys(appId: string): Promise<string[]> {
  const out = await (
    await s3()
  ).send(
    new ListObjectsV2Command({ Bucket: config.assetsBucket, Prefix: `${objectKeys.applicationPrefix(appId)}oas/` }),
  );
  return (out.Contents ?? []).map((o) => o.Key!);
}

/** Fetches a presigned URL the way a client does: no credentials. */
export async function download(url: string): Promise<{ status: number; bytes: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
}

export const yaml30 = (title = 'Pets') => `openapi: 3.0.3
info:
  title: ${title}
  version: 1.0.0
paths:
  /pets:
    get:
      summary: List pets
      responses:
        '200':
          description: Success
`;

export const yaml31 = (title = 'Pets') => `openapi: 3.1.0
info:
  title: ${title}
  version: 1.0.0
paths:
  /pets/{petId}:
    get:
      parameters:
        - name: petId
          in: path
          required: true
          schema: {type: string}
      responses:
        '200':
          description: Success
          content:
            application/json:
              schema: {type: [object, 'null']}
`;

export const json30 = (title = 'Pets') =>
  JSON.stringify(
    {
      openapi: '3.0.0',
      info: { title, version: '1.0.0' },
      paths: { '/users': { get: { summary: 'List users', responses: { '200': { description: 'Success' } } } } },
    },
    null,
    2,
  );

export const json31 = (title = 'Pets') =>
  JSON.stringify({
    openapi: '3.1.0',
    info: { title, version: '1.0.0' },
    paths: { '/health': { get: { responses: { '204': { description: 'Up' } } } } },
  });
