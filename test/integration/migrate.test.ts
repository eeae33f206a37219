import { OWN_TABLE } from './own-table.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { api, useServer } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { newApp, newTeam } from './team-helpers.ts';
import { alert, completeScan, reportAlerts, startScan } from './scan-helpers.ts';
import { startLocalServer } from '../../scripts/local/server.ts';
import { addMissingIndexes, createTableInput } from '../../scripts/local/provision.ts';
import { freePort } from '../../scripts/local/ports.ts';
import { db } from '../../shared/db/client.ts';
import { config } from '../../shared/config.ts';
import { mainTable } from '../../shared/db/tables.ts';
import { transactWrite } from '../../shared/db/transactions.ts';
import { applicationDeletingMark, getApplication } from '../../shared/applications/application-repository.ts';
import { backfillIndexKeys, backfillItem, type IndexKeysOf } from '../../shared/db/backfill.ts';
import { indexedEntities, tableMigration } from '../../shared/table-migration.ts';
import { BUCKET_HEALTH_FIELDS } from '../../shared/applications/model.ts';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';

// The index backfill (npm run migrate; npm start on an older data directory) over application and environment
// items in the format of the version before the compact list indexes (commit 9a16f6a): this file has a main table
// and an HTTP server of its own (own-table.ts), so the migration's whole-table scan sees only its data.

