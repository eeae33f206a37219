import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { benchTenant, type BenchSection } from './harness.ts';
import { routes } from '../../shared/routes.ts';
import { handlerFile } from '../../shared/http/route.ts';
import { functionBundleAliases } from '../../infra/proto-descriptors.ts';
import { FUNCTION_BUNDLE } from '../../infra/bundling.ts';
import type { RequestScope } from '../../shared/context/request-scope.ts';
import { interleaved, outsideOperations, startOutsideServer, type OutsideServer } from './outside.ts';
import { dynamodbFloor } from './dynamodb-floor.ts';
import type { BenchContext } from './harness.ts';

const OUTSIDE_ROUNDS = 300;
const IN_PROCESS_ROUNDS = 300;
const IN_PROCESS_WARMUP_ROUNDS = 100;
const CPU_SAMPLES = 500;
// How the code before its bundling change (3585cfe and older) was bundled (BENCH_COMPARE_WITH checkouts without
// infra/bundling.ts): ESM.
const ESM_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";
type BundleOptions = Pick<
  BuildOptions,
  'format' | 'target' | 'platform' | 'external' | 'mainFields' | 'define' | 'supported' | 'banner'
>;
/** A FUNCTION_BUNDLE of infra/bundling.ts, this checkout's or another's (which may lack fields or build ESM). */
type BundleSettings = Partial<Omit<typeof FUNCTION_BUNDLE, 'format'>> & { format?: 'cjs' | 'esm' };
const ESM_BUNDLE: BundleOptions = {
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['@aws-sdk/*'],
  banner: { js: ESM_BANNER },
};

/** esbuild's options for a bundle as infra/bundling.ts (FUNCTION_BUNDLE) describes it, this checkout's or another's. */
const bundleOptions = (bundle: BundleSettings): BundleOptions => ({
  format: bundle.format,
  target: bundle.target,
  platform: bundle.platform,
  external: bundle.external && [...bundle.external],
  mainFields: bundle.mainFields && [...bundle.mainFields],
  define: bundle.define,
  supported: bundle.supported,
  banner: bundle.banner === undefined ? undefined : { js: bundle.banner },
});

/**
 * How a BENCH_COMPARE_WITH checkout bundles a function: as its own infra/bundling.ts says (it has one since
 * 0ae6c7a), else as ESM, as the code before it was bundled. The bundle's extension tells LOAD_BUNDLE how to load it.
 */
async function compareBundling(checkout: string): Promise<{ options: BundleOptions; extension: '.cjs' | '.mjs' }> {
  const file = join(checkout, 'infra', 'bundling.ts');
  if (!existsSync(file)) return { options: ESM_BUNDLE, extension: '.mjs' };
  const { FUNCTION_BUNDLE: theirs } = (await import(pathToFileURL(file).href)) as { FUNCTION_BUNDLE: BundleSettings };
  return { options: bundleOptions(theirs), extension: theirs.format === 'esm' ? '.mjs' : '.cjs' };
}

/** Loads a bundle in a child process as Lambda does: `require` for CommonJS (.cjs, .js), `import()` for ESM. */
const LOAD_BUNDLE = `const load = (file) => file.endsWith('.mjs') ? import(file) : Promise.resolve(require('node:module').createRequire(file)(file));`;

/**
 * A cold start as Lambda has it: a fresh node process imports the function's bundle and serves one API Gateway
 * event against the local engines (the signing key, DynamoDB Local). Median of three processes; with
 * BENCH_COMPARE_WITH, that checkout's bundles too (built as its own bench built them), alternating with these.
 */
