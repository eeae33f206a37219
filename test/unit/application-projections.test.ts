import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entityWrite, type Projection } from '../../shared/db/entity-write.ts';
import { NO_HEALTH, type ApplicationRecord } from '../../shared/applications/model.ts';
import * as listEntries from '../../shared/applications/projections/application-list-entries.ts';
import * as nameIndex from '../../shared/applications/projections/application-name-index.ts';
import { applicationIndexKeys } from '../../shared/applications/application-repository.ts';

// The application projections (docs/DATA-MODEL.md, Projections), applied in memory write after write, leave
// exactly what a recomputation from the applications gives: their index keys (what the index backfill gives a
// stored item) and their name postings (which stay while a cascade delete runs: it removes the partition).

type Item = Record<string, unknown>;
const PROJECTIONS: Projection<ApplicationRecord>[] = [listEntries.project, nameIndex.project];
const keyOf = (item: Item) => `${item.pk as string}|${item.sk as string}`;

class Table {
  applications = new Map<string, { record: ApplicationRecord; keys: Record<string, unknown> }>();
  postings = new Map<string, Item>();

  write(before: ApplicationRecord | undefined, after: ApplicationRecord) {
    const projected = PROJECTIONS.map((project) => project(before, after));
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
    return {
      keys: new Map([...this.applications].map(([id, { record }]) => [id, applicationIndexKeys(record)])),
      postings,
    };
  }

  actual() {
    return { keys: new Map([...this.applications].map(([id, { keys }]) => [id, keys])), postings: this.postings };
  }
}

const nameArb = fc.oneof(
  fc.constantFrom('billing', 'Billing', 'web', 'ab', 'api-gateway'),
  fc.stringMatching(/^[a-cA-C-]{1,6}$/),
  fc.constant('an-application-name-with-far-more-than-thirty-two-trigrams'),
);
type Command =
  | { kind: 'create'; name: string; bulk: boolean; teamId: string | undefined }
  | { kind: 'rename'; app: number; name: string }
  | { kind: 'scanned'; app: number; scannedAt: number }
  | { kind: 'move'; app: number; teamId: string | undefined }
  | { kind: 'status'; app: number; active: boolean }
  | { kind: 'delete'; app: number };
const teamArb = fc.constantFrom(undefined, 'team-a', 'team-b');
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), name: nameArb, bulk: fc.boolean(), teamId: teamArb }),
  fc.record({ kind: fc.constant('rename' as const), app: fc.nat(20), name: nameArb }),
  fc.record({ kind: fc.constant('scanned' as const), app: fc.nat(20), scannedAt: fc.nat(2_000_000_000_000) }),
  fc.record({ kind: fc.constant('move' as const), app: fc.nat(20), teamId: teamArb }),
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
        health: NO_HEALTH,
        healthVersion: 0,
        ...(command.teamId ? { teamId: command.teamId } : {}),
        ...(command.bulk ? { nameTrigrams: false } : {}),
      };
      table.write(undefined, app);
      continue;
    }
    const live = [...table.applications.values()].map((a) => a.record).filter((r) => !r.deleting);
    if (live.length === 0) continue;
    const before = live[command.app % live.length]!;
    const after: ApplicationRecord =
      command.kind === 'rename'
        ? { ...before, name: command.name }
        : command.kind === 'scanned'
          ? { ...before, health: { ...NO_HEALTH, scannedAt: command.scannedAt } }
          : command.kind === 'move'
            ? { ...before, teamId: command.teamId }
            : command.kind === 'status'
              ? { ...before, applicationStatus: command.active ? 'ACTIVE' : 'ENV_INCOMPLETE' }
              : { ...before, deleting: true };
    table.write(before, after);
  }
  return table;
}

describe('application projections', () => {
  it('equal a recomputation from the applications after any sequence of writes', () => {
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 40 }), (commands) => {
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
      { key: { pk: 'APP#a', sk: '#APP' }, entity: 'application', before: app, after: { ...app }, name: 'unchanged' },
      PROJECTIONS,
    );
    expect(rest).toEqual([]);
    expect(write!.Update).toBeUndefined();
    expect(write!.ConditionCheck?.ConditionExpression).toBe('attribute_exists(pk)');
  });
});
