import { describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { api } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { createApp } from './scan-helpers.ts';
import { db } from '../../shared/db/client.ts';
import { config } from '../../shared/config.ts';
import { keys } from '../../shared/db/keys.ts';
import { getItem } from '../../shared/db/query.ts';
import { transactWrite } from '../../shared/db/transactions.ts';
import {
  applicationDeletingMark,
  getApplication,
  getApplications,
} from '../../shared/applications/application-repository.ts';
import { applicationNames } from '../../shared/overview/application-names.ts';

// The overview's copy of its applications' names (docs/GOVERNANCE.md, The overview; overview/application-names.ts,
// applications/projections/overview-names.ts): written back by a read that lacked names, moved out of date by a
// rename or the start of a delete in that write's own transaction, so it never answers a name the application no
// longer has, nor one of an application being deleted or of another organization.

type Overview = Record<string, any>;
const overview = async (tenant: Pick<Tenant, 'orgId' | 'token'>) => {
  const out = await api('GET', `/api/v1/org/${tenant.orgId}/overview`, { token: tenant.token });
  expect(out.status, out.text).toBe(200);
  return out.body as Overview;
};
const stored = async (orgId: string) => (await getItem(keys.overviewNames(orgId), { consistent: true })) ?? {};
const names = async (orgId: string, appIds: string[]) =>
  Object.fromEntries(await applicationNames(orgId, appIds, getApplications));

describe("the overview's copy of application names", () => {
  it('answers only current names: a rename and a delete move it out of date in their own transaction', async () => {
    const tenant = await createTenant();
    const a = await createApp(tenant, { name: 'alpha', env: 'dev' });
    const b = await createApp(tenant, { name: 'beta', env: 'dev' });
    const other = await createTenant();
    const foreign = await createApp(other, { name: 'foreign', env: 'dev' });

    // Built on the first read, at the version it read (none yet); another organization's application is not named.
    expect(await names(tenant.orgId, [a, b, foreign])).toEqual({ [a]: 'alpha', [b]: 'beta' });
    expect(await stored(tenant.orgId)).toMatchObject({ built: 0, names: { [a]: 'alpha', [b]: 'beta' } });
    expect((await stored(tenant.orgId)).version).toBeUndefined();

    // A rename moves the version in the rename's transaction: the copy is not read until built again.
    const renamed = await api('POST', `/api/v1/app/${a}`, { token: tenant.token, body: { name: 'alpha 2' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await stored(tenant.orgId)).toMatchObject({ version: 1, built: 0 });
    expect(await names(tenant.orgId, [a, b])).toEqual({ [a]: 'alpha 2', [b]: 'beta' });
    expect(await stored(tenant.orgId)).toMatchObject({ version: 1, built: 1, names: { [a]: 'alpha 2', [b]: 'beta' } });

    // The start of a delete (its environments' entries may still be listed while the cascade runs) moves it too.
    await transactWrite(applicationDeletingMark((await getApplication(b))!));
    expect(await stored(tenant.orgId)).toMatchObject({ version: 2, built: 1 });
    expect(await names(tenant.orgId, [a, b])).toEqual({ [a]: 'alpha 2' });
    expect(await stored(tenant.orgId)).toMatchObject({ version: 2, built: 2, names: { [a]: 'alpha 2' } });

    // A copy written at another version than the item's (a write between the read and the write back) is not read:
    // the names come from the applications and the copy is rebuilt.
    await db.send(
      new PutCommand({
        TableName: config.tableName,
        Item: {
          ...keys.overviewNames(tenant.orgId),
          entity: 'overviewNames',
          version: 3,
          built: 2,
          names: { [a]: 'x' },
        },
      }),
    );
    expect(await names(tenant.orgId, [a])).toEqual({ [a]: 'alpha 2' });
    expect(await stored(tenant.orgId)).toMatchObject({ version: 3, built: 3, names: { [a]: 'alpha 2' } });
  });

  it('gives the overview the new name after a rename and drops a deleted application', async () => {
    const tenant = await createTenant();
    const idle = await createApp(tenant, { name: 'idle', env: 'staging' });
    const spare = await createApp(tenant, { name: 'spare', env: 'qa' });
    const gapNames = (body: Overview) =>
      Object.fromEntries(body.coverageGaps.environments.map((e: Overview) => [e.applicationId, e.applicationName]));

    expect(gapNames(await overview(tenant))).toEqual({ [idle]: 'idle', [spare]: 'spare' });
    // The second request takes both names from the copy the first one wrote.
    expect(gapNames(await overview(tenant))).toEqual({ [idle]: 'idle', [spare]: 'spare' });
    expect(await stored(tenant.orgId)).toMatchObject({ built: 0, names: { [idle]: 'idle', [spare]: 'spare' } });

    const renamed = await api('POST', `/api/v1/app/${idle}`, { token: tenant.token, body: { name: 'idle renamed' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(gapNames(await overview(tenant))).toEqual({ [idle]: 'idle renamed', [spare]: 'spare' });

    expect((await api('DELETE', `/api/v1/app/${spare}`, { token: tenant.token })).status).toBe(200);
    const after = await overview(tenant);
    expect(gapNames(after)).toEqual({ [idle]: 'idle renamed' });
    expect(after.coverageGaps).toMatchObject({ neverScanned: 1, notScannedIn7Days: 1 });
  });
});
