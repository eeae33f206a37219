import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { createTenant } from './fixtures.ts';
import { getApplication } from '../../shared/applications/application-repository.ts';
import {
  deleteEnvironmentData,
  environmentCreation,
  environmentDeletingMark,
  environmentIndexKeys,
  environmentRename,
  environmentScanWrites,
  environmentStreamsChanges,
  getEnvironment,
} from '../../shared/applications/environment-repository.ts';
import {
  applicationHealthOf,
  type EnvironmentRecord,
  type LastScan,
  newEnvironment,
} from '../../shared/applications/model.ts';
import * as nameClaim from '../../shared/applications/projections/environment-name-claim.ts';
import * as nameIndex from '../../shared/applications/projections/environment-name-index.ts';
import { conditionFailed, fromItem } from '../../shared/db/items.ts';
import { getItem, queryAll } from '../../shared/db/query.ts';
import { keys } from '../../shared/db/keys.ts';
import { mainTable } from '../../shared/db/tables.ts';
import { transactWrite } from '../../shared/db/transactions.ts';
import { nonZero, recomputedCounters, type Counters } from '../unit/counters-in-memory.ts';

// The environment writes against DynamoDB Local (docs/DATA-MODEL.md, Projections): for random sequences of
// creates, renames, scan results, triage and deletes, what is stored (index keys, name claims, name postings, the
// application's count and health, the organization's counters and day counters) equals a recomputation from the
// environments, and a write that takes a claimed name fails by the name `nameTaken`.
// test/unit/environment-projections.test.ts checks the pure projections in memory with many more sequences.

const INDEX_KEYS = [
  ...new Set(mainTable.globalSecondaryIndexes.flatMap((i) => [i.partitionKey.name, i.sortKey.name])),
] as string[];

type Command =
  | { kind: 'create'; name: string }
  | { kind: 'rename'; env: number; name: string }
  | { kind: 'scan'; env: number; scan: LastScan | undefined }
  | { kind: 'triage'; env: number; high: number; medium: number }
  | { kind: 'delete'; env: number };

const nameArb = fc.constantFrom(
  'prod',
  'Prod',
  'staging',
  'qa',
  'dev-eu',
  'a-very-long-name-of-more-than-32-trigrams-in-all',
);
const scanArb: fc.Arbitrary<LastScan | undefined> = fc.option(
  fc.record({
    lastScanId: fc.uuid(),
    lastScanStatus: fc.constantFrom('COMPLETED' as const, 'ERROR' as const, 'STARTED' as const),
    lastScanTimestamp: fc.integer({ min: Date.now() - 40 * 86_400_000, max: Date.now() }),
    lastScanDuration: fc.nat(100_000),
    lastScanTotalUntriaged: fc.nat(50),
    lastScanHighUntriaged: fc.nat(20),
  }),
  { nil: undefined },
);
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), name: nameArb }),
  fc.record({ kind: fc.constant('rename' as const), env: fc.nat(9), name: nameArb }),
  fc.record({ kind: fc.constant('scan' as const), env: fc.nat(9), scan: scanArb }),
  fc.record({
    kind: fc.constant('triage' as const),
    env: fc.nat(9),
    high: fc.integer({ min: -2, max: 2 }),
    medium: fc.integer({ min: -2, max: 2 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), env: fc.nat(9) }),
);

/** Commits `items`; whether it failed by a taken name (any other failure is thrown). */
async function committed(items: Parameters<typeof transactWrite>[0]): Promise<boolean> {
  try {
    await transactWrite(items);
    return true;
  } catch (error) {
    if (conditionFailed(error, 'nameTaken')) return false;
    throw error;
  }
}

async function apply(appId: string, command: Command, live: string[]): Promise<void> {
  const app = (await getApplication(appId))!;
  const envs = (await Promise.all(live.map((id) => getEnvironment(appId, id)))).map((env) => env!);
  const takenBy = (name: string, except?: string) =>
    envs.some((env) => env.environmentId !== except && env.name.toLowerCase() === name.toLowerCase());
  if (command.kind === 'create') {
    const env = newEnvironment(app, command.name);
    expect(await committed(await environmentCreation(app, env))).toBe(!takenBy(command.name));
    if (!takenBy(command.name)) live.push(env.environmentId);
    return;
  }
  if (envs.length === 0) return;
  const env = envs[command.env % envs.length]!;
  if (command.kind === 'rename') {
    expect(await committed(environmentRename(env, command.name))).toBe(!takenBy(command.name, env.environmentId));
  } else if (command.kind === 'scan') {
    // The scan as the latest of the environment's one stream: its figures are the stream's.
    const scan = command.scan;
    const head = scan && {
      scanId: scan.lastScanId,
      status: scan.lastScanStatus,
      startedAt: scan.lastScanTimestamp,
      High: scan.lastScanHighUntriaged ?? 0,
      Medium: 0,
      Low: Math.max(0, (scan.lastScanTotalUntriaged ?? 0) - (scan.lastScanHighUntriaged ?? 0)),
    };
    await transactWrite(
      await environmentScanWrites(env, { lastScan: scan ?? null, streams: head ? { hawkscan: head } : {} }),
    );
  } else if (command.kind === 'triage') {
    // Findings of its last scan triaged (or back): its untriaged figures move, never below 0.
    const high = Math.max(command.high, -(env.lastScanHighUntriaged ?? 0));
    const medium = Math.max(command.medium, -(env.lastScanMediumUntriaged ?? 0));
    const head = env.streams?.hawkscan;
    if (!head) return;
    if (high === 0 && medium === 0) return;
    const streams = { ...env.streams!, hawkscan: { ...head, High: head.High + high, Medium: head.Medium + medium } };
    await transactWrite(await environmentStreamsChanges([{ env, streams }]));
  } else {
    await transactWrite(await environmentDeletingMark(app, env));
    await deleteEnvironmentData(appId, env.environmentId);
    live.splice(live.indexOf(env.environmentId), 1);
  }
}

