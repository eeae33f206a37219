import { randomUUID } from 'node:crypto';
import { benchTenant, measure, type BenchSection } from './harness.ts';

// V2 list figures (issue 3): p50/p95 latency and DynamoDB read units per request of List Environments V2 and
// List Applications V2, at 1,000, 10,000 and 50,000 environments (one organization each, 5 environments per
// application, half of them "scanned"). Seeding writes the items the repositories build, with BatchWriteItem.
const SCALES = [1_000, 10_000, 50_000];
const ENVS_PER_APP = 5;

const section: BenchSection = {
  name: 'lists',
  async run(ctx) {
    const { applicationPut, organizationCounterChange } = await import('../../shared/applications/application-repository.ts');
    const { environmentPuts } = await import('../../shared/applications/environment-repository.ts');
    const { newEnvironment } = await import('../../shared/applications/environment-creation.ts');
    const { transactWrite } = await import('../../shared/db/transactions.ts');
    const { scopeObservers } = await import('../../shared/request-scope.ts');

    const { batchPut } = await import('../../shared/db/query.ts');
    const writeAll = async (items: Record<string, unknown>[], label: string) => {
      for (let i = 0; i < items.length; i += 5000) {
        await batchPut(items.slice(i, i + 5000), 16);
        ctx.progress(`${label}: ${Math.min(i + 5000, items.length)}/${items.length} items`);
      }
    };

    const results: Record<string, unknown> = {};
    for (const envCount of SCALES) {
      const { orgId, token } = await benchTenant(ctx, `lists-${envCount}`);

      const appCount = envCount / ENVS_PER_APP;
      const items: Record<string, unknown>[] = [];
      const now = Date.now();
      for (let a = 0; a < appCount; a++) {
        const app = {
          applicationId: randomUUID(),
          organizationId: orgId,
          name: `app-${randomUUID().slice(0, 8)}`,
          applicationType: 'STANDARD' as const,
          applicationStatus: 'ACTIVE' as const,
          environmentCount: ENVS_PER_APP,
          createdAt: now,
        };
        items.push(applicationPut(app).Put!.Item as Record<string, unknown>);
        for (let e = 0; e < ENVS_PER_APP; e++) {
          const env = newEnvironment(app, ['dev', 'qa', 'stage', 'prod', `env-${a}`][e]);
          if ((a + e) % 2 === 0) Object.assign(env, { lastScanId: randomUUID(), lastScanStatus: (a + e) % 4 === 0 ? 'COMPLETED' : 'ERROR', lastScanTimestamp: now - ((a * 7 + e) % 60) * 86_400_000 });
          for (const put of environmentPuts(env)) items.push(put.Put!.Item as Record<string, unknown>);
        }
      }
      ctx.progress(`seeding ${envCount} environments (${appCount} applications)`);
      await writeAll(items, `seed ${envCount}`);
      await transactWrite([organizationCounterChange(orgId, 'STANDARD', undefined, { applications: appCount, environments: envCount })]);

      const samples = envCount >= 50_000 ? 20 : 50;
      const probe = async (path: string, query: string) => {
        const url = `${ctx.baseUrl}${path}?${query}`;
        const call = async () => {
          const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
          if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
          return (await response.json()) as { totalCount: string };
        };
        const units: number[] = [];
        scopeObservers.push((scope) => units.push(scope.readUnits ?? 0));
        const body = await call();
        scopeObservers.length = 0;
        const timing = await measure(call, samples, 3);
        return { ...timing, readUnits: Math.round(units[0] * 10) / 10, totalCount: Number(body.totalCount) };
      };
      const envs = `/api/v2/org/${orgId}/envs`;
      const apps = `/api/v2/org/${orgId}/apps`;
      const cases: Record<string, [string, string]> = {
        'envs page0 size10 by name (default)': [envs, 'pageSize=10'],
        'envs page0 size1000 by name': [envs, 'pageSize=1000'],
        'envs page0 size10 by scanDate desc': [envs, 'pageSize=10&sortField=scanDate&sortDir=DESC'],
        'envs page0 size1000 by scanDate desc': [envs, 'pageSize=1000&sortField=scanDate&sortDir=DESC'],
        'envs filter envs=prod size10': [envs, 'pageSize=10&envs=prod'],
        'envs filter lastScanStatus=ERRORED size10': [envs, 'pageSize=10&lastScanStatus=LAST_SCAN_STATUS_ERRORED'],
        'envs filter lastScanStatus=ERRORED size1000': [envs, 'pageSize=1000&lastScanStatus=LAST_SCAN_STATUS_ERRORED'],
        'envs deep page pageToken=500 size10': [envs, 'pageSize=10&pageToken=500'],
        'envs sorted by applicationName (no index) size10': [envs, 'pageSize=10&sortField=applicationName'],
        'apps page0 size10 by name (default)': [apps, 'pageSize=10'],
        'apps page0 size1000 by name': [apps, 'pageSize=1000'],
        'apps sorted by applicationId (no index) size10': [apps, 'pageSize=10&sortField=applicationId'],
        'apps filter applicationStatus=ACTIVE size10': [apps, 'pageSize=10&applicationStatus=ACTIVE'],
        'apps deep page pageToken=100 size10': [apps, 'pageSize=10&pageToken=100'],
      };
      const figures: Record<string, unknown> = {};
      for (const [name, [path, query]] of Object.entries(cases)) {
        ctx.progress(`${envCount} environments: ${name}`);
        figures[name] = await probe(path, query);
      }
      results[`${envCount} environments`] = figures;
    }
    return results;
  },
};

export default section;
