import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entityWrite, type Projected } from '../../shared/db/entity-write.ts';
import {
  applicationHealthOf,
  DAY,
  NO_HEALTH,
  type ApplicationRecord,
  type EnvironmentRecord,
  type LastScan,
} from '../../shared/applications/model.ts';
import * as listEntries from '../../shared/applications/projections/environment-list-entries.ts';
import * as nameClaim from '../../shared/applications/projections/environment-name-claim.ts';
import * as nameIndex from '../../shared/applications/projections/environment-name-index.ts';
import * as applicationHealth from '../../shared/applications/application-figures.ts';
import { application } from '../../shared/applications/entities.ts';
import { environmentIndexKeys } from '../../shared/applications/environment-repository.ts';
import { keys } from '../../shared/db/keys.ts';
import {
  applyCounterUpdate,
  isCounterUpdate,
  nonZero,
  recomputedCounters,
  type Counters,
} from './counters-in-memory.ts';

// The environment projections (docs/DATA-MODEL.md, Projections) are pure: applied in memory, write after write,
// their outputs must leave exactly what a recomputation from the environments gives (test/integration/
// projections.test.ts checks the same against DynamoDB Local, through the repository's writes): their own index
// keys, claims and postings, and, through their applications (application-figures.ts) and the applications'
// projections, each application's count and health figures, the organization's counters and the day counters.

type Item = Record<string, unknown>;
const PROJECTIONS = [listEntries.project, nameClaim.project, nameIndex.project];
const INDEX_KEYS = [...listEntries.LIST_ENTRY_ATTRIBUTES, ...nameIndex.NAME_INDEX_KEYS] as string[];
/** The time of the writes (day counters of days more than 31 days before it are left alone). */
const NOW = 1_800_000_000_000;

/**
 * A table in memory: the environments' own fields and index keys, the projections' items by key, the
 * applications' records and the counters.
 */
class Table {
  environments = new Map<string, { record: EnvironmentRecord; keys: Record<string, unknown> }>();
  items = new Map<string, Item>();
  applications = new Map<string, ApplicationRecord>();
  counters: Counters = new Map();

  /** Writes an application with its projections (of which the counters' are kept here). */
  writeApplication(before: ApplicationRecord | undefined, after: ApplicationRecord) {
    const key = keys.application(after.applicationId);
    const items = entityWrite(application, { key, before, after, name: 'w' }, { now: NOW });
    for (const item of items.filter(isCounterUpdate)) applyCounterUpdate(this.counters, item);
    this.applications.set(after.applicationId, after);
  }

  /**
   * The application's write of `changes` to its environments: application-figures.ts from the application as
   * stored, given its other live environments only when it needs them.
   */
  environmentsChanged(appId: string, changes: applicationHealth.EnvironmentChange[]) {
    const app = this.applications.get(appId)!;
    const changed = new Set(changes.map((c) => c.environmentId));
    const others = applicationHealth.needsOtherEnvironments(app, changes)
      ? this.live(appId).filter((env) => !changed.has(env.environmentId))
      : undefined;
    this.writeApplication(app, applicationHealth.project(app, changes, others));
  }

  live(appId: string) {
    return [...this.environments.values()]
      .map((e) => e.record)
      .filter((env) => env.applicationId === appId && !env.deleting);
  }

  /** Applies the projections of a write from `before` to `after`; false when a condition fails (nothing changes). */
  write(before: EnvironmentRecord | undefined, after: EnvironmentRecord | undefined): boolean {
    const projected: Projected[] = PROJECTIONS.map((project) => project(before, after));
    const items = projected.flatMap((p) => p.items ?? []);
    for (const item of items)
      if (item.Put?.ConditionExpression === 'attribute_not_exists(pk)' && this.items.has(keyOf(item.Put.Item!)))
        return false;
    for (const item of items) {
      if (item.Put) this.items.set(keyOf(item.Put.Item!), item.Put.Item!);
      else if (item.Delete) this.items.delete(keyOf(item.Delete.Key!));
      else throw new Error(`unexpected item ${JSON.stringify(item)}`);
    }
    const id = (after ?? before)!.environmentId;
    if (!after) {
      this.environments.delete(id);
      return true;
    }
    const stored = { record: { ...after }, keys: { ...this.environments.get(id)?.keys } };
    for (const p of projected) {
      for (const [name, value] of Object.entries(p.set ?? {})) {
        if (name === 'nameTrigrams') stored.record.nameTrigrams = value as boolean;
        else stored.keys[name] = value;
      }
      for (const name of p.remove ?? []) delete stored.keys[name];
    }
    this.environments.set(id, stored);
    return true;
  }