type Item = Record<string, unknown>;
const root = new URL('../../', import.meta.url).pathname;
const INDEX_KEYS = mainTable.globalSecondaryIndexes.flatMap((i) => [i.partitionKey.name, i.sortKey.name]);
const client = new DynamoDBClient({
  region: config.region,
  endpoint: config.dynamodbEndpoint,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

/**
 * The item as the version before 9a16f6a wrote it, derived from what the current code wrote: applications carried
 * one index entry, gsi2 `ORGAPPS#<orgId>` / lower-cased name and id (removed when a delete started), and none of
 * gsi1/gsi4-6; environments carried gsi1-3 as today (same formats) and none of gsi4-6.
 */
function oldFormat(item: Item): Item {
  const old = { ...item };
  for (const name of INDEX_KEYS)
    if (!['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'gsi3pk', 'gsi3sk'].includes(name)) delete old[name];
  if (item.entity === 'application') {
    delete old.gsi1pk;
    delete old.gsi1sk;
    if (!item.deleting)
      Object.assign(old, {
        gsi2pk: `ORGAPPS#${item.organizationId}`,
        gsi2sk: `${String(item.name).toLowerCase()}#${item.applicationId}`,
      });
  }
  return old;
}

async function tableItems(table = OWN_TABLE): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await db.send(new ScanCommand({ TableName: table, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}
const indexed = (items: Item[]) => items.filter((i) => i.entity === 'application' || i.entity === 'environment');
const byKey = (items: Item[]) => Object.fromEntries(items.map((i) => [`${i.pk}|${i.sk}`, i]));
const getItem = async (key: Item) =>
  (await db.send(new GetCommand({ TableName: OWN_TABLE, Key: { pk: key.pk, sk: key.sk }, ConsistentRead: true }))).Item;
const putAll = (items: Item[], table = OWN_TABLE) =>
  Promise.all(items.map((Item) => db.send(new PutCommand({ TableName: table, Item }))));

let server: Server;
let tenant: Tenant;
let teamId: string;
const ids: Record<string, string> = {};

const get = (path: string, query: Record<string, string | number> = {}) =>
  api('GET', path, { token: tenant.token, query });

/** Every list answer this file compares before and after the migration, by a readable name. */
async function listAnswers(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const envs = `/api/v2/org/${tenant.orgId}/envs`;
  const apps = `/api/v2/org/${tenant.orgId}/apps`;
  for (const sortDir of ['asc', 'desc']) {
    for (const sortField of [
      'environmentId',
      'environmentName',
      'applicationName',
      'scanDate',
      'scanDuration',
      'scanFindingsCounts',
    ]) {
      out[`envs ${sortField} ${sortDir}`] = (await get(envs, { sortField, sortDir, pageSize: 100 })).body;
    }
    for (const sortField of ['applicationId', 'applicationName', 'applicationStatus']) {
      out[`apps ${sortField} ${sortDir}`] = (await get(apps, { sortField, sortDir, pageSize: 100 })).body;
    }
  }
  const filters: [string, Record<string, string | number>][] = [
    ['lastScanStatus', { lastScanStatus: 'LAST_SCAN_STATUS_SUCCESS' }],
    ['lastScanStatus errored', { lastScanStatus: 'LAST_SCAN_STATUS_ERRORED' }],
    ['never scanned', { lastScanStatus: 'LAST_SCAN_STATUS_UNSPECIFIED' }],
    ['envs', { envs: 'dev' }],
    ['types', { applicationTypes: 'STANDARD,CLOUD' }],
    ['team', { teamIds: teamId }],
    ['query', { query: 'an' }],
  ];
  for (const [name, query] of filters) out[`envs ${name}`] = (await get(envs, { ...query, pageSize: 100 })).body;
  for (const [name, query] of [
    ['status', { applicationStatus: 'ENV_INCOMPLETE' }],
    ['types', { applicationTypes: 'CLOUD' }],
    ['team', { teamIds: teamId }],
  ] as [string, Record<string, string>][]) {
    out[`apps ${name}`] = (await get(apps, { ...query, pageSize: 100 })).body;
  }
  out['v1 list'] = (await get(`/api/v1/app/${tenant.orgId}/list`, { pageSize: 100 })).body;
  return out;
}

let expected: Record<string, unknown>;
let current: Item[];

beforeAll(async () => {
  await client.send(new CreateTableCommand(createTableInput(mainTable, OWN_TABLE)));
  const port = await freePort();
  server = await startLocalServer(port);
  useServer(`http://127.0.0.1:${port}`);
  tenant = await createTenant();
  ids.banana = await newApp(tenant.orgId, tenant.token, 'Banana', 'dev');
  ids.apple = await newApp(tenant.orgId, tenant.token, 'apple', 'prod');
  ids.cherry = await newApp(tenant.orgId, tenant.token, 'Cherry', 'qa');
  ids.empty = await newApp(tenant.orgId, tenant.token, 'Empty');
  ids.doomed = await newApp(tenant.orgId, tenant.token, 'Doomed', 'dev');
  const cloud = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
    token: tenant.token,
    body: { name: 'Cloudy', env: 'dev', applicationType: 'CLOUD', cloudScanTargetURL: 'https://c.example.test' },
  });
  ids.cloudy = cloud.body.applicationId;
  await api('POST', `/api/v1/app/${ids.banana}/env`, { token: tenant.token, body: { env: 'stage' } });
  teamId = (
    await newTeam(tenant.orgId, tenant.token, {
      name: 'Owners',
      userIds: [tenant.userId],
      applicationIds: [ids.cherry],
    })
  ).id;
  // Last scans: a completed one with findings on Banana/dev, an errored one on apple/prod.
  const done = await startScan(tenant.token, ids.banana, { env: 'dev' });
  await reportAlerts(tenant.token, done.scanId, [alert('10038', 'High', 2), alert('10020', 'Low', 3)]);
  await completeScan(tenant.token, done.scanId);
  const failed = await startScan(tenant.token, ids.apple, { env: 'prod' });
  await completeScan(tenant.token, failed.scanId, 'ERROR');
  // An application whose cascade delete has started (its environment still listed in the indexes until removed).
  await transactWrite(applicationDeletingMark((await getApplication(ids.doomed))!));

  expected = await listAnswers();
  current = indexed(await tableItems());
}, 120_000);

afterAll(async () => {
  server?.close();
  await client.send(new DeleteTableCommand({ TableName: OWN_TABLE })).catch(() => undefined);
  client.destroy();
});

describe('index backfill (npm run migrate)', () => {
  it('gives items of the earlier format the keys the write paths give: the lists answer as before, re-running changes nothing', async () => {
    // What the lists show of this data (sanity: the expectations are not empty).
    expect(
      (expected['apps applicationName asc'] as { applications: { name: string }[] }).applications.map((a) => a.name),
    ).toEqual(['apple', 'Banana', 'Cherry', 'Empty']);
    expect((expected['envs environmentName asc'] as { totalCount: string }).totalCount).toBe('4');
    expect(
      (expected['envs lastScanStatus'] as { environments: { environmentName: string }[] }).environments.map(
        (e) => e.environmentName,
      ),
    ).toEqual(['dev']);
    expect(
      (expected['envs scanFindingsCounts desc'] as { environments: { lastScanTotalUntriaged: number }[] })
        .environments[0].lastScanTotalUntriaged,
    ).toBe(5);
    expect(
      (expected['envs team'] as { environments: { environmentName: string }[] }).environments.map(
        (e) => e.environmentName,
      ),
    ).toEqual(['qa']);
    const applications = current.filter((i) => i.entity === 'application').length;
    const environments = current.filter((i) => i.entity === 'environment').length;
    expect([applications, environments]).toEqual([6, 6]);

    await putAll(current.map(oldFormat));
    const before = await listAnswers();
    expect((before['apps applicationName asc'] as { applications: unknown[] }).applications).toEqual([]);
    expect((before['envs scanDuration asc'] as { environments: unknown[] }).environments).toEqual([]);
    expect(before).not.toEqual(expected);

    const progress: number[] = [];
    const summary = await backfillIndexKeys({
      tableName: OWN_TABLE,
      entities: indexedEntities,
      segments: 3,
      onProgress: (s) => progress.push(s.scanned),
    });
    expect(summary).toMatchObject({
      scanned: 12,
      updated: 12,
      current: 0,
      gone: 0,
      conflicts: 0,
      reread: 0,
      segmentsDone: 3,
      segments: 3,
    });
    expect(summary.updatedByEntity).toEqual({ application: 6, environment: 6 });
    expect(progress.length).toBeGreaterThanOrEqual(3);
    // Exactly the items the current write paths wrote (the old applications' gsi2 entry removed), and the lists.
    expect(byKey(indexed(await tableItems()))).toEqual(byKey(current));
    expect(await listAnswers()).toEqual(expected);

    const again = await backfillIndexKeys({ tableName: OWN_TABLE, entities: indexedEntities });
    expect(again).toMatchObject({ scanned: 12, updated: 0, current: 12, gone: 0, conflicts: 0 });
    expect(byKey(indexed(await tableItems()))).toEqual(byKey(current));
  });

  it('npm run migrate: progress and what to do next on stderr, the summary on stdout', async () => {
    const app = (await tableItems()).find((i) => i.entity === 'application' && !i.deleting)!;
    await putAll([oldFormat(app)]);
    const tmp = mkdtempSync(join(tmpdir(), 'hawk-migrate-cli-'));
    const run = (args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts', ...args], {
          cwd: root,
          env: { ...process.env, TMPDIR: tmp },
        });
        let [stdout, stderr] = ['', ''];
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.once('error', reject);
        child.once('exit', (status) => resolve({ status, stdout, stderr }));
      });
    const out = await run(['--table', OWN_TABLE, '--segments', '2']);
    expect(out.status, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      tableName: OWN_TABLE,
      updated: 1,
      updatedByEntity: { application: 1, environment: 0 },
      conflicts: 0,
      segments: 2,
      segmentsDone: 2,
    });
    expect(out.stderr).toContain(`migrate: table ${OWN_TABLE} (${process.env.DYNAMODB_ENDPOINT}), 2 scan segments`);
    expect(out.stderr).toMatch(/migrate: done: \d+ items read; updated 1 application, 0 environment;/);
    expect(out.stderr).toContain('Nothing more to do');
    expect(readdirSync(tmp).filter((f) => f.startsWith('hawk-migrate-'))).toEqual([]); // the state file is removed once done
    expect(await getItem(app)).toEqual(app);
    const usage = await run([]);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('name one table: --local, --stack or --table');
    rmSync(tmp, { recursive: true, force: true });
  });

  it('resumes from its state file: pages recorded as done are not read again', async () => {
    await putAll(current.map(oldFormat));
    const stateFile = join(mkdtempSync(join(tmpdir(), 'hawk-migrate-')), 'state.json');
    // Which items the scan's segment 1 of 2 holds (DynamoDB spreads items over segments by key hash).
    const inSegment1 = indexed(
      (await db.send(new ScanCommand({ TableName: OWN_TABLE, Segment: 1, TotalSegments: 2 }))).Items ?? [],
    ).length;
    // Segment 0 recorded as done, segment 1 not started: only segment 1's items are read and updated.
    writeFileSync(stateFile, JSON.stringify({ tableName: OWN_TABLE, segments: 2, progress: [{ done: true }, {}] }));
    const partial = await backfillIndexKeys({
      tableName: OWN_TABLE,
      entities: indexedEntities,
      segments: 2,
      stateFile,
    });
    expect(existsSync(stateFile)).toBe(false);
    expect(partial).toMatchObject({ scanned: inSegment1, updated: inSegment1 });
    const rest = await backfillIndexKeys({ tableName: OWN_TABLE, entities: indexedEntities, segments: 2, stateFile });
    expect(rest).toMatchObject({ scanned: 12, updated: 12 - inSegment1, current: inSegment1 });
    expect(byKey(indexed(await tableItems()))).toEqual(byKey(current));
  });

  it('never overwrites a newer write: an item changed after the scan read it is read again and decided on its new state', async () => {
    const app = current.find((i) => i.applicationId === ids.apple && i.entity === 'application')!;
    const env = current.find(
      (i) => i.entity === 'environment' && i.applicationId === ids.banana && i.name === 'stage',
    )!;
    const staleApp = oldFormat(app);
    const staleEnv = oldFormat(env);
    await putAll([staleApp, staleEnv]);
    // Newer writes by the current code after the scan read the old items: a rename, a scan completing.
    expect(
      (await api('POST', `/api/v1/app/${ids.apple}`, { token: tenant.token, body: { name: 'Apricot' } })).status,
    ).toBe(200);
    const scan = await startScan(tenant.token, ids.banana, { env: 'stage' });
    await reportAlerts(tenant.token, scan.scanId, [alert('10038', 'Medium', 4)]);
    await completeScan(tenant.token, scan.scanId);

    const appOutcome = await backfillItem(OWN_TABLE, staleApp, indexedEntities);
    const envOutcome = await backfillItem(OWN_TABLE, staleEnv, indexedEntities);
    expect(appOutcome).toEqual({ outcome: 'updated', rereads: 1 });
    expect(envOutcome).toEqual({ outcome: 'updated', rereads: 1 });
    const freshApp = (await getItem(app))!;
    expect(freshApp).toMatchObject({ name: 'Apricot', gsi4sk: `apricot#${ids.apple}` });
    expect(freshApp.gsi2pk).toBeUndefined();
    const freshEnv = (await getItem(env))!;
    expect(freshEnv).toMatchObject({ lastScanId: scan.scanId, lastScanStatus: 'COMPLETED', lastScanTotalUntriaged: 4 });
    // Every key is the write path's for the item as it now is.
    for (const [item, keysOf] of [
      [freshApp, indexedEntities.application],
      [freshEnv, indexedEntities.environment],
    ] as const) {
      const keys = (keysOf as (i: Item) => Record<string, string>)(item);
      for (const name of INDEX_KEYS) expect(item[name], name).toBe(keys[name]);
    }
    // By findings: Banana/dev's 5, then this one's 4.
    const byFindings = (
      await get(`/api/v2/org/${tenant.orgId}/envs`, { sortField: 'scanFindingsCounts', sortDir: 'desc', pageSize: 2 })
    ).body;
    expect(byFindings.environments.map((e: { lastScanTotalUntriaged: number }) => e.lastScanTotalUntriaged)).toEqual([
      5, 4,
    ]);
    expect(byFindings.environments[1].environmentId).toBe(env.environmentId);
    const byName = (await get(`/api/v2/org/${tenant.orgId}/apps`, { pageSize: 100 })).body;
    expect(byName.applications.map((a: { name: string }) => a.name)).toEqual(['Apricot', 'Banana', 'Cherry', 'Empty']);
  });

  it('never resurrects a deleted item', async () => {
    const env = current.find((i) => i.entity === 'environment' && i.applicationId === ids.apple)!;
    const app = current.find((i) => i.entity === 'application' && i.applicationId === ids.empty)!;
    const [staleEnv, staleApp] = [oldFormat(env), oldFormat(app)];
    await putAll([staleEnv, staleApp]);
    expect(
      (await api('DELETE', `/api/v1/app/${ids.apple}/env/${env.environmentId}`, { token: tenant.token })).status,
    ).toBe(200);
    expect((await api('DELETE', `/api/v1/app/${ids.empty}`, { token: tenant.token })).status).toBe(200);
    expect(await getItem(env)).toBeUndefined();
    expect(await getItem(app)).toBeUndefined();
    expect(await backfillItem(OWN_TABLE, staleEnv, indexedEntities)).toEqual({ outcome: 'gone', rereads: 1 });
    expect(await backfillItem(OWN_TABLE, staleApp, indexedEntities)).toEqual({ outcome: 'gone', rereads: 1 });
    expect(await getItem(env)).toBeUndefined();
    expect(await getItem(app)).toBeUndefined();
  });

  it('a key function that enumerates the item (a spread) conditions the write on every attribute present, maps included', async () => {
    const spread = ((item: Item) => {
      const all: Item = { ...item };
      return { ...indexedEntities.application(all as never), gsi6sk: `spread#${all.applicationId}` };
    }) as IndexKeysOf;
    const key = { pk: `APP#${ids.cloudy}`, sk: '#APP' };
    const cloud = (await getItem(key))!;
    expect(cloud.cloudScanTarget).toEqual({ targetURL: 'https://c.example.test', isDomainVerified: false });
    expect(await backfillItem(OWN_TABLE, cloud, { application: spread })).toEqual({ outcome: 'updated', rereads: 0 });
    // A change of an attribute the keys do not derive from: a function reading by name is not concerned ...
    const read = (await getItem(key))!;
    await db.send(new PutCommand({ TableName: OWN_TABLE, Item: { ...read, riskLevel: 'HIGH' } }));
    expect(await backfillItem(OWN_TABLE, read, indexedEntities)).toEqual({ outcome: 'updated', rereads: 0 });
    expect((await getItem(key))!.riskLevel).toBe('HIGH');
    // ... one that enumerates it reads it again.
    const again = (await getItem(key))!;
    await db.send(new PutCommand({ TableName: OWN_TABLE, Item: { ...again, riskLevel: 'LOW' } }));
    expect(await backfillItem(OWN_TABLE, again, { application: spread })).toEqual({ outcome: 'updated', rereads: 1 });
    expect((await getItem(key))!).toMatchObject({ riskLevel: 'LOW', gsi6sk: `spread#${ids.cloudy}` });
    expect(await backfillItem(OWN_TABLE, (await getItem(key))!, indexedEntities)).toEqual({
      outcome: 'updated',
      rereads: 0,
    });
  });

  it('counts applications written before the health aggregates: statistics from the environments until then, the same after', async () => {
    const health = async (query: Record<string, string> = {}) => {
      const out = await get(`/api/v2/org/${tenant.orgId}/envs`, {
        ...query,
        includeAppHealthStats: 'true',
        pageSize: 1,
      });
      expect(out.status, out.text).toBe(200);
      return { findingsHealth: out.body.findingsHealth, scanFrequencyHealth: out.body.scanFrequencyHealth };
    };
    const scopes: Record<string, string>[] = [{}, { applicationTypes: 'STANDARD,CLOUD' }, { teamIds: teamId }];
    const expectedStats = await Promise.all(scopes.map((q) => health(q)));
    expect(expectedStats[0].findingsHealth.total).toBeGreaterThan(0);
    expect(expectedStats[1].scanFrequencyHealth.totalApps).toBeGreaterThan(2);
    const aggregates = (items: Item[]) =>
      items.filter(
        (i) =>
          i.entity === 'application' ||
          i.entity === 'organizationCounter' ||
          i.entity === 'healthDayCounter' ||
          i.entity === 'healthReady' ||
          i.entity === 'migration',
      );
    const counted = aggregates(await tableItems());
    // The items as the version before the aggregates wrote them: no figures on applications and counters, no day
    // counters, no markers.
    for (const item of counted) {
      if (item.entity === 'application') {
        const { health: _h, healthVersion: _v, ...old } = item;
        if (String(item.gsi5pk).startsWith('ORGAPPSCANS#'))
          Object.assign(old, { gsi5pk: undefined, gsi5sk: undefined });
        await db.send(
          new PutCommand({
            TableName: OWN_TABLE,
            Item: Object.fromEntries(Object.entries(old).filter(([, v]) => v !== undefined)),
          }),
        );
      } else if (item.entity === 'organizationCounter') {
        await db.send(
          new PutCommand({
            TableName: OWN_TABLE,
            Item: Object.fromEntries(
              Object.entries(item).filter(([k]) => !(BUCKET_HEALTH_FIELDS as readonly string[]).includes(k)),
            ),
          }),
        );
      } else await db.send(new DeleteCommand({ TableName: OWN_TABLE, Key: { pk: item.pk, sk: item.sk } }));
    }
    // Not ready: the statistics come from the environments, and are the same.
    expect(await Promise.all(scopes.map((q) => health(q)))).toEqual(expectedStats);

    const summary = await backfillIndexKeys({ ...tableMigration(OWN_TABLE), segments: 2 });
    expect(summary).toMatchObject({
      conflicts: 0,
      steppedByEntity: { application: counted.filter((i) => i.entity === 'application' && !i.deleting).length },
    });
    // Every figure, counter, day counter and marker as the write paths had kept them (sums that went back to 0 may be
    // absent, versions differ), and the same statistics.
    const comparable = (items: Item[]) =>
      byKey(
        aggregates(items)
          .filter((i) => !(i.entity === 'healthDayCounter' && i.applications === 0))
          // A deleting application is no longer counted: its figures stay as they were, or absent.
          .map(({ healthVersion: _v, ...i }) => (i.deleting ? { ...i, health: undefined } : i))
          .map((i) =>
            i.entity === 'organizationCounter' ? Object.fromEntries(Object.entries(i).filter(([, v]) => v !== 0)) : i,
          ),
      );
    expect(comparable(await tableItems())).toEqual(comparable(counted));
    expect(await Promise.all(scopes.map((q) => health(q)))).toEqual(expectedStats);
    const again = await backfillIndexKeys(tableMigration(OWN_TABLE));
    expect(again).toMatchObject({ updated: 0, conflicts: 0, steppedByEntity: { application: 0 } });
  });

  it('npm start on a table of the earlier version: backfills, then adds the missing indexes (once)', async () => {
    const oldTable = `${OWN_TABLE}-old`;
    const earlier = {
      ...mainTable,
      globalSecondaryIndexes: mainTable.globalSecondaryIndexes.filter((i) =>
        ['gsi1', 'gsi2', 'gsi3'].includes(i.indexName),
      ),
    };
    await client.send(new CreateTableCommand(createTableInput(earlier, oldTable)));
    try {
      const items = indexed(await tableItems());
      await putAll(items.map(oldFormat), oldTable);
      const lines: string[] = [];
      await addMissingIndexes(client, mainTable, oldTable, (line) => lines.push(line));
      expect(lines[0]).toContain('gsi1c, gsi2c, gsi3c, gsi4, gsi5, gsi6');
      expect(lines.at(-1)).toBe(
        `Table ${oldTable} upgraded: ${items.length} items given their index keys, ${mainTable.globalSecondaryIndexes.length - 3} indexes added.`,
      );
      const described = await client.send(new DescribeTableCommand({ TableName: oldTable }));
      expect(described.Table!.GlobalSecondaryIndexes!.map((i) => i.IndexName).sort()).toEqual(
        mainTable.globalSecondaryIndexes.map((i) => i.indexName).sort(),
      );
      // The new indexes hold the backfilled entries: applications by name in their (type, team) partition.
      const names = await db.send(
        new QueryCommand({
          TableName: oldTable,
          IndexName: 'gsi4',
          KeyConditionExpression: 'gsi4pk = :pk',
          ExpressionAttributeValues: { ':pk': `ORGAPPNAMES#${tenant.orgId}#STANDARD#-` },
        }),
      );
      expect(names.Items!.map((i) => i.name)).toEqual(['Apricot', 'Banana']);
      expect(byKey(indexed(await tableItems(oldTable)))).toEqual(byKey(items));
      lines.length = 0;
      await addMissingIndexes(client, mainTable, oldTable, (line) => lines.push(line));
      expect(lines).toEqual([]);
    } finally {
      await client.send(new DeleteTableCommand({ TableName: oldTable }));
    }
  });
});
