import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entityWrite, entityWrites } from '../../shared/db/entity-write.ts';
import { application } from '../../shared/applications/entities.ts';
import {
  DAY,
  NO_HEALTH,
  entryOf,
  riskRank,
  type ApplicationHealth,
  type ApplicationRecord,
} from '../../shared/applications/model.ts';
import { RISKIEST_ENTITY } from '../../shared/applications/projections/riskiest-applications.ts';
import * as nameIndex from '../../shared/applications/projections/application-name-index.ts';
import * as organizationCounters from '../../shared/applications/projections/organization-counters.ts';
import * as healthDayCounters from '../../shared/applications/projections/health-day-counters.ts';
import { applicationIndexKeys } from '../../shared/applications/application-repository.ts';
import { keys } from '../../shared/db/keys.ts';
import {
  applyCounterUpdate,
  isCounterUpdate,
  nonZero,
  recomputedCounters,
  type Counters,
} from './counters-in-memory.ts';

// The application projections (docs/DATA-MODEL.md, Projections), applied in memory write after write, leave
// exactly what a recomputation from the applications gives: their index keys (what the index backfill gives a
// stored item), their name postings (which stay while a cascade delete runs: it removes the partition), the
// overview's riskiest entries, the organization's counters and the health day counters.

type Item = Record<string, unknown>;
/** The time of the writes (day counters of days more than 31 days before it are left alone). */
const NOW = 1_800_000_000_000;
const CONTEXT = { now: NOW };
const keyOf = (item: Item) => `${item.pk as string}|${item.sk as string}`;

class Table {
  applications = new Map<string, { record: ApplicationRecord; keys: Record<string, unknown> }>();
  postings = new Map<string, Item>();
  counters: Counters = new Map();

  /** Writes of applications in one transaction (entityWrites), which updates an item once at most. */
  write(...writes: { before: ApplicationRecord | undefined; after: ApplicationRecord }[]) {
    const items = entityWrites(
      application,
      writes.map(({ before, after }) => ({
        change: { key: keys.application(after.applicationId), before, after, name: 'w' },
        context: CONTEXT,
      })),
    );
    const updated = items.flatMap((item) => (item.Update ? [keyOf(item.Update.Key!)] : []));
    expect(new Set(updated).size).toBe(updated.length);
    // The version of the overview's names: one more (one Update) when the write renames or ends a live application.
    const namesKey = keyOf(keys.overviewNames('org'));
    const namesMoved = items.filter((item) => item.Update && keyOf(item.Update.Key!) === namesKey);
    const renamesOrEnds = writes.some(
      ({ before, after }) => before && !before.deleting && (after.deleting || after.name !== before.name),
    );
    expect(namesMoved.map((item) => item.Update!.ExpressionAttributeValues)).toEqual(
      renamesOrEnds ? [expect.objectContaining({ ':c0': 1 })] : [],
    );
    for (const item of items.filter(isCounterUpdate)) {
      if (keyOf(item.Update!.Key!) !== namesKey) applyCounterUpdate(this.counters, item);
    }
    for (const { before, after } of writes) this.apply(before, after);
  }

  private apply(before: ApplicationRecord | undefined, after: ApplicationRecord) {
    const projected = Object.values(application.projections).map((project) => project(before, after, CONTEXT));
    for (const item of projected.flatMap((p) => p.items ?? [])) {
      if (item.Put) this.postings.set(keyOf(item.Put.Item!), item.Put.Item!);
      else if (item.Delete) this.postings.delete(keyOf(item.Delete.Key!));
      else throw new Error(`unexpected item ${JSON.stringify(item)}`);
    }
    const stored = { record: { ...after }, keys: { ...this.applications.get(after.applicationId)?.keys } };
    for (const p of projected) {
      for (const [name, value] of Object.entries(p.set ?? {})) {
        if (name === 'nameTrigrams') stored.record.nameTrigrams = value as boolean;
        else stored.keys[name] = value;
      }
      for (const name of p.remove ?? []) delete stored.keys[name];
    }
    this.applications.set(after.applicationId, stored);
  }