  /** What the projections' items and keys should be, recomputed from the environments alone. */
  recomputed() {
    const items = new Map<string, Item>();
    const keysOf = new Map<string, Record<string, unknown>>();
    for (const { record } of this.environments.values()) {
      keysOf.set(record.environmentId, environmentIndexKeys(record));
      const claim = nameClaim.claim(record);
      if (claim) items.set(keyOf(claim), claim);
      if (!record.deleting && record.nameTrigrams)
        for (const posting of nameIndex.entries(record).postings) items.set(keyOf(posting), posting);
    }
    const figures = new Map(
      [...this.applications.values()].map((app) => {
        const envs = this.live(app.applicationId);
        return [
          app.applicationId,
          {
            environmentCount: envs.length,
            applicationStatus: envs.length > 0 ? 'ACTIVE' : 'ENV_INCOMPLETE',
            health: app.healthVersion === undefined ? undefined : applicationHealthOf(envs),
          },
        ];
      }),
    );
    return {
      items,
      keys: keysOf,
      figures,
      counters: recomputedCounters([...this.applications.values()], NOW),
    };
  }

  actual() {
    return {
      items: this.items,
      keys: new Map([...this.environments].map(([id, { keys }]) => [id, keys])),
      figures: new Map(
        [...this.applications.values()].map(({ applicationId, environmentCount, applicationStatus, health }) => [
          applicationId,
          { environmentCount, applicationStatus, health },
        ]),
      ),
      counters: nonZero(this.counters),
    };
  }
}

const keyOf = (item: Item) => `${item.pk as string}|${item.sk as string}`;

// Names from a few letters, so that claims collide (also across case), with short (no trigram) and long ones.
const nameArb = fc.oneof(
  fc.constantFrom('prod', 'Prod', 'staging', 'qa', 'x', 'dev-eu', 'dev-us'),
  fc.stringMatching(/^[a-cA-C-]{1,6}$/),
  fc.constant('a-very-long-environment-name-with-more-than-thirty-two-trigrams'),
);
// Scan times of any age, and of the last 40 days (the day counters keep 31); a few scans at one time, so that
// environments share their application's newest scan time.
const scanArb: fc.Arbitrary<LastScan | undefined> = fc.option(
  fc.record({
    lastScanId: fc.uuid(),
    lastScanStatus: fc.constantFrom('COMPLETED' as const, 'ERROR' as const, 'STARTED' as const),
    lastScanTimestamp: fc.oneof(
      fc.integer({ min: 1, max: 2_000_000_000_000 }),
      fc.integer({ min: NOW - 40 * DAY, max: NOW }),
      fc.constant(NOW - DAY),
    ),
    lastScanDuration: fc.option(fc.nat(100_000), { nil: undefined }),
    lastScanTotalUntriaged: fc.option(fc.nat(500), { nil: undefined }),
    lastScanHighUntriaged: fc.option(fc.nat(20), { nil: undefined }),
    lastScanLowUntriaged: fc.option(fc.nat(20), { nil: undefined }),
  }),
  { nil: undefined },
);
type Command =
  | { kind: 'create'; app: number; name: string; legacy: boolean }
  | { kind: 'rename'; env: number; name: string }
  | { kind: 'scan'; env: number; scan: LastScan | undefined }
  | { kind: 'delete'; env: number }
  | { kind: 'triage'; env: number; others: number[]; delta: number }
  | { kind: 'backfill'; app: number };
// Creates and scans weigh more, so that applications often have several scanned environments.
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('create' as const), app: fc.nat(1), name: nameArb, legacy: fc.boolean() }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant('rename' as const), env: fc.nat(20), name: nameArb }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('scan' as const), env: fc.nat(20), scan: scanArb }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), env: fc.nat(20) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('triage' as const),
      env: fc.nat(20),
      others: fc.array(fc.nat(20), { maxLength: 2 }),
      delta: fc.integer({ min: -3, max: 3 }),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('backfill' as const), app: fc.nat(1) }), weight: 1 },
);

const LAST_SCAN_FIELDS = [
  'lastScanId',
  'lastScanStatus',
  'lastScanTimestamp',
  'lastScanDuration',
  'lastScanHighUntriaged',
  'lastScanLowUntriaged',
] as const;

