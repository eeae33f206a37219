import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  planApplicationList,
  planDeprecatedApplicationList,
  planEnvironmentList,
  type ApplicationListPlan,
  type ApplicationListStats,
  type DeprecatedApplicationListPlan,
  type EnvironmentListPlan,
  type EnvironmentListStats,
  fenceReach,
  keptReach,
  FENCE_SLACK,
  idWalkReach,
  queryWalkShare,
  shareSizedLimit,
} from '../../shared/applications/list-plan.ts';
import {
  listApplicationsV1Query,
  listApplicationsV2Query,
  listEnvironmentsV2Query,
} from '../../shared/applications/inputs.ts';
import { keys } from '../../shared/db/keys.ts';
import { nameOrderKey, numberOrderKey } from '../../shared/db/sortable.ts';
import { queryStringReads } from '../../shared/applications/environment-list.ts';
import { walkWants } from '../../shared/lists.ts';

// The list planner (docs/API.md, How a list is planned) without DynamoDB: a query as a client sends it (its query
// string, parsed by the route's schema), the page, and the figures read about the caller's scope -> the plan.

const envQuery = (params: Record<string, string>) => z.parse(listEnvironmentsV2Query, params);
const appQuery = (params: Record<string, string>) => z.parse(listApplicationsV2Query, params);
const v1Query = (params: Record<string, string>) => z.parse(listApplicationsV1Query, params);

const page0 = { page: 0, size: 10 };
/** 1,000 environments of 200 applications. */
const org: EnvironmentListStats = { applications: 200, environments: 1000 };

