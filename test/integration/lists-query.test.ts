import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { api, type ApiResponse } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { newApp, newTeam } from './team-helpers.ts';
import {
  applicationIndexKeys,
  applicationPuts,
  getApplication,
  organizationCounterChange,
} from '../../shared/applications/application-repository.ts';
import { type ApplicationRecord } from '../../shared/applications/model.ts';
import { environmentIndexKeys, environmentsOfApp } from '../../shared/applications/environment-repository.ts';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/db/client.ts';
import { config } from '../../shared/config.ts';
import { transactWrite } from '../../shared/db/transactions.ts';
import { queryAll } from '../../shared/db/query.ts';
import { keys, MAX_NAME_TRIGRAMS, trigrams } from '../../shared/db/keys.ts';
import { seedEnvironments as seedInBulk } from '../../scripts/bench/seed-environments.ts';

// The `query` filter of List Environments V2 and List Applications V2 (docs/API.md, List Environments V2: a
// case-insensitive part of the application's or environment's name), served by the name trigram index (keys.ts
// nameIndex). Every answer is compared with the same filter applied to the unfiltered list, over names of every kind
// the index treats apart: short (no trigram), long (unindexed), created in bulk (unindexed), mixed case, non-ASCII,
// renamed, deleted.

let org: Tenant;
let outsider: Awaited<ReturnType<typeof addUserTo>>;
const LONG = `Long ${Array.from({ length: 7 }, () => randomUUID()).join(' ')}`.slice(0, 255);

beforeAll(async () => {
  org = await createTenant();
  outsider = await addUserTo(org.orgId); // a member of no team
  const payments = await newApp(org.orgId, org.token, 'Payments-API', 'Prod');
  for (const env of ['dev', 'staging-eu-west-1', 'qa'])
    await api('POST', `/api/v1/app/${payments}/env`, { token: org.token, body: { env } });
  const worker = await newApp(org.orgId, org.token, 'payments worker', 'dev');
  await api('POST', `/api/v1/app/${worker}/env`, { token: org.token, body: { env: LONG.slice(0, 200) } });
  await newApp(org.orgId, org.token, 'ab', 'x1');
  await newApp(org.orgId, org.token, LONG, 'EU-prod');
  await newApp(org.orgId, org.token, 'Straße-Ärzte', 'ärzte-dev');
  const inventory = await newApp(org.orgId, org.token, 'Inventory', 'dev');
  await api('POST', `/api/v1/app/${inventory}/env`, { token: org.token, body: { env: 'Inventory-Prod' } });
  // Owned by a team the outsider is not in.
  await newTeam(org.orgId, org.token, { name: 'owners', userIds: [org.userId], applicationIds: [worker] });
  // Created in bulk (as applications for repositories are): the unindexed partition holds its name.
  const bulk: ApplicationRecord = {
    applicationId: randomUUID(),
    organizationId: org.orgId,
    name: 'bulk-payments',
    applicationType: 'STANDARD',
    applicationStatus: 'ENV_INCOMPLETE',
    environmentCount: 0,
    createdAt: Date.now(),
  };
  await transactWrite([
    ...applicationPuts(bulk, { indexName: false }),
    organizationCounterChange(org.orgId, 'STANDARD', undefined, { applications: 1, environments: 0 }),
  ]);
  // Renames and deletes: the old names must no longer match, the new ones must.
  const renamed = await newApp(org.orgId, org.token, 'Old Billing', 'old-env');
  expect((await api('POST', `/api/v1/app/${renamed}`, { token: org.token, body: { name: 'New Ledger' } })).status).toBe(
    200,
  );
  const env = (await api('GET', `/api/v1/app/${renamed}/env/list`, { token: org.token })).body.environments[0];
  expect(
    (
      await api('POST', `/api/v1/app/${renamed}/env/${env.environmentId}`, {
        token: org.token,
        body: { name: 'Fresh-Env' },
      })
    ).status,
  ).toBe(200);
  const gone = await newApp(org.orgId, org.token, 'Removed Payments', 'doomed-env');
  await api('POST', `/api/v1/app/${gone}/env`, { token: org.token, body: { env: 'kept-env' } });
  const doomed = (await api('GET', `/api/v1/app/${gone}/env/list`, { token: org.token })).body.environments.find(
    (e: { environmentName: string }) => e.environmentName === 'doomed-env',
  );
  expect((await api('DELETE', `/api/v1/app/${gone}/env/${doomed.environmentId}`, { token: org.token })).status).toBe(
    200,
  );
  const deletedApp = await newApp(org.orgId, org.token, 'Deleted Payments', 'dev');
  expect((await api('DELETE', `/api/v1/app/${deletedApp}`, { token: org.token })).status).toBe(200);
}, 120_000);

interface EnvView {
  environmentId: string;
  environmentName: string;
  applicationId: string;
  applicationName: string;
  lastScanStatus?: string;
}

/**
 * `applications` applications of 5 environments each, as the repositories write them, in bulk
 * (scripts/bench/seed-environments.ts): a tenth owned by `teamId`, names from `prefix` (a list deep enough for several
 * DynamoDB pages).
 */
const seedEnvironments = (orgId: string, applications: number, teamId: string, prefix?: string) =>
  seedInBulk({ orgId, applications, teamId, prefix, id: () => randomUUID() });

