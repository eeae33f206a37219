import { performance } from 'node:perf_hooks';
import { benchTenant, measure, seededIds, type BenchContext, type BenchSection } from './harness.ts';

// List figures (docs/DATA-MODEL.md, Reads): p50/p95 latency, DynamoDB read units, calls and round trips per request of List
// Environments V2 (every sortField both ways, each filter, deep pages), List Applications V2 and the deprecated lists,
// at 1,000, 10,000 and 50,000 environments (one organization each, 5 environments per application, half of them
// scanned, a tenth of the applications owned by a team and one CLOUD application in 50). A second member of no team
// measures the team-restricted view. Seeding writes the items the repositories build with BatchWriteItem, many
// calls in flight. `BENCH_LIST_SCALES=1000,10000` narrows the scales, `BENCH_LIST_CASES=<regular expression>` the
// cases (by name; the write costs are measured only when they are among them).
const SCALES = (process.env.BENCH_LIST_SCALES ?? '1000,10000,50000').split(',').map(Number);
const CASES = new RegExp(process.env.BENCH_LIST_CASES ?? '.');
const ENVS_PER_APP = 5; // as seed-environments.ts writes them
const ENV_SORTS = [
  'environmentName',
  'environmentId',
  'applicationName',
  'scanDate',
  'scanDuration',
  'scanFindingsCounts',
  'mappedRepositoryCount',
  'thirtyDayCommitActivity',
  'flightpathLastUpdated',
];
const APP_SORTS = [
  'applicationName',
  'applicationId',
  'applicationStatus',
  'mappedRepositoryCount',
  'thirtyDayCommitActivity',
];

/**
 * Seeds `envCount` environments (5 per application) of the organization (seed-environments.ts), and makes the
 * measuring member one of the team's. `lastScans: false` leaves every environment unscanned (a section that
 * publishes real scans afterwards: scripts/bench/million-seed.ts); `label` names the ids.
 */
export async function seed(
  ctx: BenchContext,
  orgId: string,
  userId: string,
  envCount: number,
  { label = `lists-${envCount}`, lastScans = true }: { label?: string; lastScans?: boolean } = {},
) {
  const { seedEnvironments } = await import('./seed-environments.ts');
  const { keys } = await import('../../shared/db/keys.ts');
  const { db } = await import('../../shared/db/client.ts');
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  const { config } = await import('../../shared/config.ts');
  // Every id and name is the same in each run (seededIds), so two runs' read units and counts compare exactly.
  const id = seededIds(label);
  const teamId = id('team');
  const applications = envCount / ENVS_PER_APP;
  const environments = await seedEnvironments({ orgId, applications, teamId, id, lastScans, progress: ctx.progress });
  // The measuring member belongs to the team (sees everything); a second member, of no team, sees nine tenths.
  const { pk, sk } = keys.membership(orgId, userId);
  await db.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: { pk, sk },
      UpdateExpression: 'SET teamIds = :t',
      ExpressionAttributeValues: { ':t': [teamId] },
    }),
  );
  const [sample] = environments;
  return { teamId, sampleAppId: sample!.applicationId, sampleEnvId: sample!.environmentId, environments };
}