describe('planEnvironmentList (listEnvsV2)', () => {
  const cases: [
    string,
    Record<string, string>,
    { page: number; size: number },
    EnvironmentListStats,
    EnvironmentListPlan,
  ][] = [
    [
      'no filter, by name: the name index walked on whole items',
      {},
      page0,
      org,
      { kind: 'index', order: 'name', wholeItems: true, total: 'counters' },
    ],
    [
      'a deep page by name: compact entries',
      {},
      { page: 4, size: 10 },
      org,
      { kind: 'index', order: 'name', wholeItems: false, total: 'counters' },
    ],
    [
      'by scan date, descending',
      { sortField: 'scanDate', sortDir: 'DESC' },
      page0,
      org,
      { kind: 'index', order: 'scanDate', wholeItems: true, total: 'counters' },
    ],
    [
      'by id: the id index, compact',
      { sortField: 'environmentId' },
      page0,
      org,
      { kind: 'index', order: 'id', wholeItems: false, total: 'counters' },
    ],
    [
      'by flight-path update: no values recorded, the id order',
      { sortField: 'flightpathLastUpdated' },
      page0,
      org,
      { kind: 'index', order: 'id', wholeItems: false, total: 'counters' },
    ],
    [
      'by scan duration',
      { sortField: 'scanDuration' },
      page0,
      org,
      { kind: 'index', order: 'duration', wholeItems: false, total: 'counters' },
    ],
    [
      'by findings',
      { sortField: 'scanFindingsCounts' },
      page0,
      org,
      { kind: 'index', order: 'findings', wholeItems: false, total: 'counters' },
    ],
    [
      'by mapped repositories: the application value over the id order',
      { sortField: 'mappedRepositoryCount' },
      page0,
      org,
      { kind: 'index', order: 'applicationValue', wholeItems: false, total: 'counters' },
    ],
    [
      'by application name: the applications walked',
      { sortField: 'applicationName' },
      page0,
      org,
      { kind: 'byApplication', order: 'name', total: 'counters' },
    ],
    ['hasFlightpathSession=true: nothing', { hasFlightpathSession: 'true' }, page0, org, { kind: 'empty' }],
    [
      'appIds: their partitions',
      { appIds: '0b5a3f3e-4f7e-4d6a-9a55-2a8d6b0f6a11' },
      page0,
      org,
      { kind: 'set', source: 'applications' },
    ],
    [
      'envIds: the id index',
      { envIds: '0b5a3f3e-4f7e-4d6a-9a55-2a8d6b0f6a11', sortField: 'scanDate' },
      page0,
      org,
      { kind: 'set', source: 'environmentIds' },
    ],
    ['envs: the name index', { envs: 'prod' }, page0, org, { kind: 'set', source: 'environmentNames' }],
    [
      'appIds and envs: the most selective first',
      { appIds: '0b5a3f3e-4f7e-4d6a-9a55-2a8d6b0f6a11', envs: 'prod' },
      page0,
      org,
      { kind: 'set', source: 'applications' },
    ],
    [
      'lastScanStatus: the status index',
      { lastScanStatus: 'LAST_SCAN_STATUS_ERRORED' },
      page0,
      org,
      { kind: 'set', source: 'lastScanStatus' },
    ],
    [
      'lastScanDate: the scan-date index',
      { lastScanDate: 'LAST_7_DAYS' },
      page0,
      org,
      { kind: 'set', source: 'lastScanDate' },
    ],
    [
      'lastScanDate unspecified filters nothing',
      { lastScanDate: 'LAST_SCAN_DATE_UNSPECIFIED' },
      page0,
      org,
      { kind: 'index', order: 'name', wholeItems: true, total: 'counters' },
    ],
    [
      'includeAppHealthStats, unfiltered: the aggregates beside the walk',
      { includeAppHealthStats: 'true' },
      page0,
      org,
      { kind: 'index', order: 'name', wholeItems: true, total: 'counters', health: 'aggregates' },
    ],
    [
      'includeAppHealthStats before the aggregates are complete: every environment read',
      { includeAppHealthStats: 'true' },
      page0,
      { ...org, healthAggregatesIncomplete: true },
      { kind: 'memory', health: 'listed' },
    ],
    [
      'includeAppHealthStats over a filtered set: summed over it',
      { includeAppHealthStats: 'true', envs: 'prod' },
      page0,
      org,
      { kind: 'set', source: 'environmentNames', health: 'listed' },
    ],
    [
      'query without names from the trigram index (two characters): in memory',
      { query: 'pp' },
      page0,
      org,
      { kind: 'memory' },
    ],
    [
      'query matched by every application: the unfiltered walk',
      { query: 'pp' },
      page0,
      { ...org, everyMatch: true },
      { kind: 'index', order: 'name', wholeItems: true, total: 'counters' },
    ],
    [
      'query by name, its names few: sorted from the names',
      { query: 'app-00001' },
      page0,
      { ...org, nameMatches: { applications: 10, environments: 0 } },
      { kind: 'set', source: 'queryNames' },
    ],
    [
      'query by scan date with one match: read whole',
      { query: 'env-123', sortField: 'scanDate' },
      page0,
      { ...org, nameMatches: { applications: 0, environments: 1 } },
      { kind: 'set', source: 'queryMatches' },
    ],
    [
      'query by scan date matching a fifth: the index walked, the total from the names',
      { query: 'stage', sortField: 'scanDate' },
      page0,
      { ...org, nameMatches: { applications: 0, environments: 200 } },
      { kind: 'index', order: 'scanDate', wholeItems: false, total: 'queryMatches' },
    ],
    [
      'query by scan date whose 10 applications hold 50 of 1,000: their partitions read whole (10 units, the walk 23)',
      { query: 'app-00001', sortField: 'scanDate', sortDir: 'DESC' },
      page0,
      { ...org, nameMatches: { applications: 10, environments: 0 } },
      { kind: 'set', source: 'queryMatches' },
    ],
    [
      'query by application name matching a fifth: the applications walked, counted by matches',
      { query: 'stage', sortField: 'applicationName' },
      page0,
      { ...org, nameMatches: { applications: 0, environments: 200 } },
      { kind: 'byApplication', order: 'name', total: 'queryMatches' },
    ],
    [
      'query by scan date with 60 matches, a page of 100: its matches read whole',
      { query: 'stage', sortField: 'scanDate', pageSize: '100' },
      { page: 0, size: 100 },
      { ...org, nameMatches: { applications: 0, environments: 60 } },
      { kind: 'set', source: 'queryMatches' },
    ],
    [
      'query and lastScanStatus, few matches: the matches read whole',
      { query: 'app-00001', lastScanStatus: 'LAST_SCAN_STATUS_ERRORED' },
      page0,
      { ...org, nameMatches: { applications: 10, environments: 0 } },
      { kind: 'set', source: 'queryMatches' },
    ],
    [
      'query and lastScanStatus, many matches: the status index',
      { query: 'stage', lastScanStatus: 'LAST_SCAN_STATUS_ERRORED' },
      page0,
      { ...org, nameMatches: { applications: 0, environments: 600 } },
      { kind: 'set', source: 'lastScanStatus' },
    ],
  ];
  it.each(cases)('%s', (_name, params, request, stats, plan) => {
    expect(planEnvironmentList(envQuery(params), request, stats)).toEqual(plan);
  });
});