/** The live environments of an application's partition. */
async function liveEnvironments(appId: string): Promise<EnvironmentRecord[]> {
  const items = await queryAll({ partition: keys.applicationPartition(appId).pk, consistent: true });
  return items.filter((item) => item.entity === 'environment').map((item) => fromItem<EnvironmentRecord>(item)!);
}

/**
 * The organization's counters and day counters as stored, beside what the environments of its applications alone
 * give (each application counted with its live environments' count and figures).
 */
async function countersStoredAndRecomputed(orgId: string, appIds: string[]) {
  const { pk, skPrefix } = keys.organizationCountersOfOrg(orgId);
  const days = keys.healthDaysFrom(orgId, 0);
  const items = [
    ...(await queryAll({ partition: pk, skPrefix, consistent: true })),
    ...(await queryAll({ partition: days.pk, skFrom: days.skFrom, skTo: days.skTo, consistent: true })),
  ].filter((item) => item.sk !== keys.healthReady(orgId).sk);
  const stored: Counters = new Map(
    items.map((item) => [
      `${item.pk as string}|${item.sk as string}`,
      Object.fromEntries(Object.entries(item).filter(([, value]) => typeof value === 'number')) as Record<
        string,
        number
      >,
    ]),
  );
  const apps = await Promise.all(
    appIds.map(async (appId) => {
      const envs = await liveEnvironments(appId);
      return { ...(await getApplication(appId))!, environmentCount: envs.length, health: applicationHealthOf(envs) };
    }),
  );
  return { stored: nonZero(stored), recomputed: recomputedCounters(apps, Date.now()) };
}

/** The application's partition as stored, beside what the environments alone give. */
async function storedAndRecomputed(orgId: string, appId: string) {
  const items = await queryAll({ partition: keys.applicationPartition(appId).pk, consistent: true });
  const envItems = items.filter((item) => item.entity === 'environment');
  const envs = envItems.map((item) => fromItem<EnvironmentRecord>(item)!);
  const indexKeysOf = (item: Record<string, unknown>) =>
    Object.fromEntries(INDEX_KEYS.filter((name) => item[name] !== undefined).map((name) => [name, item[name]]));
  const app = (await getApplication(appId))!;
  const counter = await getItem(keys.organizationCounter(orgId, 'STANDARD', undefined));
  const stored = {
    indexKeys: envItems.map(indexKeysOf),
    claims: items.filter((item) => item.entity === 'environmentName').map((item) => item.sk),
    postings: items.filter((item) => item.entity === 'nameGram' && item.environmentId).map((item) => item.sk),
    count: app.environmentCount,
    status: app.applicationStatus,
    health: app.health,
    counted: counter?.environments,
  };
  const recomputed = {
    indexKeys: envs.map((env) => environmentIndexKeys(env)),
    claims: envs.map((env) => nameClaim.claim(env)!.sk),
    postings: envs.flatMap((env) => (env.nameTrigrams ? nameIndex.entries(env).postings.map((p) => p.sk) : [])),
    count: envs.length,
    status: envs.length > 0 ? 'ACTIVE' : 'ENV_INCOMPLETE',
    health: applicationHealthOf(envs),
    counted: envs.length,
  };
  const sorted = (list: unknown[]) => [...list].sort();
  for (const value of [stored, recomputed]) {
    value.claims = sorted(value.claims);
    value.postings = sorted(value.postings);
  }
  return { stored, recomputed };
}

describe('environment writes on DynamoDB Local', () => {
  it('leave their projections equal to a recomputation from the environments', async () => {
    const tenant = await createTenant();
    const appIds: string[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 10 }), async (commands) => {
        const created = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
          token: tenant.token,
          body: { name: 'projections' },
        });
        expect(created.status).toBe(200);
        const appId = created.body.applicationId as string;
        appIds.push(appId);
        const live: string[] = [];
        for (const command of commands) await apply(appId, command, live);
        const { stored, recomputed } = await storedAndRecomputed(tenant.orgId, appId);
        expect(stored).toEqual(recomputed);
        const counters = await countersStoredAndRecomputed(tenant.orgId, appIds);
        expect(counters.stored).toEqual(counters.recomputed);
        // Leave the organization without live environments: the next run's counter counts its application's alone.
        for (const envId of [...live]) await apply(appId, { kind: 'delete', env: live.indexOf(envId) }, live);
      }),
      { numRuns: 12 },
    );
    const counter = await getItem(keys.organizationCounter(tenant.orgId, 'STANDARD', undefined));
    expect(counter?.environments).toBe(0);
  });
});
