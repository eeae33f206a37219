import { performance } from 'node:perf_hooks';
import { applicationPuts, organizationCounterChange } from '../../shared/applications/application-repository.ts';
import { environmentPuts } from '../../shared/applications/environment-repository.ts';
import {
  addBucketHealth,
  applicationHealthOf,
  bucketShare,
  newEnvironment,
  type ApplicationRecord,
  type BucketHealth,
  type EnvironmentRecord,
} from '../../shared/applications/model.ts';
import { coverageShare } from '../../shared/applications/projections/environment-coverage.ts';
import { dayCount } from '../../shared/applications/projections/health-day-counters.ts';
import { counterUpdates, type CounterChange } from '../../shared/db/entity-write.ts';
import { batchPut } from '../../shared/db/query.ts';
import { transactWrite } from '../../shared/db/transactions.ts';

// Environments written in bulk as the repositories write them, for the lists bench (scripts/bench/lists.ts), the
// million bench's organization (million-seed.ts) and the list tests (test/integration/lists-query.test.ts): their
// items with BatchWriteItem, many calls in flight; the organization's counters and the overview's day counters as the
// write paths keep them. Imported once the bench or test has configured the table (shared/config.ts).

const ENVS_PER_APP = 5;

export interface EnvironmentSeed {
  orgId: string;
  applications: number;
  /** Owns a tenth of the applications. */
  teamId: string;
  /** The id of each named thing (random, or the same in each run: harness.ts seededIds). */
  id: (name: string) => string;
  /** Application names: `<prefix>-<number>-<4 characters>`. */
  prefix?: string;
  /** false: every environment unscanned (a bench that publishes real scans afterwards). */
  lastScans?: boolean;
  progress?: (line: string) => void;
}

type Bucket = { type: 'STANDARD' | 'CLOUD'; team?: string; applications: number; environments: number };

/**
 * The items of `seed`'s applications of 5 environments each: a tenth owned by the team, one in 50 CLOUD, half the
 * environments scanned (COMPLETED or ERROR, over 60 days), with their health aggregates, the buckets' counts and
 * the day counters they add (shared/applications/health.ts).
 */
function environmentSeedItems(seed: EnvironmentSeed, now: number) {
  const { id, prefix = 'app', lastScans = true } = seed;
  const items: Record<string, unknown>[] = [];
  const buckets = new Map<string, Bucket & { health?: BucketHealth }>();
  const scanDays: CounterChange[] = [];
  const environments: { applicationId: string; environmentId: string }[] = [];
  for (let a = 0; a < seed.applications; a++) {
    const type = a % 50 === 7 ? ('CLOUD' as const) : ('STANDARD' as const);
    const team = a % 10 === 3 ? seed.teamId : undefined;
    const app: ApplicationRecord = {
      applicationId: id(`app-${a}`),
      organizationId: seed.orgId,
      name: `${prefix}-${String(a).padStart(6, '0')}-${id(`name-${a}`).slice(0, 4)}`,
      applicationType: type,
      applicationStatus: 'ACTIVE',
      environmentCount: ENVS_PER_APP,
      teamId: team,
      cloudScanTarget:
        type === 'CLOUD' ? { targetURL: 'https://cloud.example.test', isDomainVerified: false } : undefined,
      createdAt: now,
    };
    const bucket = buckets.get(`${type}#${team ?? '-'}`) ?? { type, team, applications: 0, environments: 0 };
    bucket.applications++;
    bucket.environments += ENVS_PER_APP;
    buckets.set(`${type}#${team ?? '-'}`, bucket);
    const envs: EnvironmentRecord[] = [];
    for (let e = 0; e < ENVS_PER_APP; e++) {
      const env: EnvironmentRecord = {
        ...newEnvironment(app, ['dev', 'qa', 'stage', 'prod', `env-${a}`][e]),
        environmentId: id(`env-${a}-${e}`),
        createdAt: now,
      };
      if (lastScans && (a + e) % 2 === 0) {
        Object.assign(env, {
          lastScanId: id(`scan-${a}-${e}`),
          lastScanStatus: (a + e) % 4 === 0 ? 'COMPLETED' : 'ERROR',
          lastScanTimestamp: now - ((a * 7 + e) % 60) * 86_400_000,
          lastScanDuration: (a * 13 + e) % 900,
          lastScanTotalUntriaged: (a * 31 + e) % 200,
          lastScanHighUntriaged: (a + e) % 7,
        });
      }
      // Its record's puts; the overview's coverage counters it adds are written summed.
      for (const put of environmentPuts(env)) if (put.Put) items.push(put.Put.Item as Record<string, unknown>);
      scanDays.push(...coverageShare({ ...env, coverageCounted: true }));
      envs.push(env);
      environments.push({ applicationId: app.applicationId, environmentId: env.environmentId });
    }
    // Its health aggregates as the write paths keep them.
    const health = applicationHealthOf(envs);
    bucket.health = addBucketHealth(bucket.health, bucketShare(health, true));
    const counted = { ...app, health, healthVersion: 1 };
    scanDays.push(...[dayCount(counted, now)].filter((day) => day !== undefined));
    for (const put of applicationPuts(counted)) items.push(put.Put!.Item as Record<string, unknown>);
  }
  return { items, buckets: [...buckets.values()], scanDays, environments };
}

/** Writes `seed`'s environments (environmentSeedItems); their ids, by application, in the order written. */
export async function seedEnvironments(seed: EnvironmentSeed) {
  const { items, buckets, scanDays, environments } = environmentSeedItems(seed, Date.now());
  const started = performance.now();
  const chunk = 10_000;
  for (let i = 0; i < items.length; i += chunk) {
    await batchPut(items.slice(i, i + chunk), 32);
    const done = Math.min(i + chunk, items.length);
    const rate = Math.round(done / ((performance.now() - started) / 1000));
    seed.progress?.(`seed ${seed.applications * ENVS_PER_APP}: ${done}/${items.length} items, ${rate} items/s`);
  }
  await transactWrite(
    buckets.map((c) =>
      organizationCounterChange(seed.orgId, c.type, c.team, {
        applications: c.applications,
        environments: c.environments,
        health: c.health,
      }),
    ),
  );
  for (const day of counterUpdates(scanDays)) await transactWrite([day]);
  return environments;
}