describe('planApplicationList (listAppsV2)', () => {
  const apps: ApplicationListStats = { applications: 196 };
  const cases: [
    string,
    Record<string, string>,
    { page: number; size: number },
    ApplicationListStats,
    ApplicationListPlan,
  ][] = [
    ['no filter: the name order walked', {}, page0, apps, { kind: 'index', order: 'name', total: 'counters' }],
    [
      'by status',
      { sortField: 'applicationStatus', sortDir: 'DESC' },
      page0,
      apps,
      { kind: 'index', order: 'status', total: 'counters' },
    ],
    [
      'by commit activity: the application value over the id order',
      { sortField: 'thirtyDayCommitActivity' },
      page0,
      apps,
      { kind: 'index', order: 'applicationValue', total: 'counters' },
    ],
    [
      'a page of 1,000: every application read whole',
      { pageSize: '1000' },
      { page: 0, size: 1000 },
      apps,
      { kind: 'memory', items: 'whole' },
    ],
    [
      'appIds: read by key',
      { appIds: '0b5a3f3e-4f7e-4d6a-9a55-2a8d6b0f6a11', query: 'app' },
      page0,
      apps,
      { kind: 'set', source: 'applicationIds' },
    ],
    [
      'query with few names: those read by key',
      { query: 'app-00001' },
      page0,
      { ...apps, nameMatches: 10 },
      { kind: 'set', source: 'queryNames' },
    ],
    [
      'query without names (two characters): compact entries in memory',
      { query: 'pp' },
      page0,
      apps,
      { kind: 'memory', items: 'compact' },
    ],
    [
      'query with many names: compact entries in memory',
      { query: 'app' },
      page0,
      { applications: 5000, nameMatches: 3000 },
      { kind: 'memory', items: 'compact' },
    ],
    [
      'one applicationStatus held by few: read by key',
      { applicationStatus: 'ENV_INCOMPLETE' },
      page0,
      { ...apps, status: { count: 4, selected: true } },
      { kind: 'set', source: 'applicationStatus' },
    ],
    [
      'one applicationStatus held by many: the walk, its count the total',
      { applicationStatus: 'ACTIVE' },
      page0,
      { ...apps, status: { count: 192, selected: false } },
      { kind: 'index', order: 'name', total: 'applicationStatus' },
    ],
  ];
  it.each(cases)('%s', (_name, params, request, stats, plan) => {
    expect(planApplicationList(appQuery(params), request, stats)).toEqual(plan);
  });
});