/** A V2 environment page is `expected` (every environment id, in order) sliced: its ids, count and next page. */
function expectSlice(out: ApiResponse, expected: string[], pageSize: number, pageToken: number, label: string) {
  expect(out.status, out.text).toBe(200);
  expect(
    out.body.environments.map((e: EnvView) => e.environmentId),
    label,
  ).toEqual(expected.slice(pageSize * pageToken, pageSize * (pageToken + 1)));
  expect(out.body.totalCount, label).toBe(String(expected.length));
  const hasNext = pageSize * (pageToken + 1) < expected.length;
  expect(out.body.hasNext, label).toBe(hasNext);
  expect(out.body.nextPageToken, label).toBe(hasNext ? String(pageToken + 1) : '');
}

const envs = (token: string, query: Record<string, string | number>) =>
  api('GET', `/api/v2/org/${org.orgId}/envs`, { token, query: { pageSize: 1000, ...query } });
const apps = (token: string, query: Record<string, string | number>) =>
  api('GET', `/api/v2/org/${org.orgId}/apps`, { token, query: { pageSize: 1000, ...query } });

const TEXTS = [
  'pay',
  'PAY',
  'ments',
  'ments-',
  'ents w',
  'api',
  'PROD',
  '-prod',
  'eu-',
  'dev',
  'ventory',
  'x1',
  'ab',
  'a',
  'ledger',
  'billing',
  'old-env',
  'fresh',
  'doomed',
  'kept',
  'removed',
  'deleted',
  'bulk',
  'zzz',
  ' w',
  'long ',
];