export async function measureFirstInvocations(
  outDir: string,
  tenant: { applicationId: string; apiKey: string; token: string },
) {
  const { apiGatewayEvent } = await import('../local/api-gateway-event.ts');
  const { matchRoute } = await import('../local/server.ts');
  const cases = [
    {
      handler: 'get-application',
      target: `/api/v1/app/${tenant.applicationId}`,
      headers: [['authorization', `Bearer ${tenant.token}`]],
    },
    { handler: 'get-user', target: '/api/v1/user', headers: [['authorization', `Bearer ${tenant.token}`]] },
    { handler: 'login', target: '/api/v1/auth/login', headers: [['x-apikey', tenant.apiKey]] },
  ] as { handler: string; target: string; headers: [string, string][] }[];
  const compareWith = process.env.BENCH_COMPARE_WITH;
  const child = `const event = JSON.parse(process.env.HAWK_EVENT);
    const context = { awsRequestId: 'cold', functionName: 'cold', getRemainingTimeInMillis: () => 29000 };
    ${LOAD_BUNDLE}
    const start = performance.now();
    const { handler } = await load(process.env.HAWK_BUNDLE);
    const imported = performance.now();
    const result = await handler(event, context);
    console.log(JSON.stringify({ importMs: imported - start, totalMs: performance.now() - start, status: result.statusCode }));`;
  const run = (bundle: string, event: unknown) => {
    const out = spawnSync(process.execPath, ['--input-type=commonjs', '-e', `(async () => { ${child} })()`], {
      env: { ...process.env, HAWK_BUNDLE: bundle, HAWK_EVENT: JSON.stringify(event) },
      encoding: 'utf8',
    });
    const figures = JSON.parse(out.stdout.trim().split('\n').pop() || '{}') as {
      importMs: number;
      totalMs: number;
      status: number;
    };
    if (figures.status !== 200) throw new Error(`first invocation of ${bundle}: ${out.stdout} ${out.stderr}`);
    return figures;
  };
  const median = (values: number[]) =>
    Math.round(values.sort((a, b) => a - b)[Math.floor(values.length / 2)] * 10) / 10;
  const results: Record<string, unknown> = {};
  for (const { handler, target, headers } of cases) {
    const event = apiGatewayEvent(
      { method: 'GET', target, headers, body: Buffer.alloc(0), sourceIp: '198.51.100.30' },
      matchRoute('GET', target)!,
    );
    const bundles: Record<string, string> = { 'this checkout': join(outDir, `${handler}.cjs`) };
    if (compareWith) {
      const { options, extension } = await compareBundling(compareWith);
      const built = await build({
        ...options,
        entryPoints: [`functions/${handler}.ts`],
        absWorkingDir: compareWith,
        bundle: true,
        minify: true,
        write: false,
      });
      bundles.BENCH_COMPARE_WITH = join(outDir, `compare-${handler}${extension}`);
      writeFileSync(bundles.BENCH_COMPARE_WITH, built.outputFiles[0].contents);
    }
    const samples: Record<string, { importMs: number[]; totalMs: number[] }> = {};
    for (let i = 0; i < 3; i++) {
      for (const [label, bundle] of Object.entries(bundles)) {
        const figures = run(bundle, event);
        (samples[label] ??= { importMs: [], totalMs: [] }).importMs.push(figures.importMs);
        samples[label].totalMs.push(figures.totalMs);
      }
    }
    results[handler] = Object.fromEntries(
      Object.entries(samples).map(([label, v]) => [
        label,
        { importMs: median(v.importMs), importAndFirstRequestMs: median(v.totalMs) },
      ]),
    );
  }
  return results;
}

/**
 * Functions that parse YAML or OpenAPI documents: a YAML parser (yaml, ~110 KB minified) or an OpenAPI validator is
 * most of their bundle, loaded because the operation calls it. The bundle targets (at most 150 KiB, a cold load
 * of at most 100 ms) are for the ordinary functions, every other one; these are reported beside them.
 */
const DOCUMENT_PARSERS = new Set([
  'upload-oas-for-application',
  'import-scan-report',
  'validate-scan-configuration',
  'set-scan-configuration-for-org',
  'report-scan-started',
  // A profile's result and useDiscoveredOpenApiSpec validate the discovered API description (docs/PROFILE-SCANS.md).
  'upload-profile-scan-result',
  'use-discovered-open-api-spec',
]);
const TARGET_BYTES = 150 * 1024;
const TARGET_IMPORT_MS = 100;

interface Bundle {
  bytes: number;
  /** Cold load, median of three fresh processes: wall time, and the CPU time the process spent. */
  importMs: number;
  importCpuMs: number;
}

function bundleSummary(bundles: Record<string, Bundle>) {
  const summarize = (entries: [string, Bundle][]) => {
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
    return {
      functions: entries.length,
      atMostTargetBytes: entries.filter(([, b]) => b.bytes <= TARGET_BYTES).length,
      atMostTargetImportMs: entries.filter(([, b]) => b.importMs <= TARGET_IMPORT_MS).length,
      atMostTargetImportCpuMs: entries.filter(([, b]) => b.importCpuMs <= TARGET_IMPORT_MS).length,
      largestBytes: Math.max(...entries.map(([, b]) => b.bytes)),
      medianImportMs: median(entries.map(([, b]) => b.importMs)),
      medianImportCpuMs: median(entries.map(([, b]) => b.importCpuMs)),
      slowestImportMs: Math.max(...entries.map(([, b]) => b.importMs)),
      overTargetBytes: entries.filter(([, b]) => b.bytes > TARGET_BYTES).map(([name]) => name),
      overTargetImportMs: entries.filter(([, b]) => b.importMs > TARGET_IMPORT_MS).map(([name]) => name),
    };
  };
  const entries = Object.entries(bundles);
  return {
    targetBytes: TARGET_BYTES,
    targetImportMs: TARGET_IMPORT_MS,
    ordinary: summarize(entries.filter(([name]) => !DOCUMENT_PARSERS.has(name))),
    documentParsers: Object.fromEntries(entries.filter(([name]) => DOCUMENT_PARSERS.has(name))),
    all: summarize(entries),
  };
}