describe('planDeprecatedApplicationList (listApplications)', () => {
  const cases: [string, Record<string, string>, DeprecatedApplicationListPlan][] = [
    ['no filter: applications walked by name', {}, { kind: 'byApplication', order: 'name' }],
    ['sortField id: walked by id', { sortField: 'id' }, { kind: 'byApplication', order: 'id' }],
    [
      'appIds: read by key',
      { appIds: '0b5a3f3e-4f7e-4d6a-9a55-2a8d6b0f6a11', envs: 'prod' },
      { kind: 'set', source: 'applicationIds' },
    ],
    ['envs: from the name index', { envs: 'prod' }, { kind: 'set', source: 'environmentNames' }],
  ];
  it.each(cases)('%s', (_name, params, plan) => {
    expect(planDeprecatedApplicationList(v1Query(params))).toEqual(plan);
  });
});

describe('the sortable encodings (shared/db/sortable.ts)', () => {
  it('orders numbers as numbers and names case-insensitively, then by id', () => {
    const numbers = [0, 7, 10, 99, 1_700_000_000_000, 86_400_000, 3, 1_000];
    const byKey = [...numbers].sort((a, b) => (numberOrderKey(a, 'x') < numberOrderKey(b, 'x') ? -1 : 1));
    expect(byKey).toEqual([...numbers].sort((a, b) => a - b));
    const names = [
      ['beta', 'b'],
      ['Alpha', 'z'],
      ['alpha', 'a'],
    ];
    expect(names.map(([name, id]) => nameOrderKey(name, id)).sort()).toEqual(['alpha#a', 'alpha#z', 'beta#b']);
  });

  it('is what the list indexes store', () => {
    const index = keys.environmentIndexes('org', 'env-1', 'Prod', {
      lastScanTimestamp: 1_700_000_000_123,
      lastScanStatus: 'COMPLETED',
      lastScanDuration: 42,
      lastScanTotalUntriaged: 3,
    });
    expect(index.gsi2sk).toBe(nameOrderKey('Prod', 'env-1'));
    expect(index.gsi3sk).toBe(numberOrderKey(1_700_000_000_123, 'env-1'));
    expect(index.gsi5sk).toBe(numberOrderKey(42, 'env-1'));
    expect(index.gsi6sk).toBe(numberOrderKey(3, 'env-1'));
  });
});

describe('queryStringReads (listEnvsV2: the walk prefetched beside the authorization)', () => {
  const orgId = '00000000-0000-4000-8000-000000000001';
  // The query string as a client sends it: one that does not parse decides nothing (the request answers 400).
  const firstWalkCall = (org: string, params: Record<string, string | undefined>) =>
    queryStringReads(org, listEnvironmentsV2Query.safeParse(params).data).walk;
  it('names the first Query of the walk the plan makes when the query string alone decides the plan', () => {
    // Page 0 of 10 by name: whole items (gsi2), the page and one more.
    expect(firstWalkCall(orgId, {})).toMatchObject({ index: 'gsi2', forward: true, pageLimit: 11, growing: true });
    expect(firstWalkCall(orgId, { sortField: 'scanDate', sortDir: 'DESC', pageSize: '3' })).toMatchObject({
      index: 'gsi3',
      forward: false,
      pageLimit: 4,
    });
    // Compact entries: the id order, and pages past those walked on whole items.
    expect(firstWalkCall(orgId, { sortField: 'environmentId' })).toMatchObject({ index: 'gsi4', pageLimit: 11 });
    // A deep page asks for everything up to its end (DynamoDB's 1 MB page cuts it; the next calls ask for the rest).
    expect(firstWalkCall(orgId, { pageToken: '500' })).toMatchObject({ index: 'gsi2c', pageLimit: 5011 });
    // A repository sort walks the id order after the mapped applications' environments when ascending, before them
    // when descending (read for nothing when they fill the page).
    expect(firstWalkCall(orgId, { sortField: 'mappedRepositoryCount' })).toMatchObject({ index: 'gsi4' });
    expect(firstWalkCall(orgId, { sortField: 'mappedRepositoryCount', sortDir: 'DESC' })).toMatchObject({
      index: 'gsi4',
      forward: false,
      pageLimit: 11,
    });
    // The type filter leaves the plan to the walk.
    expect(firstWalkCall(orgId, { applicationTypes: 'CLOUD' })).toMatchObject({ index: 'gsi2' });
    // A `query` without a trigram filters nothing when every application matches it: the plan without it, whose walk
    // is read beside the authorization for a page of at most 100.
    expect(firstWalkCall(orgId, { query: 'pp' })).toMatchObject({ index: 'gsi2', forward: true, pageLimit: 11 });
    expect(firstWalkCall(orgId, { query: 'pp', sortField: 'scanDate', sortDir: 'DESC' })).toMatchObject({
      index: 'gsi3',
      forward: false,
    });
    // The health figures from the aggregates, read beside the walk (which an upgraded table's incomplete ones replan).
    expect(firstWalkCall(orgId, { includeAppHealthStats: 'true' })).toMatchObject({ index: 'gsi2', pageLimit: 11 });
  });

  it('names nothing when the plan needs what the scope or the names read, walks no index, or may not make the call', () => {
    for (const params of [
      { query: 'app' }, // the trigram index's names decide the plan
      { query: 'pp', pageSize: '1000' }, // a walk of more than 100 that the plan may not make
      { teamIds: orgId }, // its first call sized by the scope's share, once the counters are read
      { teamIds: orgId, sortField: 'scanDuration' },
      { includeAppHealthStats: 'true', lastScanStatus: 'LAST_SCAN_STATUS_ERRORED' }, // summed over a set
      { sortField: 'applicationName' }, // the applications' walk, per bucket
      { envs: 'prod' }, // a set
      { hasFlightpathSession: 'true' }, // empty
      { pageSize: '0' }, // answers 400
    ])
      expect(firstWalkCall(orgId, params), JSON.stringify(params)).toBeUndefined();
  });
});