describe('query: part of the name, from the trigram index', () => {
  it("List Environments V2 returns exactly the environments whose or whose application's name contains the text, for every caller", async () => {
    for (const caller of [org, outsider]) {
      const everything: EnvView[] = (await envs(caller.token, {})).body.environments;
      expect(everything.length).toBeGreaterThan(caller === org ? 10 : 8);
      // Texts taken from the names as well: substrings at the start, middle and end of long names (unindexed).
      const texts = [...TEXTS, LONG.slice(100, 110).toUpperCase(), LONG.slice(-12), LONG.slice(5, 20)];
      for (const text of texts) {
        const lower = text.toLowerCase();
        const expected = everything
          .filter(
            (e) => e.environmentName.toLowerCase().includes(lower) || e.applicationName.toLowerCase().includes(lower),
          )
          .map((e) => e.environmentId);
        const out = await envs(caller.token, { query: text });
        expect(out.status, out.text).toBe(200);
        expect(out.body.environments.map((e: EnvView) => e.environmentId).sort(), `${text}`).toEqual(
          [...expected].sort(),
        );
        expect(out.body.totalCount, text).toBe(String(expected.length));
      }
      expect((await envs(caller.token, { query: 'doomed' })).body.totalCount).toBe('0');
      expect((await envs(caller.token, { query: 'old billing' })).body.totalCount).toBe('0');
    }
    expect((await envs(org.token, { query: 'ledger' })).body.totalCount).toBe('1');
    expect((await envs(org.token, { query: 'ents w' })).body.totalCount).toBe('2'); // the team's application, its two environments
    expect((await envs(outsider.token, { query: 'ents w' })).body.totalCount).toBe('0');
  }, 120_000);

  it('combines with the other filters, every sort both ways and paging', async () => {
    const everything: EnvView[] = (await envs(org.token, {})).body.environments;
    const matching = (text: string) =>
      everything.filter(
        (e) => e.environmentName.toLowerCase().includes(text) || e.applicationName.toLowerCase().includes(text),
      );
    for (const sortField of [
      'environmentName',
      'applicationName',
      'environmentId',
      'scanDate',
      'scanDuration',
      'scanFindingsCounts',
      'mappedRepositoryCount',
    ]) {
      for (const sortDir of ['ASC', 'DESC']) {
        const whole = (await envs(org.token, { query: 'pay', sortField, sortDir })).body.environments.map(
          (e: EnvView) => e.environmentId,
        );
        const unfiltered = (await envs(org.token, { sortField, sortDir })).body.environments.map(
          (e: EnvView) => e.environmentId,
        );
        const expected = new Set(matching('pay').map((e) => e.environmentId));
        // The same order as the unfiltered list, restricted to the matches.
        expect(whole, `${sortField} ${sortDir}`).toEqual(unfiltered.filter((id: string) => expected.has(id)));
        const paged: string[] = [];
        for (let page = 0; ; page++) {
          const out = (await envs(org.token, { query: 'pay', sortField, sortDir, pageSize: 2, pageToken: page })).body;
          paged.push(...out.environments.map((e: EnvView) => e.environmentId));
          if (!out.hasNext) break;
        }
        expect(paged).toEqual(whole);
      }
    }
    const devPay = (await envs(org.token, { query: 'PAY', envs: 'dev' })).body;
    expect(devPay.environments.map((e: EnvView) => e.environmentId).sort()).toEqual(
      matching('pay')
        .filter((e) => e.environmentName === 'dev')
        .map((e) => e.environmentId)
        .sort(),
    );
    const statusPay = (await envs(org.token, { query: 'pay', lastScanStatus: 'LAST_SCAN_STATUS_UNSPECIFIED' })).body;
    expect(statusPay.totalCount).toBe(String(matching('pay').length)); // nothing was scanned
    expect((await envs(org.token, { query: 'pay', lastScanStatus: 'LAST_SCAN_STATUS_ERRORED' })).body.totalCount).toBe(
      '0',
    );
    expect((await envs(org.token, { query: 'pay', applicationTypes: 'CLOUD' })).body.totalCount).toBe('0');
    // Health statistics are over the matched environments.
    const health = (await envs(org.token, { query: 'pay', includeAppHealthStats: 'true' })).body;
    expect(health.scanFrequencyHealth.totalApps).toBe(new Set(matching('pay').map((e) => e.applicationId)).size);
  }, 180_000);

  it('List Applications V2 returns exactly the applications whose name contains the text, for every caller and sort', async () => {
    for (const caller of [org, outsider]) {
      const everything: { applicationId: string; name: string }[] = (await apps(caller.token, {})).body.applications;
      for (const text of [...TEXTS, LONG.slice(120, 140)]) {
        const expected = everything
          .filter((a) => a.name.toLowerCase().includes(text.toLowerCase()))
          .map((a) => a.applicationId);
        for (const [sortField, sortDir] of [
          ['applicationName', 'ASC'],
          ['applicationId', 'DESC'],
          ['applicationStatus', 'ASC'],
        ]) {
          const out = await apps(caller.token, { query: text, sortField, sortDir });
          expect(out.status, out.text).toBe(200);
          const unfiltered = (await apps(caller.token, { sortField, sortDir })).body.applications.map(
            (a: { applicationId: string }) => a.applicationId,
          );
          expect(
            out.body.applications.map((a: { applicationId: string }) => a.applicationId),
            `${text} ${sortField}`,
          ).toEqual(unfiltered.filter((id: string) => expected.includes(id)));
          expect(out.body.totalCount).toBe(String(expected.length));
        }
      }
    }
    expect((await apps(org.token, { query: 'bulk' })).body.totalCount).toBe('1');
    expect(
      (await apps(org.token, { query: 'payments', applicationStatus: 'ENV_INCOMPLETE' })).body.applications.map(
        (a: { name: string }) => a.name,
      ),
    ).toEqual(['bulk-payments']);
  }, 180_000);

  it('keeps exactly the postings of the current names: renames and deletes leave none behind', async () => {
    const list: { applicationId: string }[] = (await apps(org.token, {})).body.applications;
    let checked = 0;
    for (const { applicationId } of list) {
      const app = (await getApplication(applicationId))!;
      const owners = [
        { id: app.applicationId, name: app.name, indexed: app.nameTrigrams },
        ...(await environmentsOfApp(applicationId)).map((env) => ({
          id: env.environmentId,
          name: env.name,
          indexed: env.nameTrigrams,
        })),
      ];
      const expected = owners.flatMap((o) =>
        o.indexed ? keys.nameGramPostings(applicationId, o.id, o.name).map((k) => k.sk) : [],
      );
      const stored = await queryAll({
        partition: keys.applicationPartition(applicationId).pk,
        skPrefix: 'NAMEGRAM#',
        attributes: ['sk'],
      });
      expect(stored.map((item) => item.sk).sort(), app.name).toEqual(expected.sort());
      for (const o of owners)
        expect(o.indexed, o.name).toBe(
          trigrams(o.name).length > 0 && trigrams(o.name).length <= MAX_NAME_TRIGRAMS && o.name !== 'bulk-payments',
        );
      checked += owners.length;
    }
    expect(checked).toBeGreaterThan(15);
  }, 60_000);

  it('environments created at once in one application all land, with their postings', async () => {
    const appId = await newApp(org.orgId, org.token, 'Concurrent Creations');
    const names = Array.from({ length: 6 }, (_, i) => `parallel-environment-${i}`);
    const created = await Promise.all(
      names.map((env) => api('POST', `/api/v1/app/${appId}/env`, { token: org.token, body: { env } })),
    );
    expect(created.map((r) => r.status)).toEqual(names.map(() => 200));
    expect((await getApplication(appId))!.environmentCount).toBe(6);
    expect((await envs(org.token, { query: 'parallel-env' })).body.totalCount).toBe('6');
    const stored = await queryAll({
      partition: keys.applicationPartition(appId).pk,
      skPrefix: 'NAMEGRAM#',
      attributes: ['sk'],
    });
    const owners = [{ environmentId: appId, name: 'Concurrent Creations' }, ...(await environmentsOfApp(appId))];
    const expected = owners.flatMap((o) => keys.nameGramPostings(appId, o.environmentId, o.name).map((k) => k.sk));
    expect(stored.map((item) => item.sk).sort()).toEqual(expected.sort());
  }, 60_000);

  it("a name written before the trigram index is found once the backfill gives it its key function's gsi7 entry (the unindexed one), and indexed by its next rename", async () => {
    const appId = await newApp(org.orgId, org.token, 'Legacy Ledger Service', 'legacy-env');
    const envId = (await api('GET', `/api/v1/app/${appId}/env/list`, { token: org.token })).body.environments[0]
      .environmentId;
    // As an earlier version wrote them: no gsi7 entry, no postings, no nameTrigrams.
    const postings = await queryAll({
      partition: keys.applicationPartition(appId).pk,
      skPrefix: 'NAMEGRAM#',
      attributes: ['pk', 'sk'],
    });
    for (const key of postings) await db.send(new DeleteCommand({ TableName: config.tableName, Key: key }));
    for (const key of [keys.application(appId), keys.environment(appId, envId)]) {
      await db.send(
        new UpdateCommand({
          TableName: config.tableName,
          Key: key,
          UpdateExpression: 'REMOVE gsi7pk, gsi7sk, nameTrigrams',
        }),
      );
    }
    expect((await apps(org.token, { query: 'legacy led' })).body.totalCount).toBe('0');
    expect((await envs(org.token, { query: 'legacy-en' })).body.totalCount).toBe('0');
    // The backfill (shared/db/backfill.ts) sets what the write paths' key functions compute for the item as read.
    const app = (await getApplication(appId))!;
    const env = (await environmentsOfApp(appId))[0];
    for (const [key, indexKeys, kind] of [
      [keys.application(appId), applicationIndexKeys(app), 'APP'],
      [keys.environment(appId, envId), environmentIndexKeys(env), 'ENV'],
    ] as const) {
      expect(indexKeys.gsi7pk).toBe(keys.unindexedNames(org.orgId, kind).gsi7pk);
      await db.send(
        new UpdateCommand({
          TableName: config.tableName,
          Key: key,
          UpdateExpression: 'SET gsi7pk = :pk, gsi7sk = :sk',
          ExpressionAttributeValues: { ':pk': indexKeys.gsi7pk, ':sk': indexKeys.gsi7sk },
        }),
      );
    }
    expect(
      (await apps(org.token, { query: 'legacy led' })).body.applications.map(
        (a: { applicationId: string }) => a.applicationId,
      ),
    ).toEqual([appId]);
    expect(
      (await envs(org.token, { query: 'legacy-en' })).body.environments.map((e: EnvView) => e.environmentId),
    ).toEqual([envId]);
    // Its next rename gives it its postings (and leaves the unindexed partition).
    expect(
      (await api('POST', `/api/v1/app/${appId}`, { token: org.token, body: { name: 'Legacy Ledger Renamed' } })).status,
    ).toBe(200);
    const renamed = (await getApplication(appId))!;
    expect(renamed.nameTrigrams).toBe(true);
    const stored = await queryAll({
      partition: keys.applicationPartition(appId).pk,
      skPrefix: 'NAMEGRAM#',
      attributes: ['sk'],
    });
    expect(stored.map((i) => i.sk).sort()).toEqual(
      keys
        .nameGramPostings(appId, appId, 'Legacy Ledger Renamed')
        .map((k) => k.sk)
        .sort(),
    );
    expect(
      (await apps(org.token, { query: 'ger ren' })).body.applications.map(
        (a: { applicationId: string }) => a.applicationId,
      ),
    ).toEqual([appId]);
  }, 60_000);

  it('a create or rename with two names of 255 characters fits its transaction', async () => {
    const name = (seed: string) =>
      Array.from({ length: 60 }, (_, i) => `${seed}${i}`)
        .join('')
        .slice(0, 255);
    const appId = await newApp(org.orgId, org.token, name('a'), name('e').replace(/,/g, ''));
    expect((await api('POST', `/api/v1/app/${appId}`, { token: org.token, body: { name: name('b') } })).status).toBe(
      200,
    );
    // Exactly MAX_NAME_TRIGRAMS distinct trigrams: indexed, with every one of them in the partition.
    const exact = 'abcdefghijklmnopqrstuvwxyz0123456789'.slice(0, MAX_NAME_TRIGRAMS + 2);
    expect(trigrams(exact)).toHaveLength(MAX_NAME_TRIGRAMS);
    const exactApp = await newApp(org.orgId, org.token, exact, exact.toUpperCase());
    expect(
      (await apps(org.token, { query: exact.slice(10, 16) })).body.applications.map(
        (a: { applicationId: string }) => a.applicationId,
      ),
    ).toContain(exactApp);
    expect(
      (await envs(org.token, { query: exact.slice(-3) })).body.environments.map((e: EnvView) => e.applicationId),
    ).toContain(exactApp);
    expect(
      (await apps(org.token, { query: name('b').slice(100, 120) })).body.applications.map(
        (a: { applicationId: string }) => a.applicationId,
      ),
    ).toEqual([appId]);
  }, 60_000);
});