  recomputed() {
    const postings = new Map<string, Item>();
    for (const { record } of this.applications.values())
      if (record.nameTrigrams) for (const p of nameIndex.entries(record).postings) postings.set(keyOf(p), p);
    // The overview's riskiest entries: one per live application with untriaged findings, at its rank.
    for (const { record } of this.applications.values()) {
      const entry = entryOf(record);
      if (!entry) continue;
      const item = {
        ...keys.riskiestApplication(entry.organizationId, riskRank(entry)),
        entity: RISKIEST_ENTITY,
        ...entry,
      };
      postings.set(keyOf(item), item);
    }
    return {
      keys: new Map([...this.applications].map(([id, { record }]) => [id, applicationIndexKeys(record)])),
      postings,
      counters: recomputedCounters(
        [...this.applications.values()].map(({ record }) => record),
        NOW,
      ),
    };
  }

  actual() {
    return {
      keys: new Map([...this.applications].map(([id, { keys }]) => [id, keys])),
      postings: this.postings,
      counters: nonZero(this.counters),
    };
  }
}

const nameArb = fc.oneof(
  fc.constantFrom('billing', 'Billing', 'web', 'ab', 'api-gateway'),
  fc.stringMatching(/^[a-cA-C-]{1,6}$/),
  fc.constant('an-application-name-with-far-more-than-thirty-two-trigrams'),
);
// Health figures with scan times of any age and of the last 40 days (the day counters keep 31).
const scannedAtArb = fc.oneof(fc.nat(2_000_000_000_000), fc.integer({ min: NOW - 40 * DAY, max: NOW }));
const healthArb: fc.Arbitrary<ApplicationHealth> = fc.record({
  high: fc.nat(9),
  medium: fc.nat(9),
  low: fc.nat(9),
  total: fc.nat(30),
  failed: fc.nat(3),
  scannedAt: fc.oneof(fc.constant(0), scannedAtArb),
});
type Command =
  | { kind: 'create'; name: string; bulk: boolean; teamId: string | undefined; uncounted: boolean }
  | { kind: 'rename'; app: number; name: string }
  | { kind: 'scanned'; app: number; scannedAt: number }
  | { kind: 'figures'; app: number; environmentCount: number; health: ApplicationHealth }
  | { kind: 'move'; app: number; teamId: string | undefined }
  | { kind: 'moveMany'; apps: number[]; teamId: string | undefined }
  | { kind: 'status'; app: number; active: boolean }
  | { kind: 'delete'; app: number };
const teamArb = fc.constantFrom(undefined, 'team-a', 'team-b');
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    name: nameArb,
    bulk: fc.boolean(),
    teamId: teamArb,
    // Written before the health aggregates: not counted in them until a health write counts it.
    uncounted: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('rename' as const), app: fc.nat(20), name: nameArb }),
  fc.record({ kind: fc.constant('scanned' as const), app: fc.nat(20), scannedAt: scannedAtArb }),
  fc.record({
    kind: fc.constant('figures' as const),
    app: fc.nat(20),
    environmentCount: fc.nat(3),
    health: healthArb,
  }),
  fc.record({ kind: fc.constant('move' as const), app: fc.nat(20), teamId: teamArb }),
  fc.record({ kind: fc.constant('moveMany' as const), apps: fc.array(fc.nat(20), { maxLength: 5 }), teamId: teamArb }),
  fc.record({ kind: fc.constant('status' as const), app: fc.nat(20), active: fc.boolean() }),
  fc.record({ kind: fc.constant('delete' as const), app: fc.nat(20) }),
);