describe('queryStringReads (listEnvsV2: the fences and set partitions read beside the authorization)', () => {
  const orgId = '00000000-0000-4000-8000-000000000001';
  const reads = (params: Record<string, string>) => queryStringReads(orgId, z.parse(listEnvironmentsV2Query, params));
  it('names the fences of a deep page walked by name or scan date, and of each lastScanStatus partition', () => {
    // Page 100 of 10: past what a first call reads (800 entries), so between the learned fences.
    expect(reads({ pageToken: '100' }).fencedLists).toEqual(['envs-name-asc']);
    expect(reads({ pageToken: '100', sortField: 'scanDate', sortDir: 'DESC' }).fencedLists).toEqual([
      'envs-scanDate-desc',
    ]);
    expect(reads({ pageToken: '1' }).fencedLists).toEqual([]); // the first call reaches it
    const statuses = reads({ lastScanStatus: 'LAST_SCAN_STATUS_ERRORED,LAST_SCAN_STATUS_PENDING' });
    expect(statuses.fencedLists).toEqual(['envs-status-ERROR']); // PENDING is stored as no status
    expect(statuses.setCalls).toHaveLength(1);
    expect(statuses.walk).toBeUndefined();
  });

  it('reads the name index once per distinct name of `envs`, and nothing the names of `query` decide', () => {
    expect(reads({ envs: 'Prod,prod,stage' }).setCalls).toHaveLength(2);
    expect(reads({ query: 'prod', pageToken: '100' })).toEqual({ setCalls: [], fencedLists: [] });
  });
});

describe("a `query` walk's share and first call (list-plan.ts queryWalkShare, shareSizedLimit)", () => {
  it('keeps the matches of the organization, thinned by the scope; sized 1.65 deviations short of the page', () => {
    const organization = { applications: 2000, environments: 10000 };
    // 2,000 environments named like it (a fifth), the whole organization in scope: a walk for 11 reads 86, not 55.
    expect(queryWalkShare({ applications: 0, environments: 2000 }, organization, organization)).toBe(0.2);
    expect(shareSizedLimit(11, 0.2)).toBe(86);
    // 10 applications named like it (5 environments each), nine tenths in scope.
    const scope = { applications: 1800, environments: 9000 };
    expect(queryWalkShare({ applications: 10, environments: 0 }, scope, organization)).toBeCloseTo(0.0045);
    expect(shareSizedLimit(11, 0.0045)).toBe(1000); // at most 1,000
    expect(shareSizedLimit(11, 1)).toBe(11);
    expect(shareSizedLimit(11, 0)).toBe(11);
  });
});

