import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { benchTenant, measure, type BenchSection } from './harness.ts';
import { routes } from '../../shared/routes.ts';
import { functionBundleAliases } from '../../infra/proto-descriptors.ts';
import type { RequestScope } from '../../shared/request-scope.ts';
import { interleaved, outsideOperations, startOutsideServer, type OutsideServer } from './outside.ts';
import type { BenchContext } from './harness.ts';

const OUTSIDE_ROUNDS = 300;

async function measureFromOutside(ctx: BenchContext) {
  const servers: OutsideServer[] = [];
  try {
    servers.push(await startOutsideServer(process.cwd(), 'this checkout'));
    const compareWith = process.env.BENCH_COMPARE_WITH;
    if (compareWith) servers.push(await startOutsideServer(compareWith, `BENCH_COMPARE_WITH (${compareWith})`));
    const operations = Object.fromEntries(await Promise.all(servers.map(async (s) => [s.label, await outsideOperations(s)] as const)));
    ctx.progress(`from outside: ${OUTSIDE_ROUNDS} interleaved rounds against ${servers.map((s) => s.label).join(' and ')}`);
    const timings = await interleaved(operations, OUTSIDE_ROUNDS);
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    return Object.fromEntries(
      Object.entries(timings).map(([label, ops]) => [
        label,
        {
          latency: ops,
          ratios: {
            getApplicationP50OverGetItemP50: ratio(ops.getApplication.p50Ms, ops.directGetItem.p50Ms),
            getUserP50OverGetItemP50: ratio(ops.getUser.p50Ms, ops.directGetItem.p50Ms),
            loginP50OverGetItemP50: ratio(ops.login.p50Ms, ops.directGetItem.p50Ms),
          },
        },
      ]),
    );
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

// Foundation figures: request latency through the local server against a direct DynamoDB Local GetItem (as a
// ratio, measured in the same run), the same from outside against `npm start` (outside.ts), DynamoDB calls, round
// trips and capacity units per request, and each function's bundle size and cold import.
// BENCH_COMPARE_WITH=<another checkout> measures that checkout's `npm start` from outside in the same run,
// interleaved with this one's (before/after figures on a shared machine).
const section: BenchSection = {
  name: 'foundation',
  async run(ctx) {
    const { db } = await import('../../shared/db/client.ts');
    const { keys } = await import('../../shared/db/keys.ts');
    const { config } = await import('../../shared/config.ts');
    const { scopeObservers } = await import('../../shared/request-scope.ts');

    const { orgId: organizationId, userId, apiKey, token } = await benchTenant(ctx, 'foundation');

    const get = (path: string, headers: Record<string, string>) => async () => {
      const response = await fetch(`${ctx.baseUrl}${path}`, { headers });
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
      await response.arrayBuffer();
    };
    const getUser = get('/api/v1/user', { authorization: `Bearer ${token}` });
    const created = await fetch(`${ctx.baseUrl}/api/v1/org/${organizationId}/app`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench-app' }),
    });
    const { applicationId } = (await created.json()) as { applicationId: string };
    const getApplication = get(`/api/v1/app/${applicationId}`, { authorization: `Bearer ${token}` });
    const login = get('/api/v1/auth/login', { 'x-apikey': apiKey });
    const directGetItem = () => db.send(new GetCommand({ TableName: config.tableName, Key: keys.user(userId) }));

    ctx.progress('latency: GET /api/v1/app/{appId}, GET /api/v1/user, login, direct GetItem');
    const direct = await measure(directGetItem, 300);
    const user = await measure(getUser, 300);
    const application = await measure(getApplication, 300);
    const loginTiming = await measure(login, 300);

    ctx.progress('DynamoDB calls, round trips and capacity units per request');
    const scopes: RequestScope[] = [];
    scopeObservers.push((scope) => scopes.push(scope));
    const observe = async (fn: () => Promise<unknown>) => {
      scopes.length = 0;
      await fn();
      const [scope] = scopes;
      return { calls: scope.dynamodbCalls, roundTrips: scope.dynamodbRoundTrips ?? 0, readUnits: scope.readUnits ?? 0, writeUnits: scope.writeUnits ?? 0 };
    };
    // The second of two back-to-back requests: the steady state of a client (the first of a new process
    // costs one more rate-limit call, see shared/rate-limit.ts, and learns the caller's organizations).
    const steady = async (fn: () => Promise<unknown>) => (await observe(fn), observe(fn));
    const perRequest: Record<string, Awaited<ReturnType<typeof observe>>> = {
      'GET /api/v1/app/{appId} (single-item read)': await steady(getApplication),
      'GET /api/v1/user': await steady(getUser),
      'GET /api/v1/auth/login': await steady(login),
    };
    scopeObservers.length = 0;
    const pick = (field: keyof Awaited<ReturnType<typeof observe>>) => Object.fromEntries(Object.entries(perRequest).map(([name, figures]) => [name, figures[field]]));

    ctx.progress('from outside: npm start with its default logging, an HTTP client, raw GetItem interleaved');
    const outside = await measureFromOutside(ctx);

    ctx.progress('bundles: esbuild (minified, ESM, @aws-sdk external as on Lambda, the function\'s own protobuf messages) and cold import in a fresh node');
    const outDir = join(process.cwd(), 'node_modules', '.cache', 'hawk-bench');
    mkdirSync(outDir, { recursive: true });
    const bundles: Record<string, { bytes: number; importMs: number }> = {};
    for (const handler of [...new Set(routes.map((r) => r.handler))]) {
      const entry = `functions/${handler}.ts`;
      const result = await build({
        entryPoints: [entry],
        // As the stack bundles it: only the protobuf messages the function's code names, no `long`.
        alias: functionBundleAliases(entry, join(outDir, 'descriptors'), handler),
        bundle: true,
        minify: true,
        write: false,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        external: ['@aws-sdk/*'],
        banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
      });
      const file = join(outDir, `${handler}.mjs`);
      writeFileSync(file, result.outputFiles[0].contents);
      // Median of three fresh processes: one cold import is too noisy to compare with a target.
      const importMs = [0, 1, 2]
        .map(() =>
          Number(
            spawnSync(process.execPath, ['--input-type=module', '-e', `const t = performance.now(); await import(${JSON.stringify(file)}); console.log(performance.now() - t);`], {
              env: { ...process.env, AWS_REGION: 'us-east-1', TABLE_NAME: 't', SIGNING_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:0:secret:x' },
              encoding: 'utf8',
            }).stdout.trim(),
          ),
        )
        .sort((a, b) => a - b)[1];
      bundles[handler] = { bytes: result.outputFiles[0].contents.length, importMs: Math.round(importMs * 10) / 10 };
    }
    const sizes = Object.values(bundles);
    return {
      latency: { directGetItem: direct, getApplication: application, getUser: user, login: loginTiming },
      ratios: {
        getApplicationP50OverGetItemP50: Math.round((application.p50Ms / direct.p50Ms) * 10) / 10,
        getUserP50OverGetItemP50: Math.round((user.p50Ms / direct.p50Ms) * 10) / 10,
        loginP50OverGetItemP50: Math.round((loginTiming.p50Ms / direct.p50Ms) * 10) / 10,
      },
      dynamodbCallsPerRequest: pick('calls'),
      dynamodbRoundTripsPerRequest: pick('roundTrips'),
      // DynamoDB Local's ConsumedCapacity (eventually consistent reads: 0.5 RCU per 4 KB item); a conditional
      // write that fails reports none, so refused rate-limit updates are not counted here.
      readUnitsPerRequest: pick('readUnits'),
      writeUnitsPerRequest: pick('writeUnits'),
      fromOutside: outside,
      bundles,
      bundleSummary: {
        largestBytes: Math.max(...sizes.map((s) => s.bytes)),
        slowestImportMs: Math.max(...sizes.map((s) => s.importMs)),
        targetBytes: 300 * 1024,
        targetImportMs: 150,
      },
    };
  },
};

export default section;