// An organization where a `query` matches many environments (more than a tenth: the trigram index's names give the
// total, and the page comes from walking the order's index or from the names), and where every application matches
// a two-character text (the unfiltered list's paths). Seeded as the bench seeds (scripts/bench/lists.ts): the items
// the repositories build, written in bulk.
describe('query with many matches', () => {
  let many: Tenant;
  let manyOutsider: Awaited<ReturnType<typeof addUserTo>>;
  const APPS = 150;
  const SORTS = [
    'environmentName',
    'applicationName',
    'environmentId',
    'scanDate',
    'scanDuration',
    'scanFindingsCounts',
    'mappedRepositoryCount',
    'thirtyDayCommitActivity',
    'flightpathLastUpdated',
  ];

  beforeAll(async () => {
    many = await createTenant();
    manyOutsider = await addUserTo(many.orgId);
    const teamId = randomUUID();
    await seedEnvironments(many.orgId, APPS, teamId);
    const { pk, sk } = keys.membership(many.orgId, many.userId);
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: { pk, sk },
        UpdateExpression: 'SET teamIds = :t',
        ExpressionAttributeValues: { ':t': [teamId] },
      }),
    );
  }, 120_000);

  const list = (token: string, query: Record<string, string | number>) =>
    api('GET', `/api/v2/org/${many.orgId}/envs`, { token, query: { pageSize: 1000, ...query } });

  it('List Environments V2 returns exactly the matches, in every order both ways, with their count, for every caller', async () => {
    // STAGE: a fifth (environment names); app-0000: two thirds (application names); env-1: few; pp: every application
    // (two characters); e: under three characters, some of each; zzz: none.
    const texts = ['STAGE', 'app-0000', 'env-1', 'pp', 'e', 'zzz'];
    for (const caller of [many, manyOutsider]) {
      for (const types of ['STANDARD', 'STANDARD,CLOUD']) {
        // Both types (the applications outside the scope are then none): the orders that take other paths.
        for (const sortField of types === 'STANDARD' ? SORTS : ['environmentName', 'applicationName', 'scanDate']) {
          for (const sortDir of ['ASC', 'DESC']) {
            const unfiltered: EnvView[] = (await list(caller.token, { sortField, sortDir, applicationTypes: types }))
              .body.environments;
            expect(unfiltered.length).toBeGreaterThan(500);
            for (const text of texts) {
              const lower = text.toLowerCase();
              const expected = unfiltered
                .filter(
                  (e) =>
                    e.environmentName.toLowerCase().includes(lower) || e.applicationName.toLowerCase().includes(lower),
                )
                .map((e) => e.environmentId);
              const out = await list(caller.token, { query: text, sortField, sortDir, applicationTypes: types });
              expect(out.status, out.text).toBe(200);
              const label = `${text} ${sortField} ${sortDir} ${types}`;
              expect(
                out.body.environments.map((e: EnvView) => e.environmentId),
                label,
              ).toEqual(expected);
              expect(out.body.totalCount, label).toBe(String(expected.length));
            }
          }
        }
      }
    }
  }, 600_000);

  it('a deep page, a set read whole and a two-character query answer the whole list filtered, sorted and sliced', async () => {
    // Deep pages walk hundreds of entries in calls sized by what the walk still wants; the envs and lastScanStatus
    // sets are read from a prefetched first call on; a query under three characters reads every entry as segments of
    // the id index side by side (docs/API.md, How a list is planned).
    type Case = [string, Record<string, string>, (e: EnvView) => boolean];
    const cases: Case[] = [
      ['all', {}, () => true],
      ['envs=prod', { envs: 'prod' }, (e) => e.environmentName.toLowerCase() === 'prod'],
      ['envs=STAGE,qa', { envs: 'STAGE,qa' }, (e) => ['stage', 'qa'].includes(e.environmentName.toLowerCase())],
      ['lastScanStatus=ERRORED', { lastScanStatus: 'LAST_SCAN_STATUS_ERRORED' }, (e) => e.lastScanStatus === 'ERROR'],
      ['query=-1', { query: '-1' }, (e) => `${e.environmentName} ${e.applicationName}`.includes('-1')],
    ];
    for (const caller of [many, manyOutsider]) {
      for (const [sortField, sortDir] of [
        ['environmentName', 'ASC'],
        ['environmentId', 'ASC'],
        ['scanDate', 'DESC'],
        ['applicationName', 'ASC'],
        ['scanDuration', 'DESC'],
      ]) {
        const whole: EnvView[] = (await list(caller.token, { sortField, sortDir })).body.environments;
        expect(whole.length).toBeGreaterThan(500);
        for (const [name, filter, keep] of cases) {
          const expected = whole.filter(keep).map((e) => e.environmentId);
          expect(expected.length, name).toBeGreaterThan(name === 'all' ? 500 : 20);
          for (const [pageSize, pageToken] of [
            [10, 50],
            [10, Math.floor(expected.length / 10)],
            [7, 3],
            [100, 1],
          ]) {
            const label = `${name} ${sortField} ${sortDir} size ${pageSize} page ${pageToken}`;
            const out = await list(caller.token, { ...filter, sortField, sortDir, pageSize, pageToken });
            expectSlice(out, expected, pageSize, pageToken, label);
          }
        }
      }
    }
  }, 600_000);

  it("an environment name's entries read as a first call and the rest in segments are the name index's prefix", async () => {
    const { environmentEntriesNamed, environmentEntriesNamedQuery } =
      await import('../../shared/applications/list-entries.ts');
    for (const name of ['prod', 'Stage', 'env-1', 'nothing']) {
      const whole = await queryAll({ ...environmentEntriesNamedQuery(many.orgId, name), pageLimit: undefined });
      const expected = whole
        .filter((e) => String(e.name).toLowerCase() === name.toLowerCase())
        .map((e) => e.environmentId);
      for (const firstLimit of [1, 7, 60, 1000]) {
        const found = await environmentEntriesNamed(many.orgId, name, firstLimit);
        expect(
          found.map((e) => e.environmentId),
          `${name} ${firstLimit}`,
        ).toEqual(expected);
      }
    }
  });

  it('a walk of the id order that reads the ids it surely passes in segments gives the index order, item for item', async () => {
    const { environmentIdWalk, environmentEntries } = await import('../../shared/applications/list-entries.ts');
    const { collect } = await import('../../shared/db/query.ts');
    for (const forward of [true, false]) {
      const expected = (await collect(environmentEntries(many.orgId, 'id', forward, 1000))).map((e) => e.environmentId);
      expect(expected).toHaveLength(APPS * 5);
      // Reaches short of, at and past the end; tails too short (the walk reads on), first calls of every size.
      for (const [pageLimit, surely, tail] of [
        [5, 0.5, 20],
        [40, 0.9, 1],
        [40, 0.02, 300],
        [1, 1, 5],
        [100, 0.3, 1000],
        [800, 0.5, 10],
      ]) {
        const reach = { entries: APPS * 5, surely, tail };
        let kept = 0;
        const walk = environmentIdWalk(many.orgId, forward, pageLimit, reach, {
          wanted: (read) => (kept > 0 ? Math.ceil(((600 - kept) * read) / kept) : undefined),
        });
        const found: string[] = [];
        for await (const e of walk) {
          found.push(e.environmentId);
          kept++;
        }
        expect(found, `${forward} ${pageLimit} ${surely} ${tail}`).toEqual(expected);
      }
    }
  });

  it('a walk with learned fences, missing, fresh or stale, gives the partition in its order, item for item', async () => {
    const { fencedWalk, fencedWalkFromStart, environmentEntriesQuery, environmentEntriesWithStatusQuery } =
      await import('../../shared/applications/list-entries.ts');
    const { learnedFences, placedFences } = await import('../../shared/applications/list-fences.ts');
    const { collect, justAfter, byUtf8 } = await import('../../shared/db/query.ts');
    const { indexKeyNames } = await import('../../shared/db/tables.ts');
    const partitions = [
      ...(['name', 'scanDate', 'duration', 'findings'] as const).flatMap((order) =>
        [true, false].map((forward) => ({
          label: `${order} ${forward ? 'ASC' : 'DESC'}`,
          query: (pageLimit?: number) => ({ ...environmentEntriesQuery(many.orgId, order, forward), pageLimit }),
          forward,
        })),
      ),
      {
        label: 'status ERROR',
        query: (pageLimit?: number) => ({ ...environmentEntriesWithStatusQuery(many.orgId, 'ERROR'), pageLimit }),
        forward: true,
      },
    ];
    const SPACING = 37;
    for (const { label, query, forward } of partitions) {
      const whole = await queryAll(query());
      const sk = indexKeyNames(query().index!).sk;
      const keysRead = whole.map((item) => item[sk] as string);
      const expected = whole.map((item) => item.environmentId);
      expect(expected.length, label).toBeGreaterThan(150);
      const fences = (seen: string[]) => ({
        keys: learnedFences(seen, undefined, forward, SPACING).keys,
        spacing: SPACING,
        entries: seen.length,
        version: 1,
      });
      const fresh = fences(keysRead);
      // Learned before a fifth of the entries were added (the fences are then further apart), and before entries
      // were deleted (keys that no longer exist, in walk order).
      const beforeAdds = fences(keysRead.filter((_, i) => i % 5 !== 2));
      const gone = keysRead.flatMap((key, i) => (i % 4 === 1 ? [key, justAfter(key)] : [key]));
      const beforeDeletes = fences(gone.sort((a, b) => (forward ? byUtf8(a, b) : byUtf8(b, a))));
      const variants = {
        missing: [],
        fresh: placedFences(fresh),
        'added since': placedFences(beforeAdds),
        'deleted since': placedFences(beforeDeletes),
        'scaled up': placedFences(fresh, 1.3),
        'scaled down': placedFences(fresh, 0.7),
      };
      // Reaches short of, at and past the end; tails too short (the walk reads on); first calls of every size.
      const reaches = [
        { surely: 100, end: 120 },
        { surely: Infinity },
        { surely: 400, end: 401 },
        { surely: 5000, end: 3 },
      ];
      for (const [variant, placed] of Object.entries(variants))
        for (const reach of reaches)
          for (const pageLimit of [5, 300, undefined]) {
            const found = await collect(fencedWalk(query(pageLimit), placed, reach));
            expect(
              found.map((e) => e.environmentId),
              `${label} ${variant} ${JSON.stringify(reach)} ${pageLimit}`,
            ).toEqual(expected);
            // From the partition's start, without a first call (a `query`'s walk, whose first call is not prefetched).
            const fromStart = await collect(fencedWalkFromStart(query(pageLimit), placed, reach));
            expect(
              fromStart.map((e) => e.environmentId),
              `from the start: ${label} ${variant} ${JSON.stringify(reach)} ${pageLimit}`,
            ).toEqual(expected);
          }
      // A walk learns fences when none are stored, and again once they are off by more than a quarter of a segment.
      expect(learnedFences(keysRead, undefined, forward, SPACING).replace, label).toBe(true);
      expect(learnedFences(keysRead, fresh, forward, SPACING).replace, label).toBe(false);
      expect(learnedFences(keysRead, beforeAdds, forward, SPACING).replace, label).toBe(true);
      expect(learnedFences(keysRead.slice(0, 100), fresh, forward, SPACING).replace, label).toBe(false);
    }
  }, 300_000);

  it('a page of many applications (their compact entries) shows each as a page of few (read by key) does', async () => {
    const query = { sortField: 'applicationName', applicationTypes: 'STANDARD,CLOUD' };
    const big = (await list(many.token, query)).body.environments;
    const small: unknown[] = [];
    for (let page = 0; small.length < big.length; page++)
      small.push(...(await list(many.token, { ...query, pageSize: 10, pageToken: page })).body.environments);
    expect(
      big.some(
        (e: { applicationType: string; cloudScanTarget?: { targetURL: string } }) =>
          e.applicationType === 'CLOUD' && e.cloudScanTarget?.targetURL,
      ),
    ).toBe(true);
    expect(big).toEqual(small);
  }, 120_000);

  it('pages through many matches in every order, each match once, with the same count on every page', async () => {
    for (const text of ['stage', 'app-0000', 'pp']) {
      for (const sortField of SORTS) {
        for (const sortDir of ['ASC', 'DESC']) {
          const whole = (await list(manyOutsider.token, { query: text, sortField, sortDir })).body;
          const paged: string[] = [];
          for (let page = 0; page < 4; page++) {
            const out = (
              await list(manyOutsider.token, { query: text, sortField, sortDir, pageSize: 25, pageToken: page * 3 })
            ).body;
            expect(out.totalCount, `${text} ${sortField} ${sortDir}`).toBe(whole.totalCount);
            paged.push(...out.environments.map((e: EnvView) => e.environmentId));
          }
          const expected = [0, 3, 6, 9].flatMap((page) =>
            whole.environments.slice(page * 25, page * 25 + 25).map((e: EnvView) => e.environmentId),
          );
          expect(paged, `${text} ${sortField} ${sortDir}`).toEqual(expected);
        }
      }
    }
  }, 300_000);
});