describe('walkWants (a walk that filters: how many items its next call asks for)', () => {
  const page0 = { page: 0, size: 10 }; // 11 wanted: the page and one more
  it("asks for the rest scaled by the scope's share until it has kept enough to tell its own", () => {
    // One in fifty kept (a CLOUD filter): after a first call of 11 that kept none, the rest of the page in one call.
    const scoped = walkWants<boolean>(page0, (shown) => shown, 0.02);
    expect(scoped.wanted(11)).toBe(Math.ceil((11 / 0.02) * 1.25));
    // Without a share, nothing to tell yet: the calls grow as they did.
    const blind = walkWants<boolean>(page0, (shown) => shown);
    expect(blind.wanted(11)).toBeUndefined();
    // The whole organization (share 1) tells nothing either.
    expect(walkWants<boolean>(page0, (shown) => shown, 1).wanted(11)).toBeUndefined();
    // A scope of nearly everything, but another filter (a query) kept 2 of 11: sized on a quarter kept, not 98%.
    const thinned = walkWants<boolean>(page0, (shown) => shown, 0.98);
    for (let i = 0; i < 11; i++) thinned.keep(i < 2);
    expect(thinned.wanted(11)).toBe(Math.ceil(((11 - 2) / (3 / 12)) * 1.25));
    // Never fewer than the calls would grow to (4 times as many as read): 5 kept of 11 wants 15, asks for 44.
    const dense = walkWants<boolean>(page0, (shown) => shown, 0.98);
    for (let i = 0; i < 11; i++) dense.keep(i < 5);
    expect(dense.wanted(11)).toBe(44);
  });

  it('sizes on the share it kept once it kept 20, whatever the scope said', () => {
    const wants = walkWants<boolean>({ page: 4, size: 10 }, (shown) => shown, 0.02);
    for (let i = 0; i < 100; i++) wants.keep(i % 5 === 0); // 20 kept of 100 read: a fifth
    expect(wants.wanted(100)).toBe(Math.ceil(((51 - 20) * 100) / 20));
  });
});

describe('idWalkReach (listEnvsV2: how far a walk of the id order surely goes)', () => {
  const org = { applications: 2000, environments: 10_000 };
  it('surely passes about 3 standard deviations short of where the page ends, and asks for 6 beyond', () => {
    // Page 500 of 10 over every environment: about 5,011 of 10,000 ids; the count below a point errs by about 50.
    const reach = idWalkReach(5011, 800, org, org)!;
    expect(reach.entries).toBe(10_000);
    expect(reach.surely * 10_000).toBeGreaterThan(5011 - 3 * 52);
    expect(reach.surely * 10_000).toBeLessThan(5011 - 3 * 48);
    expect(reach.tail).toBeGreaterThan(6 * 48);
    expect(reach.tail).toBeLessThan(6 * 52);
    // A scope of 9 tenths passes 10 ninths as many.
    const scoped = idWalkReach(4500, 800, { applications: 1800, environments: 9000 }, org)!;
    expect(scoped.surely * 10_000).toBeGreaterThan(5000 - 3 * 52);
    expect(scoped.surely * 10_000).toBeLessThan(5000 - 3 * 48);
  });

  it('is undefined when the first call reaches as far, or there is nothing to walk', () => {
    expect(idWalkReach(11, 11, org, org)).toBeUndefined();
    expect(idWalkReach(850, 800, org, org)).toBeUndefined();
    expect(idWalkReach(5011, 800, { applications: 0, environments: 0 }, org)).toBeUndefined();
    // Past the end: every id, but a few.
    expect(idWalkReach(50_000, 800, org, org)!.surely).toBeGreaterThan(0.99);
  });
});

