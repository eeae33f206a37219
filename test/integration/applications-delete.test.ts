import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { api } from './client.ts';
import { createTenant } from './fixtures.ts';
import { auditTypes } from './app-helpers.ts';
import {
  getApplication,
  applicationDeletingMark,
  applicationRename,
  getApplicationIncludingDeleting,
} from '../../shared/applications/application-repository.ts';
import {
  environmentCreation,
  environmentDeletingMark,
  getEnvironment,
} from '../../shared/applications/environment-repository.ts';
import { newEnvironment } from '../../shared/applications/model.ts';
import { auditEntry } from '../../shared/audit/entries.ts';
import { transactWrite } from '../../shared/db/transactions.ts';
import { queryAll } from '../../shared/db/query.ts';
import { keys, trigrams } from '../../shared/db/keys.ts';
import { db } from '../../shared/db/client.ts';
import { config } from '../../shared/config.ts';
import { s3 } from '../../shared/storage/s3.ts';
import { objectKeys } from '../../shared/storage/objects.ts';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';

/** An application with `envCount` environments (seeded through the repositories) and `dataPerEnv` scan-data items each. */
async function seedApplication(tenant: Awaited<ReturnType<typeof createTenant>>, envCount: number, dataPerEnv = 0) {
  const app = (await api('POST', `/api/v1/org/${tenant.orgId}/app`, { token: tenant.token, body: { name: 'big' } }))
    .body;
  const envIds: string[] = [];
  for (let i = 0; i < envCount; i++) {
    const record = (await getApplication(app.applicationId))!;
    const env = newEnvironment(record, `env-${String(i).padStart(4, '0')}`);
    await transactWrite(await environmentCreation(record, env));
    envIds.push(env.environmentId);
    await (
      await s3()
    ).send(
      new PutObjectCommand({
        Bucket: config.assetsBucket,
        Key: objectKeys.environmentConfig(app.applicationId, env.environmentId),
        Body: 'app: {}',
      }),
    );
  }
  const data = envIds.flatMap((envId) =>
    Array.from({ length: dataPerEnv }, (_, i) => ({
      pk: keys.environmentData(app.applicationId, envId).pk,
      sk: `${keys.environmentData(app.applicationId, envId).skPrefix}SCAN#${i}`,
      entity: 'scan',
    })),
  );
  for (let i = 0; i < data.length; i += 25) {
    await db.send(
      new BatchWriteCommand({
        RequestItems: { [config.tableName]: data.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
  }
  await (
    await s3()
  ).send(
    new PutObjectCommand({
      Bucket: config.assetsBucket,
      Key: objectKeys.hostedDescription(app.applicationId, 'v1'),
      Body: 'openapi: 3.0.0',
    }),
  );
  return { appId: app.applicationId as string, envIds };
}

/** The name trigram postings an environment named `env-<i>` has in its application's partition (keys.ts nameIndex). */
const postingsOfEnv = (i: number) => trigrams(`env-${String(i).padStart(4, '0')}`).length - 1;
const partitionSize = async (appId: string) =>
  (await queryAll({ partition: keys.applicationPartition(appId).pk, attributes: ['pk', 'sk'] })).length;
const objectsUnder = async (prefix: string) =>
  (await (await s3()).send(new ListObjectsV2Command({ Bucket: config.assetsBucket, Prefix: prefix }))).KeyCount ?? 0;

describe('cascade deletes (docs/API.md, Deletes)', () => {
  it('deletes an application with more environments and scan data than one transaction holds, and its stored objects', async () => {
    const tenant = await createTenant();
    const { appId, envIds } = await seedApplication(tenant, 120, 2);
    const postings = Array.from({ length: 120 }, (_, i) => postingsOfEnv(i)).reduce((a, b) => a + b, 0);
    expect(await partitionSize(appId)).toBe(1 + 120 * 4 + postings); // record + (environment, name claim, 2 scan items, name postings) each
    expect(await objectsUnder(objectKeys.applicationPrefix(appId))).toBe(1 + 120); // description + default configs
    expect((await api('GET', `/api/v2/org/${tenant.orgId}/envs`, { token: tenant.token })).body.totalCount).toBe('120');

    expect((await api('DELETE', `/api/v1/app/${appId}`, { token: tenant.token })).status).toBe(200);
    expect(await partitionSize(appId)).toBe(0);
    expect(await objectsUnder(objectKeys.applicationPrefix(appId))).toBe(0);
    expect((await api('GET', `/api/v1/app/${appId}`, { token: tenant.token })).status).toBe(404);
    expect((await api('DELETE', `/api/v1/app/${appId}`, { token: tenant.token })).status).toBe(404);
    const envs = await api('GET', `/api/v2/org/${tenant.orgId}/envs`, { token: tenant.token });
    expect(envs.body).toMatchObject({ environments: [], totalCount: '0' });
    expect(await getEnvironment(appId, envIds[0])).toBeUndefined();
    expect(await auditTypes(tenant)).toEqual(['APPLICATION_ADDED', 'APPLICATION_REMOVED']);
  }, 120_000);

  it('an interrupted delete hides everything at once and a repeated DELETE finishes it (one APPLICATION_REMOVED)', async () => {
    const tenant = await createTenant();
    const { appId } = await seedApplication(tenant, 3, 1);
    const other = (
      await api('POST', `/api/v1/org/${tenant.orgId}/app`, { token: tenant.token, body: { name: 'other', env: 'x' } })
    ).body;
    // The delete's first step (the mark with its audit entry) commits, then the process "dies".
    const app = (await getApplication(appId))!;
    await transactWrite([
      ...applicationDeletingMark(app),
      await auditEntry(tenant, tenant.orgId, 'APPLICATION_REMOVED', { applicationId: appId }),
    ]);

    expect((await api('GET', `/api/v1/app/${appId}`, { token: tenant.token })).status).toBe(404);
    expect((await api('POST', `/api/v1/app/${appId}/env`, { token: tenant.token, body: { env: 'late' } })).status).toBe(
      404,
    );
    expect((await api('GET', `/api/v1/app/${appId}/env/list`, { token: tenant.token })).status).toBe(404);
    const apps = await api('GET', `/api/v2/org/${tenant.orgId}/apps`, { token: tenant.token });
    expect(apps.body.applications.map((a: { applicationId: string }) => a.applicationId)).toEqual([
      other.applicationId,
    ]);
    expect(apps.body.totalCount).toBe('1');
    const envs = await api('GET', `/api/v2/org/${tenant.orgId}/envs`, { token: tenant.token });
    expect(envs.body.environments.map((e: { applicationId: string }) => e.applicationId)).toEqual([
      other.applicationId,
    ]);
    expect(envs.body.totalCount).toBe('1');
    const v1 = await api('GET', `/api/v1/app/${tenant.orgId}/list`, { token: tenant.token });
    expect(v1.body.applications.map((a: { applicationId: string }) => a.applicationId)).toEqual([other.applicationId]);
    expect(await partitionSize(appId)).toBeGreaterThan(1);

    expect((await api('DELETE', `/api/v1/app/${appId}`, { token: tenant.token })).status).toBe(200);
    expect(await partitionSize(appId)).toBe(0);
    expect(await objectsUnder(objectKeys.applicationPrefix(appId))).toBe(0);
    expect((await auditTypes(tenant)).filter((t) => t === 'APPLICATION_REMOVED')).toHaveLength(1);
  });

  it('deletes an environment with its scan data and configuration; an interrupted environment delete resumes', async () => {
    const tenant = await createTenant();
    const { appId, envIds } = await seedApplication(tenant, 2, 130);
    expect((await api('DELETE', `/api/v1/app/${appId}/env/${envIds[0]}`, { token: tenant.token })).status).toBe(200);
    expect(await partitionSize(appId)).toBe(1 + 2 + 130 + postingsOfEnv(1)); // the record, the other environment with its claim, data and name postings
    expect(await objectsUnder(objectKeys.environmentPrefix(appId, envIds[0]))).toBe(0);
    expect(await objectsUnder(objectKeys.environmentPrefix(appId, envIds[1]))).toBe(1);
    const list = await api('GET', `/api/v1/app/${appId}/env/list`, { token: tenant.token });
    expect(list.body.environments.map((e: { environmentId: string }) => e.environmentId)).toEqual([envIds[1]]);
    // Simulate a crash after the mark: the scan data is still there, the environment is invisible, DELETE resumes.
    const before = await auditTypes(tenant);
    const env = (await getEnvironment(appId, envIds[1]))!;
    await transactWrite(await environmentDeletingMark((await getApplication(appId))!, env));
    expect((await api('GET', `/api/v1/app/${appId}/env/list`, { token: tenant.token })).body.environments).toEqual([]);
    expect((await api('GET', `/api/v1/app/${appId}`, { token: tenant.token })).body.applicationStatus).toBe(
      'ENV_INCOMPLETE',
    );
    expect((await api('DELETE', `/api/v1/app/${appId}/env/${envIds[1]}`, { token: tenant.token })).status).toBe(200);
    expect(await partitionSize(appId)).toBe(1);
    expect(await auditTypes(tenant)).toEqual(before);
  });
});

describe('audit atomicity (docs/API.md, Activity log)', () => {
  it('a cancelled transaction leaves neither the change nor its entry', async () => {
    const tenant = await createTenant();
    const app = (await api('POST', `/api/v1/org/${tenant.orgId}/app`, { token: tenant.token, body: { name: 'keep' } }))
      .body;
    const record = (await getApplicationIncludingDeleting(app.applicationId))!;
    // The rename's condition (a live application) fails because the environment count changed under it:
    // mark with a stale count is refused, and the rename of a deleting application is refused, each with its entry.
    const entry = await auditEntry(tenant, tenant.orgId, 'APPLICATION_REMOVED', { applicationId: app.applicationId });
    await expect(
      transactWrite([...applicationDeletingMark({ ...record, environmentCount: 5 }), entry]),
    ).rejects.toThrow();
    expect((await api('GET', `/api/v1/app/${app.applicationId}`, { token: tenant.token })).status).toBe(200);
    await transactWrite(applicationDeletingMark(record));
    const rename = await auditEntry(tenant, tenant.orgId, 'APPLICATION_MODIFIED', { applicationId: app.applicationId });
    await expect(transactWrite([applicationRename(record, 'changed'), rename])).rejects.toThrow();
    expect((await getApplicationIncludingDeleting(app.applicationId))!.name).toBe('keep');
    expect(await auditTypes(tenant)).toEqual(['APPLICATION_ADDED']);
  });

  it('over HTTP: a refused rename or create (409) writes no entry', async () => {
    const tenant = await createTenant();
    const app = (
      await api('POST', `/api/v1/org/${tenant.orgId}/app`, { token: tenant.token, body: { name: 'a', env: 'dev' } })
    ).body;
    const prod = (
      await api('POST', `/api/v1/app/${app.applicationId}/env`, { token: tenant.token, body: { env: 'prod' } })
    ).body;
    expect(
      (await api('POST', `/api/v1/app/${app.applicationId}/env`, { token: tenant.token, body: { env: 'Dev' } })).status,
    ).toBe(409);
    expect(
      (
        await api('POST', `/api/v1/app/${app.applicationId}/env/${prod.envId}`, {
          token: tenant.token,
          body: { name: 'dev' },
        })
      ).status,
    ).toBe(409);
    expect(await auditTypes(tenant)).toEqual(['APPLICATION_ADDED', 'ENVIRONMENT_ADDED', 'ENVIRONMENT_ADDED']);
    const names = (
      await api('GET', `/api/v1/app/${app.applicationId}/env/list`, { token: tenant.token })
    ).body.environments.map((e: { environmentName: string }) => e.environmentName);
    expect(names).toEqual(['dev', 'prod']);
  });

  it('ids that do not exist are 404 for environment deletes', async () => {
    const tenant = await createTenant();
    const app = (await api('POST', `/api/v1/org/${tenant.orgId}/app`, { token: tenant.token, body: { name: 'a' } }))
      .body;
    expect(
      (await api('DELETE', `/api/v1/app/${app.applicationId}/env/${randomUUID()}`, { token: tenant.token })).status,
    ).toBe(404);
  });
});