function run(commands: Command[]) {
  const table = new Table();
  let next = 0;
  for (const command of commands) {
    if (command.kind === 'create') {
      const app: ApplicationRecord = {
        applicationId: `app-${next++}`,
        organizationId: 'org',
        name: command.name,
        applicationType: 'STANDARD',
        applicationStatus: 'ENV_INCOMPLETE',
        environmentCount: 0,
        createdAt: 1,
        ...(command.uncounted ? {} : { health: NO_HEALTH, healthVersion: 0 }),
        ...(command.teamId ? { teamId: command.teamId } : {}),
        ...(command.bulk ? { nameTrigrams: false } : {}),
      };
      table.write({ before: undefined, after: app });
      continue;
    }
    const live = [...table.applications.values()].map((a) => a.record).filter((r) => !r.deleting);
    if (live.length === 0) continue;
    if (command.kind === 'moveMany') {
      const moved = [...new Set(command.apps.map((i) => live[i % live.length]!))];
      table.write(...moved.map((before) => ({ before, after: { ...before, teamId: command.teamId } })));
      continue;
    }
    const before = live[command.app % live.length]!;
    // A health write counts the application (healthVersion), as application-figures.ts does.
    const counted = { healthVersion: (before.healthVersion ?? 0) + 1 };
    const after: ApplicationRecord =
      command.kind === 'rename'
        ? { ...before, name: command.name }
        : command.kind === 'scanned'
          ? { ...before, ...counted, health: { ...NO_HEALTH, scannedAt: command.scannedAt } }
          : command.kind === 'figures'
            ? { ...before, ...counted, environmentCount: command.environmentCount, health: command.health }
            : command.kind === 'move'
              ? { ...before, teamId: command.teamId }
              : command.kind === 'status'
                ? { ...before, applicationStatus: command.active ? 'ACTIVE' : 'ENV_INCOMPLETE' }
                : { ...before, deleting: true };
    table.write({ before, after });
  }
  return table;
}

describe('application projections', () => {
  it('equal a recomputation from the applications after any sequence of writes', () => {
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 40, size: 'max' }), (commands) => {
        const table = run(commands);
        expect(table.actual()).toEqual(table.recomputed());
      }),
      { numRuns: 300 },
    );
  });

  it('make the entity write a bare condition check when nothing it keeps changes', () => {
    const app: ApplicationRecord = {
      applicationId: 'a',
      organizationId: 'o',
      name: 'same',
      applicationType: 'CLOUD',
      applicationStatus: 'ACTIVE',
      environmentCount: 1,
      createdAt: 1,
      nameTrigrams: true,
    };
    const [write, ...rest] = entityWrite(
      application,
      { key: { pk: 'APP#a', sk: '#APP' }, before: app, after: { ...app }, name: 'unchanged' },
      CONTEXT,
    );
    expect(rest).toEqual([]);
    expect(write!.Update).toBeUndefined();
    expect(write!.ConditionCheck?.ConditionExpression).toBe('attribute_exists(pk)');
  });

  it('write no counter whose inputs do not change', () => {
    fc.assert(
      fc.property(nameArb, nameArb, healthArb, fc.nat(3), teamArb, (name, rename, health, environmentCount, teamId) => {
        const app: ApplicationRecord = {
          applicationId: 'a',
          organizationId: 'o',
          name,
          applicationType: 'STANDARD',
          applicationStatus: environmentCount > 0 ? 'ACTIVE' : 'ENV_INCOMPLETE',
          environmentCount,
          createdAt: 1,
          health,
          healthVersion: 3,
          ...(teamId ? { teamId } : {}),
        };
        // A rename, a status or a new health version with the same figures: what the application counts stays.
        const same = { ...app, name: rename, applicationStatus: 'ACTIVE' as const, healthVersion: 4 };
        expect(organizationCounters.project(app, same).counters).toEqual([]);
        expect(healthDayCounters.project(app, same, CONTEXT).counters).toEqual([]);
      }),
    );
  });
});
