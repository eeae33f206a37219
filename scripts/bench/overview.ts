import { isDeepStrictEqual } from 'node:util';
import { benchTenant, type BenchSection } from './harness.ts';
import { dynamodbFloor } from './dynamodb-floor.ts';
import { interleaved } from './outside.ts';
import { seed } from './lists.ts';

// The overview (docs/GOVERNANCE.md, The overview): getOrganizationOverview of an organization with 50,000
// environments (BENCH_OVERVIEW_ENVIRONMENTS to change it), seeded as the lists section seeds them (5 per
// application, half scanned, untriaged figures up to 199), plus 10 environments with a real completed scan of 300
// findings (100 per severity, reported through the HTTP API), so that they are the 10 with the most untriaged
// findings whose scans the overdue list reads. An SLA of 1 day and findings first seen more than a day before the
// request would make them overdue; the request reads the same items either way. Latency through the HTTP API, and
// the request's DynamoDB calls and read capacity units (DynamoDB Local's ConsumedCapacity). The trends' target
// (under 50 ms and 20 read units at 50,000 environments) is shown for comparison: the overview reads the riskiest
// applications' ranked entries, the coverage counters, about 10 index entries and 10 scans' findings. Each block is
// compared with its full recomputation (overviewOf with FULL_WALKS) as of the answer's moment.
const ENVIRONMENTS = Number(process.env.BENCH_OVERVIEW_ENVIRONMENTS ?? 50_000);
const SCANNED = 10;
const FINDINGS_PER_SEVERITY = 100;
const TRENDS_TARGET = { p50Ms: 50, readUnits: 20 };

const section: BenchSection = {
  name: 'overview',
  async run(ctx) {
    const { scopeObservers } = await import('../../shared/context/request-scope.ts');
    const tenant = await benchTenant(ctx, 'overview');
    const { orgId, token } = tenant;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${ctx.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
      return JSON.parse(text);
    };
    ctx.progress(`${SCANNED} environments with a completed scan of ${3 * FINDINGS_PER_SEVERITY} findings`);
    const app = await call('POST', `/api/v1/org/${orgId}/app`, { name: 'overview-scanned', env: 'env-0' });
    for (let e = 0; e < SCANNED; e++) {
      const env = `env-${e}`;
      if (e > 0) await call('POST', `/api/v1/app/${app.applicationId}/env`, { env });
      const started = await call('POST', `/api/v1/app/${app.applicationId}/scan`, {
        env,
        config: `app:\n  env: ${env}\n`,
        host: 'https://t.test',
      });
      const uris = (prefix: string) =>
        Array.from({ length: FINDINGS_PER_SEVERITY }, (_, i) => ({
          uri: `/${prefix}/page${i}`,
          requestMethod: 'GET',
          param: 'q',
          evidence: 'e',
        }));
      await call('POST', `/api/v1/scan/${started.scanId}/alerts`, {
        alerts: [
          { pluginId: '40018', name: 'SQLi', severity: 'High', uris: uris('h') },
          { pluginId: '10020', name: 'Frame', severity: 'Medium', uris: uris('m') },
          { pluginId: '10021', name: 'Sniff', severity: 'Low', uris: uris('l') },
        ],
      });
      await call('POST', `/api/v1/scan/${started.scanId}/complete`, { status: 'COMPLETED' });
    }

    // Seeded after the scans: the seed makes the member one of a team it does not write (the lists' reader).
    ctx.progress(`seeding ${ENVIRONMENTS} environments`);
    await seed(ctx, orgId, tenant.userId, ENVIRONMENTS);

    const path = `/api/v1/org/${orgId}/overview`;
    const get = () =>
      call('GET', path) as Promise<{ overdue: { environmentsExamined: number; findingsWithDueDate: number } }>;
    const answer = await get();

    ctx.progress('DynamoDB calls and read units of one request (the second of two: the steady state)');
    const scopes: import('../../shared/context/request-scope.ts').RequestScope[] = [];
    scopeObservers.push((s) => scopes.push(s));
    await get();
    scopes.length = 0;
    await get();
    scopeObservers.length = 0;
    const [observed] = scopes;

    // Interleaved with its floor: the same DynamoDB calls made directly, round trip by round trip (dynamodb-floor.ts),
    // so that both see the same load; what the request takes above the floor is the service's own time.
    ctx.progress(`GET ${path} and its DynamoDB floor, 30 interleaved rounds`);
    const floor = await dynamodbFloor(get);
    const { overview: timings } = await interleaved(
      { overview: { request: async () => void (await get()), floor: floor.replay } },
      30,
      3,
    );
    const latency = timings.request;

    // The answer against its full recomputation as of the same moment: the riskiest applications recomputed from every
    // environment's records and finding records (not their ranked entries), the coverage gaps from every environment
    // not scanned within 7 days (not the counters), the overdue findings as the request reads them.
    ctx.progress('the answer against a full recomputation');
    const { overviewOf, FULL_WALKS } = await import('../../shared/overview/overview.ts');
    const answered = (await get()) as unknown as Record<string, unknown> & { generatedAt: string };
    const recomputed = await overviewOf(orgId, () => true, Date.parse(answered.generatedAt), FULL_WALKS);
    // Compared as values: the answer's keys come in another order than the recomputation's.
    const same = (block: 'riskiestApplications' | 'overdue' | 'coverageGaps') =>
      isDeepStrictEqual(answered[block], JSON.parse(JSON.stringify(recomputed[block])));
    const sameAsRecomputation = {
      riskiestApplications: same('riskiestApplications'),
      overdue: same('overdue'),
      coverageGaps: same('coverageGaps'),
    };
    return {
      request: `GET /api/v1/org/{orgId}/overview (${ENVIRONMENTS} seeded environments + ${SCANNED} scanned with ${3 * FINDINGS_PER_SEVERITY} findings each)`,
      latency,
      dynamodbFloor: {
        calls: floor.calls,
        latency: timings.floor,
        requestP50AboveFloorMs: Math.round((latency.p50Ms - timings.floor.p50Ms) * 100) / 100,
      },
      dynamodbCalls: observed?.dynamodbCalls,
      readUnits: Math.round((observed?.readUnits ?? 0) * 10) / 10,
      environmentsExamined: answer.overdue.environmentsExamined,
      findingsWithDueDate: answer.overdue.findingsWithDueDate,
      sameAsRecomputation,
      riskiestListed: (answered.riskiestApplications as unknown[]).length,
      coverageGaps: answered.coverageGaps && {
        ...(answered.coverageGaps as Record<string, unknown>),
        environments: undefined,
      },
      trendsTargetForComparison: TRENDS_TARGET,
    };
  },
};

export default section;