describe('deep pages with learned fences', () => {
  // A deep page of the name or scan-date order, or the lastScanStatus set, reads its partition between the fences a
  // walk learned, side by side (docs/API.md, How a list is planned): missing, fresh, learned by the list itself, or
  // stale (entries added and deleted since), every page is the whole list filtered, sorted and sliced.
  let deep: Tenant;
  let deepOutsider: Awaited<ReturnType<typeof addUserTo>>;
  beforeAll(async () => {
    deep = await createTenant();
    deepOutsider = await addUserTo(deep.orgId); // a member of no team: a tenth of the applications are hidden
    await seedEnvironments(deep.orgId, 400, randomUUID());
  }, 180_000);

  type Order = {
    sortField: string;
    sortDir: string;
    order: 'name' | 'scanDate' | 'duration' | 'findings';
    status?: boolean;
    /** A `query` walked in the order (a fifth of the environments are named `stage`), with the order's fences. */
    query?: string;
  };
  const ORDERS: Order[] = [
    { sortField: 'environmentName', sortDir: 'ASC', order: 'name' },
    { sortField: 'environmentName', sortDir: 'DESC', order: 'name' },
    { sortField: 'scanDate', sortDir: 'DESC', order: 'scanDate' },
    { sortField: 'scanDate', sortDir: 'ASC', order: 'scanDate' },
    { sortField: 'scanDuration', sortDir: 'ASC', order: 'duration' },
    { sortField: 'scanFindingsCounts', sortDir: 'DESC', order: 'findings' },
    { sortField: 'environmentName', sortDir: 'ASC', order: 'name', status: true },
    { sortField: 'scanDuration', sortDir: 'DESC', order: 'duration', query: 'stage' },
    { sortField: 'scanDate', sortDir: 'ASC', order: 'scanDate', query: 'stage' },
  ];
  const PAGES = [
    [10, 150],
    [7, 250],
    [1000, 1],
    [10, 500],
  ];
  /** A `query`'s pages past QUERY_FENCED_WALK (environment-list.ts), within its matches. */
  const QUERY_PAGES = [
    [100, 2],
    [30, 9],
    [7, 40],
    [100, 3],
  ];
  const listName = ({ order, sortDir, status }: Order) =>
    status ? 'envs-status-ERROR' : `envs-${order}-${sortDir === 'DESC' ? 'desc' : 'asc'}`;

  /** The environments the caller sees (the id order's pages: no fences). */
  async function visibleTo(token: string) {
    const visible = new Set<string>();
    for (const pageToken of [0, 1, 2]) {
      const out = await api('GET', `/api/v2/org/${deep.orgId}/envs`, {
        token,
        query: { pageSize: 1000, pageToken, sortField: 'environmentId' },
      });
      for (const e of out.body.environments as EnvView[]) visible.add(e.environmentId);
    }
    return visible;
  }

  /** A caller's whole list in the order: the index itself, as far as the caller sees. */
  async function oracle(visible: Set<string>, o: Order) {
    const { environmentEntriesQuery } = await import('../../shared/applications/list-entries.ts');
    const index = await queryAll({
      ...environmentEntriesQuery(deep.orgId, o.order, o.sortDir === 'ASC'),
      pageLimit: undefined,
    });
    return index
      .filter(
        (e) =>
          visible.has(e.environmentId as string) &&
          (!o.status || e.lastScanStatus === 'ERROR') &&
          (!o.query || (e.name as string).toLowerCase().includes(o.query)),
      )
      .map((e) => e.environmentId as string);
  }

  const fenceKey = (o: Order) => keys.listFences(deep.orgId, listName(o));
  const readFenceItem = async (o: Order) =>
    (await queryAll({ partition: fenceKey(o).pk, skPrefix: fenceKey(o).sk }))[0];
  const setFences = async (o: Order, item: Record<string, unknown> | undefined) => {
    if (!item) await db.send(new DeleteCommand({ TableName: config.tableName, Key: fenceKey(o) }));
    else await db.send(new PutCommand({ TableName: config.tableName, Item: { ...item, ...fenceKey(o) } }));
  };
  /** Fences of `spacing` learned from the partition as it is now. */
  async function freshFences(o: Order, spacing: number) {
    const { learnedFences } = await import('../../shared/applications/list-fences.ts');
    const { environmentEntriesQuery, environmentEntriesWithStatusQuery } =
      await import('../../shared/applications/list-entries.ts');
    const { indexKeyNames } = await import('../../shared/db/tables.ts');
    const query = o.status
      ? environmentEntriesWithStatusQuery(deep.orgId, 'ERROR')
      : environmentEntriesQuery(deep.orgId, o.order, o.sortDir === 'ASC');
    const sk = indexKeyNames(query.index!).sk;
    const seen = (await queryAll({ ...query, pageLimit: undefined })).map((e) => e[sk] as string);
    const learned = learnedFences(seen, undefined, o.status || o.sortDir === 'ASC', spacing).keys;
    return { keys: learned, spacing, entries: 2000, version: 1 };
  }

  async function checkPages(
    phase: string,
    fences: (o: Order) => Promise<Record<string, unknown> | undefined | 'keep'>,
  ) {
    for (const caller of [deep, deepOutsider]) {
      const visible = await visibleTo(caller.token);
      for (const o of ORDERS) {
        const expected = await oracle(visible, o);
        for (const [pageSize, pageToken] of o.query ? QUERY_PAGES : PAGES) {
          const given = await fences(o);
          if (given !== 'keep') await setFences(o, given);
          const label = `${phase} ${listName(o)} ${o.query ?? ''} ${caller === deep ? 'owner' : 'member of no team'} size ${pageSize} page ${pageToken}`;
          const out = await api('GET', `/api/v2/org/${deep.orgId}/envs`, {
            token: caller.token,
            query: {
              sortField: o.sortField,
              sortDir: o.sortDir,
              pageSize,
              pageToken,
              ...(o.status ? { lastScanStatus: 'LAST_SCAN_STATUS_ERRORED' } : {}),
              ...(o.query ? { query: o.query } : {}),
            },
          });
          expectSlice(out, expected, pageSize, pageToken, label);
        }
      }
    }
  }

  it('answers the whole list sliced with fences missing, fresh, learned by the list, and stale', async () => {
    await checkPages('missing', async () => undefined);
    // Learned by the deep pages themselves (FENCE_SPACING): present once a deep page has walked the partition.
    await checkPages('learned', async () => 'keep');
    for (const o of ORDERS.filter((order) => !order.status)) {
      const item = await readFenceItem(o);
      expect(item, listName(o)).toBeDefined();
      expect((item.keys as string[]).length, listName(o)).toBeGreaterThan(0);
    }
    // A member of no team's walks learned what its scope kept up to each fence (the owner's scope thins nothing).
    const learned = new Map<string, Record<string, unknown>>();
    for (const o of ORDERS) learned.set(listName(o), await readFenceItem(o));
    expect(learned.get('envs-scanDate-asc')!.keptCounts, 'kept counts').toBeDefined();
    // Fresh fences close together: many segments side by side.
    const fresh = new Map<string, Record<string, unknown>>();
    for (const o of ORDERS) fresh.set(listName(o), await freshFences(o, 60));
    await checkPages('fresh', async (o) => fresh.get(listName(o)));
    // Entries added (early in every order: names from `a-`, scans of every age) and deleted since they were learned.
    await seedEnvironments(deep.orgId, 30, randomUUID(), 'a');
    const everything = await oracle(await visibleTo(deep.token), ORDERS[0]);
    for (const envId of everything.filter((_, i) => i % 9 === 4).slice(0, 60)) {
      const partition = keys.environmentsOfOrgById(deep.orgId).gsi4pk;
      const [env] = await queryAll({ index: 'gsi4', partition, skFrom: envId, skTo: envId });
      const removed = await api('DELETE', `/api/v1/app/${env.applicationId}/env/${envId}`, { token: deep.token });
      expect(removed.status, removed.text).toBeLessThan(300);
    }
    await checkPages('stale', async (o) => fresh.get(listName(o)));
    // Learned by the list, with a scope's kept counts, before the changes (same count of environments: used).
    const partition = keys.environmentsOfOrgById(deep.orgId).gsi4pk;
    const entries = (await queryAll({ index: 'gsi4', partition })).length;
    await checkPages('stale, learned by the list', async (o) => ({ ...learned.get(listName(o)), entries }));
    // And stale fences that the deep pages then learn again.
    await checkPages('relearned', async () => 'keep');
  }, 600_000);
});