const section: BenchSection = {
  name: 'lists',
  async run(ctx) {
    const { scopeObservers } = await import('../../shared/context/request-scope.ts');
    const results: Record<string, unknown> = {};
    for (const envCount of SCALES) {
      const tenant = await benchTenant(ctx, `lists-${envCount}`);
      const { orgId, token } = tenant;
      ctx.progress(`seeding ${envCount} environments (${envCount / ENVS_PER_APP} applications)`);
      const { teamId, sampleAppId, sampleEnvId } = await seed(ctx, orgId, tenant.userId, envCount);
      const outsider = await benchTenant(ctx, `lists-${envCount}-outsider`, orgId);

      const probe = async (path: string, query: string, bearer = token) => {
        const url = `${ctx.baseUrl}${path}${query ? `?${query}` : ''}`;
        const call = async () => {
          const response = await fetch(url, { headers: { authorization: `Bearer ${bearer}` } });
          if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
          return (await response.json()) as { totalCount: string };
        };
        const scopes: { readUnits?: number; dynamodbCalls: number; dynamodbRoundTrips?: number }[] = [];
        scopeObservers.push((scope) => scopes.push({ ...scope }));
        const first = performance.now();
        const body = await call().catch((error: Error) => error);
        const firstMs = performance.now() - first;
        // A request that fails (e.g. the local server's 29 s limit on an unindexed sort) is recorded, not fatal.
        if (body instanceof Error) {
          scopeObservers.length = 0;
          return { failed: body.message.slice(0, 200), firstMs: Math.round(firstMs) };
        }
        // Slow cases (the unindexed ones before the list indexes took seconds) are timed once (the first call) or a few
        // times.
        const ms = Math.round(firstMs * 100) / 100;
        const timing =
          firstMs > 1000
            ? { n: 1, p50Ms: ms, p95Ms: ms, meanMs: ms }
            : await measure(call, firstMs > 200 ? 5 : envCount >= 50_000 ? 20 : 30, firstMs > 200 ? 0 : 3).catch(
                (error: Error) => ({ failed: error.message.slice(0, 200) }),
              );
        // A slow case timed once: one request more, for what it costs once it has learned what the first read.
        if (scopes.length === 1) await call().catch(() => undefined);
        scopeObservers.length = 0;
        // The figures of the last request: what a list that learns as it reads (its fences: docs/API.md, How a list
        // is planned) costs once it has; the first request's, when they differ, as `first`.
        const figures = (scope: (typeof scopes)[number] | undefined) => ({
          readUnits: Math.round((scope?.readUnits ?? 0) * 10) / 10,
          dynamodbCalls: scope?.dynamodbCalls,
          dynamodbRoundTrips: scope?.dynamodbRoundTrips,
        });
        const [cold, warm] = [figures(scopes[0]), figures(scopes.at(-1))];
        return {
          ...timing,
          ...warm,
          ...(JSON.stringify(cold) === JSON.stringify(warm) ? {} : { first: cold }),
          totalCount: Number(body.totalCount),
        };
      };
      const envs = `/api/v2/org/${orgId}/envs`;
      const apps = `/api/v2/org/${orgId}/apps`;
      const cases: Record<string, [string, string, string?]> = {};
      for (const sortField of ENV_SORTS) {
        for (const dir of ['ASC', 'DESC'])
          cases[`envs sort ${sortField} ${dir} page0 size10`] = [
            envs,
            `pageSize=10&sortField=${sortField}&sortDir=${dir}`,
          ];
      }
      Object.assign(cases, {
        'envs page0 size1000 by name': [envs, 'pageSize=1000'],
        'envs page0 size1000 by scanDate DESC': [envs, 'pageSize=1000&sortField=scanDate&sortDir=DESC'],
        'envs page0 size1000 by environmentId': [envs, 'pageSize=1000&sortField=environmentId'],
        'envs pageToken=3 size100 by name': [envs, 'pageSize=100&pageToken=3'],
        'envs pageToken=4 size100 by name': [envs, 'pageSize=100&pageToken=4'],
        'envs deep pageToken=500 size10 by environmentName': [envs, 'pageSize=10&pageToken=500'],
        'envs deep pageToken=500 size10 by scanDate DESC': [
          envs,
          'pageSize=10&pageToken=500&sortField=scanDate&sortDir=DESC',
        ],
        'envs deep pageToken=500 size10 by applicationName': [
          envs,
          'pageSize=10&pageToken=500&sortField=applicationName',
        ],
        'envs deep pageToken=500 size10 by environmentId': [envs, 'pageSize=10&pageToken=500&sortField=environmentId'],
        'envs filter envs=prod size10': [envs, 'pageSize=10&envs=prod'],
        'envs filter envs=env-7 size10 (one match)': [envs, 'pageSize=10&envs=env-7'],
        'envs filter lastScanStatus=ERRORED size10': [envs, 'pageSize=10&lastScanStatus=LAST_SCAN_STATUS_ERRORED'],
        'envs filter lastScanStatus=ERRORED size10 by scanDate': [
          envs,
          'pageSize=10&lastScanStatus=LAST_SCAN_STATUS_ERRORED&sortField=scanDate',
        ],
        'envs filter lastScanDate=LAST_24_HOURS size10': [envs, 'pageSize=10&lastScanDate=LAST_24_HOURS'],
        'envs filter query=app-00001 size10': [envs, 'pageSize=10&query=app-00001'],
        'envs filter query=app-00001 size10 by scanDate DESC': [
          envs,
          'pageSize=10&query=app-00001&sortField=scanDate&sortDir=DESC',
        ],
        'envs filter query=env-123 size10 (environment names)': [envs, 'pageSize=10&query=env-123'],
        'envs filter query=STAGE size10 (a fifth of the environments)': [envs, 'pageSize=10&query=STAGE'],
        'envs filter query=STAGE size10 by scanDate DESC': [
          envs,
          'pageSize=10&query=STAGE&sortField=scanDate&sortDir=DESC',
        ],
        'envs filter query=STAGE size10 by applicationName': [
          envs,
          'pageSize=10&query=STAGE&sortField=applicationName',
        ],
        'envs filter query=STAGE size100 pageToken=5 by scanDuration': [
          envs,
          'pageSize=100&pageToken=5&query=STAGE&sortField=scanDuration',
        ],
        'envs filter query=STAGE size1000 by name': [envs, 'pageSize=1000&query=STAGE'],
        'envs filter query=pp size10 (two characters: no trigram)': [envs, 'pageSize=10&query=pp'],
        'envs filter query=pp size10 by scanDate DESC': [envs, 'pageSize=10&query=pp&sortField=scanDate&sortDir=DESC'],
        'envs filter query=-1 size10 (two characters, some applications)': [envs, 'pageSize=10&query=-1'],
        'envs filter query=app-00001 + lastScanStatus=ERRORED size10': [
          envs,
          'pageSize=10&query=app-00001&lastScanStatus=LAST_SCAN_STATUS_ERRORED',
        ],
        'envs filter query=app-00001 includeAppHealthStats size10': [
          envs,
          'pageSize=10&query=app-00001&includeAppHealthStats=true',
        ],
        'envs member of no team: query=app-00001 size10': [envs, 'pageSize=10&query=app-00001', outsider.token],
        'envs filter envIds=one size10': [envs, `pageSize=10&envIds=${sampleEnvId}`],
        'envs filter appIds=one size10': [envs, `pageSize=10&appIds=${sampleAppId}`],
        'envs filter teamIds=team size10': [envs, `pageSize=10&teamIds=${teamId}`],
        'envs filter applicationTypes=CLOUD size10': [envs, 'pageSize=10&applicationTypes=CLOUD'],
        'envs includeAppHealthStats size10': [envs, 'pageSize=10&includeAppHealthStats=true'],
        'envs includeAppHealthStats size10 STANDARD,CLOUD by scanDate DESC': [
          envs,
          'pageSize=10&includeAppHealthStats=true&applicationTypes=STANDARD,CLOUD&sortField=scanDate&sortDir=DESC',
        ],
        'envs member of no team: includeAppHealthStats size10': [
          envs,
          'pageSize=10&includeAppHealthStats=true',
          outsider.token,
        ],
        'envs member of no team: page0 size10 by name': [envs, 'pageSize=10', outsider.token],
        'envs member of no team: deep pageToken=500 by scanDate': [
          envs,
          'pageSize=10&pageToken=500&sortField=scanDate',
          outsider.token,
        ],
      });
      for (const sortField of APP_SORTS) {
        for (const dir of ['ASC', 'DESC'])
          cases[`apps sort ${sortField} ${dir} page0 size10`] = [
            apps,
            `pageSize=10&sortField=${sortField}&sortDir=${dir}`,
          ];
      }
      Object.assign(cases, {
        'apps page0 size1000 by name': [apps, 'pageSize=1000'],
        'apps deep pageToken=100 size10': [apps, 'pageSize=10&pageToken=100'],
        'apps filter applicationStatus=ACTIVE size10': [apps, 'pageSize=10&applicationStatus=ACTIVE'],
        'apps filter query=app-00001 size10': [apps, 'pageSize=10&query=app-00001'],
        'apps filter query=app-00001 size10 by applicationId DESC': [
          apps,
          'pageSize=10&query=app-00001&sortField=applicationId&sortDir=DESC',
        ],
        'apps filter query=app-0 size10 (most applications)': [apps, 'pageSize=10&query=app-0'],
        'apps filter applicationStatus=ENV_INCOMPLETE size10 (none)': [
          apps,
          'pageSize=10&applicationStatus=ENV_INCOMPLETE',
        ],
        'apps filter teamIds=team size10': [apps, `pageSize=10&teamIds=${teamId}`],
        'apps member of no team: query=app-00001 size10': [apps, 'pageSize=10&query=app-00001', outsider.token],
        'apps member of no team: page0 size10': [apps, 'pageSize=10', outsider.token],
        'v1 apps page0 size10': [`/api/v1/app/${orgId}/list`, 'pageSize=10'],
        'v1 apps pageToken=500 size10': [`/api/v1/app/${orgId}/list`, 'pageSize=10&pageToken=500'],
        'v1 apps ignoreEnvs page0 size10 by id': [
          `/api/v1/app/${orgId}/list`,
          'pageSize=10&ignoreEnvs=true&sortField=id',
        ],
        'v1 apps envs=env-7 size10 (one match)': [`/api/v1/app/${orgId}/list`, 'pageSize=10&envs=env-7'],
        'v1 apps appIds=one size10': [`/api/v1/app/${orgId}/list`, `pageSize=10&appIds=${sampleAppId}`],
        'v1 apps member of no team: page0 size10': [`/api/v1/app/${orgId}/list`, 'pageSize=10', outsider.token],
        'v1 envs of one application': [`/api/v1/app/${sampleAppId}/env/list`, ''],
      });
      const figures: Record<string, unknown> = {};
      for (const [name, [path, query, bearer]] of Object.entries(cases).filter(([name]) => CASES.test(name))) {
        ctx.progress(`${envCount} environments: ${name}`);
        figures[name] = await probe(path, query, bearer);
      }
      // Write cost of the mutations that maintain the list indexes (one of each: a mutation is not repeatable).
      const write = async (name: string, method: string, path: string, body?: unknown) => {
        const scopes: { readUnits?: number; writeUnits?: number; dynamodbCalls: number }[] = [];
        scopeObservers.push((scope) => scopes.push({ ...scope }));
        const started = performance.now();
        const response = await fetch(`${ctx.baseUrl}${path}`, {
          method,
          // The member of no team: the measuring member's team has no team item (seeded membership only).
          headers: {
            authorization: `Bearer ${outsider.token}`,
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          body: body ? JSON.stringify(body) : undefined,
        });
        const ms = Math.round((performance.now() - started) * 100) / 100;
        scopeObservers.length = 0;
        const text = await response.text();
        if (response.status !== 200) throw new Error(`${name}: ${response.status} ${text}`);
        const round = (n: number | undefined) => Math.round((n ?? 0) * 10) / 10;
        figures[`write: ${name}`] = {
          ms,
          writeUnits: round(scopes[0]?.writeUnits),
          readUnits: round(scopes[0]?.readUnits),
          dynamodbCalls: scopes[0]?.dynamodbCalls,
        };
        return text ? (JSON.parse(text) as Record<string, string>) : {};
      };
      if (!CASES.test('write:')) {
        results[`${envCount} environments`] = figures;
        continue;
      }
      ctx.progress(`${envCount} environments: write costs`);
      const created = await write(
        'create application "payments-service-eu" with environment "production"',
        'POST',
        `/api/v1/org/${orgId}/app`,
        { name: 'payments-service-eu', env: 'production' },
      );
      const appId = created.applicationId;
      await write('rename application to "payments-service-eu-west"', 'POST', `/api/v1/app/${appId}`, {
        name: 'payments-service-eu-west',
      });
      const env = await write('create environment "staging-eu-west-1"', 'POST', `/api/v1/app/${appId}/env`, {
        env: 'staging-eu-west-1',
      });
      await write('rename environment to "staging-eu-west-2"', 'POST', `/api/v1/app/${appId}/env/${env.envId}`, {
        name: 'staging-eu-west-2',
      });
      // Scans change the last-scan fields (and the health aggregates with them).
      const scanBody = {
        env: 'staging-eu-west-2',
        config: 'app:\n  env: staging\n',
        hawkscanVersion: '4.1.0',
        host: 'https://staging.example.test',
        tags: [],
      };
      const first = await write(
        'start a scan of an environment without scans',
        'POST',
        `/api/v1/app/${appId}/scan`,
        scanBody,
      );
      await write('complete the scan (no findings)', 'POST', `/api/v1/scan/${first.scanId}/complete`, {
        status: 'COMPLETED',
        urlCount: 1,
      });
      const second = await write(
        'start a second scan of the environment',
        'POST',
        `/api/v1/app/${appId}/scan`,
        scanBody,
      );
      await write('error the second scan', 'POST', `/api/v1/scan/${second.scanId}/complete`, {
        status: 'ERROR',
        urlCount: 1,
      });
      await write(
        'delete the second scan (the last scan goes back to the first)',
        'DELETE',
        `/api/v1/scan/${second.scanId}`,
      );
      await write('delete environment', 'DELETE', `/api/v1/app/${appId}/env/${env.envId}`);
      await write('delete application (with its one environment)', 'DELETE', `/api/v1/app/${appId}`);
      // Findings change the last scan's figures, the health aggregates and the organization's counters: a scan with
      // three findings of one plugin, then the triage of one of them (in an application of its own, kept).
      const scanned = await write(
        'create application "orders-api" with environment "dev"',
        'POST',
        `/api/v1/org/${orgId}/app`,
        { name: 'orders-api', env: 'dev' },
      );
      const third = await write('start a scan of "orders-api"', 'POST', `/api/v1/app/${scanned.applicationId}/scan`, {
        ...scanBody,
        env: 'dev',
      });
      await write('report 3 findings of one plugin', 'POST', `/api/v1/scan/${third.scanId}/alerts`, {
        alerts: [benchAlert('40012', 3)],
      });
      await write('complete the scan (3 findings)', 'POST', `/api/v1/scan/${third.scanId}/complete`, {
        status: 'COMPLETED',
        urlCount: 3,
      });
      const uris = await fetch(`${ctx.baseUrl}/api/v1/scan/${third.scanId}/alert/40012?pageSize=10`, {
        headers: { authorization: `Bearer ${outsider.token}` },
      }).then((r) => r.json() as Promise<{ applicationScanAlertUris: { findingHash: string }[] }>);
      await write(
        'triage one finding FALSE_POSITIVE',
        'POST',
        `/api/v1/org/${orgId}/app/${scanned.applicationId}/env/${third.envId}/findings/triage`,
        { actions: [{ findingHash: uris.applicationScanAlertUris[0]!.findingHash, status: 'FALSE_POSITIVE' }] },
      );
      results[`${envCount} environments`] = figures;
    }
    return results;
  },
};

export default section;

/** `count` URIs of one plugin, as the scanner reports them (POST /api/v1/scan/{scanId}/alerts). */
function benchAlert(pluginId: string, count: number) {
  return {
    pluginId,
    name: `Plugin ${pluginId}`,
    severity: 'High',
    description: `About ${pluginId}`,
    cweId: '79',
    references: [],
    uris: Array.from({ length: count }, (_, i) => ({
      uri: `/orders/${i}`,
      requestMethod: 'GET',
      param: 'q',
      evidence: `evidence ${i}`,
      otherInfo: '',
      requestHeader: `GET https://staging.example.test/orders/${i} HTTP/1.1\r\nHost: staging.example.test\r\n`,
      requestBody: '',
      responseHeader: 'HTTP/1.1 200 OK\r\n',
      responseBody: `<html>${i}</html>`,
    })),
  };
}