describe('keptReach (listEnvsV2: how far a walk goes, with the kept counts of its scope at its fences)', () => {
  it('passes every fence before which its scope kept fewer than the page, and ends short of the next', () => {
    // 700 places per fence; a scope keeping 600, then 500, then 650 of them (1,100 and 1,750 by the 2nd and 3rd).
    const counts = [600, 1100, 1750, 2400];
    const reach = keptReach(1500, counts, 700, 0.88);
    expect(reach.surely).toBe(1400);
    // 400 more at 650 / 700: about 431 places, within the 3rd fence.
    const kept = 650 / 700;
    const deviation = Math.sqrt((400 / kept) * kept * (1 - kept)) / kept;
    expect(reach.end).toBe(Math.min(Math.ceil(1400 + 400 / kept + deviation + FENCE_SLACK), 2100 + FENCE_SLACK));
    expect(reach.scale).toBe(1);
    // A page exactly at a fence's count: the fence is not surely passed (its entry may be the page's last).
    expect(keptReach(1100, counts, 700, 0.88).surely).toBe(700);
    // Past the last fence: the scope's share over the rest.
    const past = keptReach(3000, counts, 700, 0.88);
    expect(past.surely).toBe(2800);
    expect(past.end).toBe(Math.ceil(2800 + 600 / 0.88 + Math.sqrt((600 / 0.88) * 0.88 * 0.12) / 0.88 + FENCE_SLACK));
    // Before the first fence: nothing surely passed.
    expect(keptReach(300, counts, 700, 0.88).surely).toBe(0);
  });
});

describe('fenceReach (listEnvsV2: how far a walk of an order surely goes, with its fences)', () => {
  const org = { applications: 2000, environments: 10_000 };
  it('reaches the page within a few entries when only the counters tell, fresh fences at their places', () => {
    expect(fenceReach(5011, org, org, 10_000)).toEqual({ surely: 5011, end: 5011 + FENCE_SLACK, scale: 1 });
  });
  it("reads 1 deviation of a thinned scope's kept count past the page, in places, its segments a growth's drift short", () => {
    // A scope of 9 tenths: 5,000 passed for 4,500 kept, the kept count erring by about 21 (the square root of 5,000 x
    // 0.9 x 0.1), 21 / 0.9 places.
    const scoped = fenceReach(4500, { applications: 1800, environments: 9000 }, org, 10_000)!;
    expect(scoped.surely).toBe(Math.floor(5000 + Math.sqrt(450) / 0.9));
    expect(scoped.end).toBe(Math.ceil(5000 + Math.sqrt(450) / 0.9 + FENCE_SLACK));
    // A `query` keeping a fifth: 3,005 passed for 601 kept, erring by about 22 kept, 110 places.
    const query = fenceReach(601, { applications: 2000, environments: 2000 }, org, 10_000)!;
    const deviation = Math.sqrt(3005 * 0.2 * 0.8) / 0.2;
    expect(query.surely).toBe(Math.floor(3005 + deviation));
    expect(query.end).toBe(Math.ceil(3005 + deviation + FENCE_SLACK));
    const grown = fenceReach(5011, org, org, 8000)!;
    expect(grown.scale).toBe(1.25);
    expect(grown.surely).toBe(Math.floor(5011 - (2000 * 0.5011) / 4));
    expect(grown.end).toBe(5011 + FENCE_SLACK);
  });
  it('is undefined when there is nothing to walk or no fences were learned', () => {
    expect(fenceReach(5011, { applications: 0, environments: 0 }, org, 10_000)).toBeUndefined();
    expect(fenceReach(5011, org, org, 0)).toBeUndefined();
  });
});