async function measureFromOutside(ctx: BenchContext) {
  const servers: OutsideServer[] = [];
  try {
    servers.push(await startOutsideServer(process.cwd(), 'this checkout'));
    const compareWith = process.env.BENCH_COMPARE_WITH;
    if (compareWith) servers.push(await startOutsideServer(compareWith, `BENCH_COMPARE_WITH (${compareWith})`));
    const operations = Object.fromEntries(
      await Promise.all(servers.map(async (s) => [s.label, await outsideOperations(s)] as const)),
    );
    ctx.progress(
      `from outside: ${OUTSIDE_ROUNDS} interleaved rounds against ${servers.map((s) => s.label).join(' and ')}`,
    );
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
    const { scopeObservers } = await import('../../shared/context/request-scope.ts');

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
    const directGetItem = async () =>
      void (await db.send(new GetCommand({ TableName: config.tableName, Key: keys.user(userId) })));

    ctx.progress(
      `latency: GET /api/v1/app/{appId}, GET /api/v1/user, login, direct GetItem: ${IN_PROCESS_ROUNDS} interleaved rounds after ${IN_PROCESS_WARMUP_ROUNDS} of warm-up`,
    );
    // Interleaved, as from outside, after a warm-up of them all. Measured one after the other (300 each after 20),
    // the first ran while DynamoDB Local's JVM and V8 were still compiling and the ratios followed the order (issue
    // 17, one code in one sitting: /user 5.0x measured right after the GetItem, 2.3x measured last; the GetItem,
    // always first, 1.67 ms p50 in the quiet run of 2026-11-25T05:49, 0.7 ms once warm).
    const operations = { directGetItem, getApplication, getUser, login };
    const floors = {
      getApplication: await dynamodbFloor(getApplication),
      getUser: await dynamodbFloor(getUser),
      login: await dynamodbFloor(login),
    };
    const floorOperations = Object.fromEntries(
      Object.entries(floors).map(([name, floor]) => [`${name}Floor`, floor.replay]),
    );
    const { inProcess: timings } = await interleaved(
      { inProcess: { ...operations, ...floorOperations } },
      IN_PROCESS_ROUNDS,
      IN_PROCESS_WARMUP_ROUNDS,
    );
    const [direct, application, user, loginTiming] = [
      timings.directGetItem,
      timings.getApplication,
      timings.getUser,
      timings.login,
    ];
    // CPU time of this process per request (the HTTP client, the local server, the handler, the SDK; not DynamoDB
    // Local's JVM): it moves much less with the machine's load than the wall time does.
    const cpuPerRequestMs: Record<string, number> = {};
    for (const [name, run] of Object.entries(operations)) {
      const before = process.cpuUsage();
      for (let i = 0; i < CPU_SAMPLES; i++) await run();
      const used = process.cpuUsage(before);
      cpuPerRequestMs[name] = Math.round((used.user + used.system) / CPU_SAMPLES) / 1000;
    }

    ctx.progress('DynamoDB calls, round trips and capacity units per request');
    const scopes: RequestScope[] = [];
    scopeObservers.push((scope) => scopes.push(scope));
    const observe = async (fn: () => Promise<unknown>) => {
      scopes.length = 0;
      await fn();
      const [scope] = scopes;
      return {
        calls: scope.dynamodbCalls,
        roundTrips: scope.dynamodbRoundTrips ?? 0,
        readUnits: scope.readUnits ?? 0,
        writeUnits: scope.writeUnits ?? 0,
      };
    };
    // The second of two back-to-back requests: the steady state of a client (the first of a new process
    // costs one more rate-limit call, see shared/http/rate-limit.ts, and learns the caller's organizations).
    const steady = async (fn: () => Promise<unknown>) => (await observe(fn), observe(fn));
    const perRequest: Record<string, Awaited<ReturnType<typeof observe>>> = {
      'GET /api/v1/app/{appId} (single-item read)': await steady(getApplication),
      'GET /api/v1/user': await steady(getUser),
      'GET /api/v1/auth/login': await steady(login),
    };
    scopeObservers.length = 0;
    const pick = (field: keyof Awaited<ReturnType<typeof observe>>) =>
      Object.fromEntries(Object.entries(perRequest).map(([name, figures]) => [name, figures[field]]));

    ctx.progress('from outside: npm start with its default logging, an HTTP client, raw GetItem interleaved');
    const outside = await measureFromOutside(ctx);

    ctx.progress(
      "bundles: esbuild as the stack bundles them (infra/bundling.ts: minified CommonJS, @aws-sdk external, the function's own protobuf messages) and cold load in a fresh node",
    );
    const outDir = join(process.cwd(), 'node_modules', '.cache', 'hawk-bench');
    mkdirSync(outDir, { recursive: true });
    const bundles: Record<string, Bundle> = {};
    for (const handler of [...new Set(routes.map(handlerFile))]) {
      const entry = `functions/${handler}.ts`;
      const result = await build({
        entryPoints: [entry],
        // As the stack bundles it: only the protobuf messages the function's code names, no `long`.
        alias: functionBundleAliases(entry, join(outDir, 'descriptors'), handler),
        bundle: true,
        minify: true,
        write: false,
        ...bundleOptions(FUNCTION_BUNDLE),
      });
      const file = join(outDir, `${handler}.cjs`);
      writeFileSync(file, result.outputFiles[0].contents);
      // Median of three fresh processes, each loading the bundle as Lambda does (require): one cold load is too
      // noisy to compare with a target. Beside the wall time, the CPU time the process spent loading (user +
      // system): on a machine shared with other work the wall time grows with the load, the CPU time much less.
      const samples = [0, 1, 2].map(() => {
        const out = spawnSync(
          process.execPath,
          [
            '--input-type=commonjs',
            '-e',
            `(async () => { ${LOAD_BUNDLE} const cpu = process.cpuUsage(); const t = performance.now(); await load(${JSON.stringify(file)}); const wallMs = performance.now() - t; const used = process.cpuUsage(cpu); console.log(JSON.stringify({ wallMs, cpuMs: (used.user + used.system) / 1000 })); })()`,
          ],
          {
            env: {
              ...process.env,
              AWS_REGION: 'us-east-1',
              TABLE_NAME: 't',
              SIGNING_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:0:secret:x',
            },
            encoding: 'utf8',
          },
        );
        return JSON.parse(out.stdout.trim().split('\n').pop() || '{}') as { wallMs: number; cpuMs: number };
      });
      const median = (values: number[]) => Math.round(values.sort((a, b) => a - b)[1] * 10) / 10;
      bundles[handler] = {
        bytes: result.outputFiles[0].contents.length,
        importMs: median(samples.map((x) => x.wallMs)),
        importCpuMs: median(samples.map((x) => x.cpuMs)),
      };
    }

    ctx.progress('first invocation as Lambda runs it: a fresh node imports the bundle and serves one request');
    const firstInvocation = await measureFirstInvocations(outDir, { applicationId, apiKey, token });
    return {
      latency: { directGetItem: direct, getApplication: application, getUser: user, login: loginTiming },
      cpuPerRequestMs,
      ratios: {
        getApplicationP50OverGetItemP50: Math.round((application.p50Ms / direct.p50Ms) * 10) / 10,
        getUserP50OverGetItemP50: Math.round((user.p50Ms / direct.p50Ms) * 10) / 10,
        loginP50OverGetItemP50: Math.round((loginTiming.p50Ms / direct.p50Ms) * 10) / 10,
      },
      // The same requests' own DynamoDB calls made directly (dynamodbFloor), interleaved with the rest: the ratio
      // no request path could go under on this engine, and what the request adds above it.
      dynamodbFloor: Object.fromEntries(
        (['getApplication', 'getUser', 'login'] as const).map((name) => {
          const floor = timings[`${name}Floor`];
          const request = timings[name];
          return [
            name,
            {
              calls: floors[name].calls,
              latency: floor,
              p50OverGetItemP50: Math.round((floor.p50Ms / direct.p50Ms) * 10) / 10,
              requestP50AboveFloorMs: Math.round((request.p50Ms - floor.p50Ms) * 100) / 100,
            },
          ];
        }),
      ),
      dynamodbCallsPerRequest: pick('calls'),
      dynamodbRoundTripsPerRequest: pick('roundTrips'),
      // DynamoDB Local's ConsumedCapacity (eventually consistent reads: 0.5 RCU per 4 KB item); a conditional
      // write that fails reports none, so refused rate-limit updates are not counted here.
      readUnitsPerRequest: pick('readUnits'),
      writeUnitsPerRequest: pick('writeUnits'),
      fromOutside: outside,
      bundles,
      firstInvocation,
      bundleSummary: bundleSummary(bundles),
    };
  },
};

export default section;
