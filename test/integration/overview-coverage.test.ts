import { describe, expect, it } from 'vitest';
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api } from './client.ts';
import { createTenant } from './fixtures.ts';
import { alert, completeScan, createApp, reportAlerts, startScan } from './scan-helpers.ts';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { listScope } from '../../shared/applications/list-entries.ts';
import { APPLICATION_TYPES } from '../../shared/applications/model.ts';
import { countEnvironmentCoverage, environmentsOfApp } from '../../shared/applications/environment-repository.ts';
import { markOrganizationCoverageCounted } from '../../shared/applications/coverage-backfill.ts';
import { coverageOfCounters } from '../../shared/overview/coverage.ts';
import { FULL_WALKS, overviewOf } from '../../shared/overview/overview.ts';
import type { Membership } from '../../shared/context/caller.ts';

// The overview's coverage gaps from the coverage counters (shared/overview/coverage.ts; docs/GOVERNANCE.md,
// "The overview") against the full recomputation (overviewOf with FULL_WALKS) on random data: environments created,
// scanned (completed and errored, several times), deleted and their applications deleted, each answer compared at
// times that put the 7- and 30-day bounds on, just before and just after each scan's start; then the same after an
// upgrade's backfill counts data written before the counters.

const DAY = 86_400_000;

/** A deterministic pseudo-random sequence (the failing seed is in the test's name). */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

async function compareAt(orgId: string, times: number[]) {
  const owner = { organizationId: orgId, userId: 'owner', teamIds: [] } as unknown as Membership;
  const scope = await listScope(orgId, owner, [...APPLICATION_TYPES], []);
  for (const now of times) {
    const counted = await coverageOfCounters(orgId, scope, now);
    expect(counted, 'the counters answer').toBeDefined();
    const full = await overviewOf(orgId, (e) => scope.keep(e), now, FULL_WALKS);
    const { environments, ...figures } = full.coverageGaps;
    expect({ ...counted!, listed: counted!.listed.map((e) => e.environmentId) }, `at ${now}`).toEqual({
      ...figures,
      listed: environments.map((e) => e.environmentId),
    });
  }
}

describe('the overview coverage counters', () => {
  for (const seed of [7, 4242]) {
    it(`answer what a full recomputation answers on random data (seed ${seed})`, async () => {
      const next = random(seed);
      const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!;
      const tenant = await createTenant();
      const apps: { appId: string; envs: string[] }[] = [];
      const starts: number[] = [];
      for (let step = 0; step < 24; step++) {
        const roll = next();
        if (apps.length < 3 || roll < 0.2) {
          const appId = await createApp(tenant, { name: `app-${step}`, env: 'e0' });
          apps.push({ appId, envs: ['e0'] });
        } else if (roll < 0.35) {
          const app = pick(apps);
          const env = `e${step}`;
          const out = await api('POST', `/api/v1/app/${app.appId}/env`, { token: tenant.token, body: { env } });
          expect(out.status, out.text).toBe(200);
          app.envs.push(env);
        } else if (roll < 0.85) {
          const app = pick(apps.filter((a) => a.envs.length));
          if (!app) continue;
          const started = await startScan(tenant.token, app.appId, { env: pick(app.envs) });
          starts.push(Date.now());
          await reportAlerts(tenant.token, started.scanId, [alert('40018', 'High', 1 + Math.floor(next() * 3))]);
          await completeScan(tenant.token, started.scanId, next() < 0.3 ? 'ERROR' : 'COMPLETED');
        } else if (roll < 0.93 && apps.length > 1) {
          const app = apps.splice(Math.floor(next() * apps.length), 1)[0]!;
          expect((await api('DELETE', `/api/v1/app/${app.appId}`, { token: tenant.token })).status).toBe(200);
        } else {
          const app = pick(apps.filter((a) => a.envs.length > 1));
          if (!app) continue;
          const [env] = app.envs.splice(Math.floor(next() * app.envs.length), 1);
          const record = (await environmentsOfApp(app.appId)).find((e) => e.name === env)!;
          const out = await api('DELETE', `/api/v1/app/${app.appId}/env/${record.environmentId}`, {
            token: tenant.token,
          });
          expect(out.status, out.text).toBe(200);
        }
      }
      const now = Date.now();
      const bounds = starts.flatMap((t) => [7 * DAY, 30 * DAY].flatMap((d) => [t + d - 1000, t + d + 1000]));
      await compareAt(tenant.orgId, [now, now + 8 * DAY, now + 31 * DAY, ...bounds.slice(0, 12)]);
    });
  }

  it('count data written before them once npm run migrate has run', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'old', env: 'dev' });
    const started = await startScan(tenant.token, appId, { env: 'dev' });
    await completeScan(tenant.token, started.scanId);
    await createApp(tenant, { name: 'never', env: 'prod' });
    // As an earlier version left it: no counters, no marker, environments uncounted.
    const counters = await db.send(
      new QueryCommand({
        TableName: process.env.TABLE_NAME,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
        ExpressionAttributeValues: { ':pk': `ORG#${tenant.orgId}`, ':sk': 'COVERAGE#' },
      }),
    );
    for (const item of counters.Items ?? [])
      await db.send(new DeleteCommand({ TableName: process.env.TABLE_NAME, Key: { pk: item.pk, sk: item.sk } }));
    const envs = await environmentsOfApp(appId);
    for (const env of envs)
      await db.send(
        new UpdateCommand({
          TableName: process.env.TABLE_NAME,
          Key: keys.environment(appId, env.environmentId),
          UpdateExpression: 'REMOVE coverageCounted',
        }),
      );
    const owner = { organizationId: tenant.orgId, userId: 'owner', teamIds: [] } as unknown as Membership;
    const scope = await listScope(tenant.orgId, owner, [...APPLICATION_TYPES], []);
    expect(await coverageOfCounters(tenant.orgId, scope, Date.now())).toBeUndefined();
    // The request still answers, from the walk.
    const before = await api('GET', `/api/v1/org/${tenant.orgId}/overview`, { token: tenant.token });
    expect(before.body.coverageGaps).toMatchObject({ neverScanned: 1, notScannedIn7Days: 1 });

    for (const env of envs) expect(await countEnvironmentCoverage(appId, env.environmentId)).toBe('updated');
    expect(await countEnvironmentCoverage(appId, envs[0]!.environmentId)).toBe('current');
    // What npm run migrate's last step (markCoverageCounted) does for each organization; the whole table's scan is
    // left out here: late in a full run the shared table holds every test's data (CI: past 60 s on a loaded machine).
    await markOrganizationCoverageCounted(tenant.orgId);
    await compareAt(tenant.orgId, [Date.now(), Date.now() + 7 * DAY + 60_000]);
  });
});
