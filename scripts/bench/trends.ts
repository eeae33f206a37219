import { benchTenant, measure, type BenchSection } from './harness.ts';

// Trends (docs/GOVERNANCE.md, Trends): getOrganizationTrends over 90 days of an organization with 50,000
// environments (BENCH_TREND_ENVIRONMENTS to change it). The counters are seeded as the writes would have left them:
// 400 days of history in which each environment is scanned every 1 to 6 days (the coverage changes computed by the
// writers' own function) with findings found, fixed and reopened; the figures' size and the read's cost depend on
// the days, not on the environments, which the answer's coverage shows. Latency through the HTTP API, and the
// request's DynamoDB calls and read capacity units (DynamoDB Local's ConsumedCapacity).
const ENVIRONMENTS = Number(process.env.BENCH_TREND_ENVIRONMENTS ?? 50_000);
const HISTORY_DAYS = 400;
const TARGET = { p50Ms: 50, readUnits: 20 };

const section: BenchSection = {
  name: 'trends',
  async run(ctx) {
    const { batchPut } = await import('../../shared/db/query.ts');
    const { keys } = await import('../../shared/db/keys.ts');
    const { TrendChange, coverageScan, dayOf, TREND_SEVERITIES } = await import('../../shared/trends/model.ts');
    const { scopeObservers } = await import('../../shared/context/request-scope.ts');
    const { orgId, token } = await benchTenant(ctx, 'trends');

    ctx.progress(`seeding ${HISTORY_DAYS} days of trend counters of ${ENVIRONMENTS} environments`);
    const today = dayOf(Date.now());
    const change = new TrendChange();
    let seed = 7;
    const rnd = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed / 2 ** 31);
    for (let e = 0; e < ENVIRONMENTS; e++) {
      let previous: number | undefined;
      for (let day = today - HISTORY_DAYS + Math.floor(rnd() * 6); day <= today; day += 1 + Math.floor(rnd() * 6)) {
        coverageScan(change, previous, day);
        previous = day;
      }
    }
    for (let day = today - HISTORY_DAYS; day <= today; day++) {
      for (const severity of TREND_SEVERITIES) {
        const [found, fixed, reopened] = [rnd() * 400, rnd() * 380, rnd() * 20].map(Math.floor);
        change.add(day, `new${severity}`, found);
        change.add(day, `fixed${severity}`, fixed);
        change.add(day, `reopened${severity}`, reopened);
        change.add(day, `open${severity}`, found + reopened - fixed);
      }
      change.add(day, 'fixTimeMs', Math.floor(rnd() * 1e12));
      change.add(day, 'slaDue', 900);
      change.add(day, 'slaMet', Math.floor(700 + rnd() * 200));
    }
    const scope = { orgId };
    await batchPut([
      ...[...change.days].map(([day, figures]) => ({
        ...keys.trendDay(scope, day),
        entity: 'trendDay',
        day,
        ...figures,
      })),
      { ...keys.trendTotal(scope), entity: 'trendTotal', seq: change.days.size, ...change.total() },
    ]);

    const path = `/api/v1/org/${orgId}/trends?days=90`;
    const get = async () => {
      const response = await fetch(`${ctx.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { days: { scannedWithin30Days: number }[] };
    };
    const answer = await get();

    ctx.progress('DynamoDB calls and read units of one request (the second of two: the steady state)');
    const scopes: import('../../shared/context/request-scope.ts').RequestScope[] = [];
    scopeObservers.push((s) => scopes.push(s));
    await get();
    scopes.length = 0;
    await get();
    scopeObservers.length = 0;
    const [observed] = scopes;

    ctx.progress(`GET ${path}, 100 times`);
    const latency = await measure(get, 100, 10);
    return {
      request: `GET /api/v1/org/{orgId}/trends?days=90 (${ENVIRONMENTS} environments, ${change.days.size} day items)`,
      latency,
      dynamodbCalls: observed?.dynamodbCalls,
      readUnits: observed?.readUnits ?? 0,
      scannedWithin30DaysToday: answer.days[answer.days.length - 1]!.scannedWithin30Days,
      target: TARGET,
      meetsTarget: latency.p50Ms < TARGET.p50Ms && (observed?.readUnits ?? 0) < TARGET.readUnits,
    };
  },
};

export default section;