function run(commands: Command[]) {
  const table = new Table();
  for (const applicationId of ['app-0', 'app-1'])
    table.writeApplication(undefined, {
      applicationId,
      organizationId: 'org',
      name: applicationId,
      applicationType: 'STANDARD',
      applicationStatus: 'ENV_INCOMPLETE',
      environmentCount: 0,
      createdAt: 1,
      health: NO_HEALTH,
      healthVersion: 0,
    });
  const live = () => [...table.environments.values()].map((e) => e.record).filter((r) => !r.deleting);
  let next = 0;
  for (const command of commands) {
    if (command.kind === 'backfill') {
      // health-backfill.ts: an application written before the health aggregates is counted from its environments.
      const appId = `app-${command.app}`;
      if (table.applications.get(appId)!.healthVersion === undefined) table.environmentsChanged(appId, []);
      continue;
    }
    if (command.kind === 'create') {
      const env: EnvironmentRecord = {
        environmentId: `env-${next++}`,
        applicationId: `app-${command.app}`,
        organizationId: 'org',
        name: command.name,
        applicationType: 'STANDARD',
        createdAt: 1,
      };
      const taken = live().some(
        (r) => r.applicationId === env.applicationId && r.name.toLowerCase() === env.name.toLowerCase(),
      );
      if (command.legacy) {
        // Written by a version before the name index: the index backfill gives it its keys (no postings).
        if (taken) continue;
        const claim = nameClaim.claim(env)!;
        table.items.set(keyOf(claim), claim);
        table.environments.set(env.environmentId, { record: env, keys: environmentIndexKeys(env) });
        // Its application as that version leaves it: counted, not yet in the health aggregates.
        const app = table.applications.get(env.applicationId)!;
        const { health: _health, healthVersion: _version, ...uncounted } = app;
        table.writeApplication(app, {
          ...uncounted,
          environmentCount: app.environmentCount + 1,
          applicationStatus: 'ACTIVE',
        });
        continue;
      }
      expect(table.write(undefined, env)).toBe(!taken);
      if (!taken) table.environmentsChanged(env.applicationId, [{ environmentId: env.environmentId, after: env }]);
      continue;
    }
    if (command.kind === 'triage') {
      // High findings of an environment's last scan triaged (or back), with those of other scanned environments
      // of its application at once: one application write.
      const scanned = live().filter((env) => env.lastScanId);
      if (scanned.length === 0) continue;
      const first = scanned[command.env % scanned.length]!;
      const ofApp = scanned.filter((env) => env.applicationId === first.applicationId);
      const picked = new Set([first, ...command.others.map((i) => ofApp[i % ofApp.length]!)]);
      const changes = [...picked].flatMap((before) => {
        const high = (before.lastScanHighUntriaged ?? 0) + command.delta;
        if (command.delta === 0 || high < 0) return [];
        const total = (before.lastScanTotalUntriaged ?? 0) + command.delta;
        const after = { ...before, lastScanHighUntriaged: high, lastScanTotalUntriaged: total };
        expect(table.write(before, after)).toBe(true);
        return [{ environmentId: before.environmentId, before, after }];
      });
      if (changes.length) table.environmentsChanged(first.applicationId, changes);
      continue;
    }
    const envs = live();
    if (envs.length === 0) continue;
    const before = envs[command.env % envs.length]!;
    if (command.kind === 'rename') {
      const taken = envs.some(
        (r) =>
          r.environmentId !== before.environmentId &&
          r.applicationId === before.applicationId &&
          r.name.toLowerCase() === command.name.toLowerCase(),
      );
      expect(table.write(before, { ...before, name: command.name })).toBe(!taken);
    } else if (command.kind === 'scan') {
      const after = { ...before };
      for (const field of LAST_SCAN_FIELDS) delete after[field];
      delete after.lastScanTotalUntriaged;
      Object.assign(after, command.scan);
      expect(table.write(before, after)).toBe(true);
      table.environmentsChanged(before.applicationId, [{ environmentId: before.environmentId, before, after }]);
    } else {
      const deleting = { ...before, deleting: true };
      expect(table.write(before, deleting)).toBe(true);
      table.environmentsChanged(before.applicationId, [{ environmentId: before.environmentId, before }]);
      // Its data goes, then its record (deleteEnvironmentData): no projection is left to remove.
      expect(PROJECTIONS.flatMap((project) => project(deleting, undefined).items ?? [])).toEqual([]);
      table.write(deleting, undefined);
    }
  }
  return table;
}

describe('environment projections', () => {
  it('equal a recomputation from the environments after any sequence of writes', () => {
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 40, size: 'max' }), (commands) => {
        const table = run(commands);
        expect(table.actual()).toEqual(table.recomputed());
      }),
      { numRuns: 300 },
    );
  });

  it('write nothing of a structure whose inputs do not change', () => {
    fc.assert(
      fc.property(nameArb, scanArb, (name, scan) => {
        const env: EnvironmentRecord = {
          environmentId: 'e',
          applicationId: 'a',
          organizationId: 'o',
          name,
          applicationType: 'CLOUD',
          createdAt: 1,
          nameTrigrams: true,
          ...scan,
        };
        const same = { ...env, defaultConfigKey: 'elsewhere' };
        for (const project of PROJECTIONS) {
          const { set = {}, remove = [], items = [] } = project(env, same);
          expect({ set, remove, items }).toEqual({ set: {}, remove: [], items: [] });
        }
      }),
    );
  });

  it('leave a deleting environment without index keys, claim or postings', () => {
    const env: EnvironmentRecord = {
      environmentId: 'e',
      applicationId: 'a',
      organizationId: 'o',
      name: 'production',
      applicationType: 'STANDARD',
      createdAt: 1,
      nameTrigrams: true,
    };
    const projected = PROJECTIONS.map((project) => project(env, { ...env, deleting: true }));
    expect(projected.flatMap((p) => p.remove ?? []).sort()).toEqual([...INDEX_KEYS].sort());
    expect(projected.flatMap((p) => (p.items ?? []).map((item) => item.Delete?.Key?.sk)).sort()).toEqual(
      [
        keys.environmentName('a', 'production').sk,
        ...keys.nameGramPostings('a', 'e', 'production').map((k) => k.sk),
      ].sort(),
    );
  });
});
