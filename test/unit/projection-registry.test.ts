import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as entityWrite from '../../shared/db/entity-write.ts';
import { keys } from '../../shared/db/keys.ts';
import {
  retestFix,
  triageRule,
  untriagedFigures,
  type RetestFixContext,
  type TriageRuleContext,
} from '../../shared/findings/entities.ts';
import { environmentOverdue, riskAcceptance } from '../../shared/governance/entities.ts';
import { openIssuesPut, openIssuesStale } from '../../shared/results/issue-summary.ts';
import type { ApplicationRecord, EnvironmentRecord, TeamRecord } from '../../shared/applications/model.ts';
import { application, teamApplications, teamMembers } from '../../shared/applications/entities.ts';
import { applicationChange, unchangedSinceRead } from '../../shared/applications/application-change.ts';
import { config } from '../../shared/config.ts';
import type { Membership } from '../../shared/context/caller.ts';
import { type FindingRecord, type TriageRule, sharedIssuesOf } from '../../shared/results/model.ts';
import { environmentPublication, environmentTrends } from '../../shared/trends/entities.ts';

// The projection registry (shared/db/entity-write.ts, EntityKind; docs/DATA-MODEL.md, Projections): every file of a
// `projections/` folder of shared/ is registered with exactly one entity kind, in a resource's `entities.ts`, and a
// projection is applied only through its kind: no other module of shared/ calls one, and the write helpers take
// kinds, never projections.

const shared = join(import.meta.dirname, '../../shared');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.ts$/.test(name) ? [path] : [];
  });
}

const files = filesUnder(shared);
const isProjection = (file: string) => basename(dirname(file)) === 'projections';
const isRegistry = (file: string) => file.endsWith('/entities.ts');
const basename = (path: string) => path.split('/').at(-1)!;
const projectionFiles = files.filter(isProjection);
const registries = files.filter(isRegistry);

/** The modules a file imports from projection files: `{ file, namespace?, names }` for each import. */
function projectionImports(file: string) {
  const text = readFileSync(file, 'utf8');
  const imports = [...text.matchAll(/import\s+(type\s+)?(\*\s+as\s+(\w+)|\{([^}]*)\})\s+from\s+'([^']+)'/g)];
  return imports
    .map((m) => ({
      target: m[5]!.startsWith('.') ? resolve(dirname(file), m[5]!) : m[5]!,
      typeOnly: m[1] !== undefined,
      namespace: m[3],
      names: (m[4] ?? '')
        .split(',')
        .map((n) => n.trim().replace(/^type\s+/, ''))
        .filter(Boolean),
    }))
    .filter((i) => isProjection(i.target));
}

/** How many times `file` uses the `project` of projection file `target` (through a namespace or by name). */
function projectUses(file: string, target: string): number {
  const text = readFileSync(file, 'utf8');
  let uses = 0;
  for (const i of projectionImports(file).filter((i) => i.target === target && !i.typeOnly)) {
    if (i.namespace) uses += [...text.matchAll(new RegExp(`\\b${i.namespace}\\.project\\b`, 'g'))].length;
    for (const name of i.names) {
      const [imported, local = imported] = name.split(/\s+as\s+/);
      if (imported === 'project') uses += [...text.matchAll(new RegExp(`\\b${local}\\b`, 'g'))].length - 1; // less the import itself
    }
  }
  return uses;
}

describe('the projection registry', () => {
  it('finds the projections and the registries', () => {
    expect(projectionFiles.length).toBeGreaterThanOrEqual(20);
    expect(registries.map((f) => relative(shared, f)).sort()).toEqual([
      'applications/entities.ts',
      'findings/entities.ts',
      'governance/entities.ts',
      'perch/entities.ts',
      'scans/entities.ts',
      'trends/entities.ts',
    ]);
  });

  it('registers each projection file with exactly one kind, once', () => {
    const registrations = projectionFiles.map((target) => ({
      projection: relative(shared, target),
      registered: registries.flatMap((registry) => {
        const uses = projectUses(registry, target);
        return uses > 0 ? [`${relative(shared, registry)} x${uses}`] : [];
      }),
    }));
    expect(registrations.filter((r) => r.registered.length !== 1 || !r.registered[0]!.endsWith(' x1'))).toEqual([]);
  });

  it('is the only way a projection is applied: no other module of shared/ calls one', () => {
    const calls = files
      .filter((file) => !isRegistry(file))
      .flatMap((file) =>
        projectionFiles
          .filter((target) => projectUses(file, target) > 0)
          .map((target) => `${relative(shared, file)} -> ${relative(shared, target)}`),
      );
    expect(calls).toEqual([]);
  });

  it('gives the write helpers kinds, never projections', () => {
    // entityWrite / entityWrites / derivedWrites / projectionOf take a kind; what nets projected writes is internal.
    expect(Object.keys(entityWrite)).not.toContain('projectedWrites');
    for (const registry of registries) {
      const text = readFileSync(registry, 'utf8');
      expect(text, relative(shared, registry)).toMatch(/entityKind</);
    }
  });

  it('names each kind once', async () => {
    const kinds = (
      await Promise.all(registries.map((registry) => import(registry) as Promise<Record<string, unknown>>))
    ).flatMap((module) =>
      Object.values(module).filter(
        (value): value is entityWrite.EntityKind<unknown, unknown> =>
          typeof value === 'object' && value !== null && 'projections' in value && 'entity' in value,
      ),
    );
    const names = kinds.map((kind) => kind.entity);
    expect(new Set(names).size).toBe(names.length);
    for (const kind of kinds) expect(Object.keys(kind.projections).length).toBeGreaterThan(0);
  });

  it('applies every registered projection of a kind, in order', () => {
    const calls: string[] = [];
    const kind = entityWrite.entityKind<{ n: number }, string>('probe', {
      a: (_, after, context) => (calls.push(`a:${context}`), { set: { a: after?.n } }),
      b: (_, after, context) => (
        calls.push(`b:${context}`),
        { counters: [{ key: { pk: 'c', sk: 'c' }, entity: 'c', add: { n: after!.n } }] }
      ),
    });
    const items = entityWrite.entityWrite(
      kind,
      { key: { pk: 'p', sk: 's' }, before: undefined, after: { n: 2 }, name: 'w' },
      'x',
    );
    expect(calls).toEqual(['a:x', 'b:x']);
    expect(items).toHaveLength(2);
    expect(items[0]!.Put!.Item).toMatchObject({ entity: 'probe', n: 2, a: 2 });
    expect(entityWrite.derivedWrites(kind, undefined, { n: 3 }, 'y')).toHaveLength(1);
    expect(entityWrite.projectionOf(kind, undefined, { n: 3 }, 'z').counters).toHaveLength(1);
  });
});

// Derived writes that were assembled by hand and are now registered kinds (docs/DATA-MODEL.md, Projections): a risk
// acceptance's expiry entry, a scan's publication in its environment, a retest's fix of a finding.
describe('the derived writes the registry carries', () => {
  const finding = { organizationId: 'org', applicationId: 'app', environmentId: 'env', findingHash: 'hash' };
  const entryKey = (expiresAt: number) => keys.riskExpiry(expiresAt, 'app', 'env', 'hash');
  const sorted = (items: unknown[]) => items.map((item) => JSON.stringify(item)).sort();

  it("derives a triage rule's expiry entry through the risk acceptance kind", () => {
    expect(Object.keys(riskAcceptance.projections)).toEqual(['entries']);
    const context = { expiry: { ...finding, expiring: false } } as TriageRuleContext;
    const accepted = { status: 'RISK_ACCEPTED', expiresAt: 5 } as TriageRule;
    const reaccepted = { status: 'RISK_ACCEPTED', expiresAt: 9 } as TriageRule;
    const { items = [] } = triageRule.projections.riskExpiry!(accepted, reaccepted, context);
    expect(items.map((item) => item.Delete?.Key ?? { pk: item.Put!.Item!.pk, sk: item.Put!.Item!.sk })).toEqual([
      entryKey(5),
      entryKey(9),
    ]);
  });

  it("deletes the entry of an acceptance that no longer stands (the expiry check's orphan), unconditioned", () => {
    const items = entityWrite.derivedWrites(riskAcceptance, { status: 'RISK_ACCEPTED', expiresAt: 5 }, undefined, {
      ...finding,
      expiring: false,
    });
    expect(items).toEqual([{ Delete: { TableName: expect.any(String), Key: entryKey(5) } }]);
  });

  it("derives a publication's trend figures, overdue entry, open issues' summary and shared issues, as the kinds would alone", () => {
    expect(Object.keys(environmentPublication.projections)).toEqual([
      'trends',
      'overdue',
      'openIssues',
      'sharedIssues',
    ]);
    const now = Date.UTC(2026, 0, 10);
    const record = (hash: string, extra: Partial<FindingRecord> = {}) =>
      ({
        findingHash: hash,
        severity: 'High',
        firstSeen: now,
        lastSeen: now,
        stream: 'hawkscan',
        ...extra,
      }) as FindingRecord;
    const known = new Map([['old', record('old', { firstSeen: now - 86_400_000 })]]);
    const reported = [record('new')];
    const all = new Map([...known, ...reported.map((f) => [f.findingHash, f] as const)]);
    const rules = new Map<string, TriageRule>();
    const statuses = new Map<string, TriageRule['status']>();
    const env = { organizationId: 'org', applicationId: 'app', environmentId: 'env' };
    const before = {
      trends: { version: 3, scannedDay: 100, findings: known, rules },
      overdue: { findings: known, statuses },
      findings: known,
    };
    const after = {
      trends: { version: 4, scannedDay: 101, findings: all, rules },
      overdue: { findings: new Map(reported.map((f) => [f.findingHash, f])), statuses },
      findings: all,
    };
    const items = entityWrite.derivedWrites(environmentPublication, before, after, { env, now });
    const alone = [
      ...entityWrite.derivedWrites(environmentTrends, before.trends, after.trends, { env, now }),
      ...entityWrite.derivedWrites(environmentOverdue, before.overdue, after.overdue, { env, now }),
      openIssuesPut(env, all.values()),
      {
        Put: {
          TableName: config.tableName,
          Item: { ...keys.sharedIssues('app', 'env'), entity: 'sharedIssues', ...sharedIssuesOf(all.values()) },
        },
      },
    ];
    expect(sorted(items)).toEqual(sorted(alone));
    // Each of the four is there: the trends' counters, the overdue check's entry (a new High finding), the summaries.
    expect(items.some((item) => item.Update)).toBe(true);
    expect(items.filter((item) => item.Put).length).toBeGreaterThanOrEqual(2);
    expect(items.some((item) => JSON.stringify(item).includes(keys.openIssues('app', 'env').sk))).toBe(true);
    expect(items.some((item) => JSON.stringify(item).includes(keys.sharedIssues('app', 'env').sk))).toBe(true);
  });

  describe("a retest's fix", () => {
    const now = Date.UTC(2026, 0, 10);
    const env = {
      organizationId: 'org',
      applicationId: 'app',
      environmentId: 'env',
      name: 'production',
      applicationType: 'STANDARD',
      createdAt: 0,
      lastScanId: 'scan-1',
      lastScanHighUntriaged: 2,
      lastScanMediumUntriaged: 0,
      lastScanLowUntriaged: 0,
      streamsVersion: 1,
      streams: { hawkscan: { scanId: 'scan-1', status: 'COMPLETED', startedAt: 1, High: 2, Medium: 0, Low: 0 } },
    } as EnvironmentRecord;
    const app = {
      applicationId: 'app',
      organizationId: 'org',
      name: 'billing',
      applicationType: 'STANDARD',
      applicationStatus: 'ACTIVE',
      environmentCount: 1,
      createdAt: 0,
      healthVersion: 1,
      health: { high: 2, medium: 0, low: 0, total: 1, failed: 0, scannedAt: 1 },
    } as ApplicationRecord;
    const record = {
      findingHash: 'hash',
      severity: 'High',
      lastScanId: 'scan-1',
      lastScanUris: 2,
      firstSeen: now - 86_400_000,
      stream: 'hawkscan',
    } as FindingRecord;
    const fixed = { ...record, fixedAt: now };
    const trends = { read: { version: 3 }, findings: new Map(), rules: new Map() };
    const context = (figures: RetestFixContext['figures']): RetestFixContext => ({
      env,
      rule: undefined,
      countingScan: 'scan-1',
      figures,
      trends,
      days: { High: 30, Medium: 60, Low: 90 } as RetestFixContext['days'],
      now,
    });
    /** The environment's streams its write sets (undefined: not written). */
    const streamsWritten = (items: ReturnType<typeof entityWrite.derivedWrites>) => {
      const write = items.find(
        (item) => JSON.stringify(item.Update?.Key ?? {}) === JSON.stringify(keys.environment('app', 'env')),
      );
      const values = Object.values(write?.Update?.ExpressionAttributeValues ?? {});
      return values.find(
        (v): v is Record<string, { High: number }> => typeof v === 'object' && v !== null && 'hawkscan' in v,
      );
    };

    it("derives the untriaged figures, the trends and the open issues' summary through its kind", () => {
      expect(Object.keys(retestFix.projections)).toEqual(['untriagedStreams', 'trends', 'openIssues']);
      expect(Object.keys(untriagedFigures.projections)).toEqual(['streams']);
      const items = entityWrite.derivedWrites(
        retestFix,
        record,
        fixed,
        context({ streams: env.streams!, openIssues: undefined, app, live: undefined }),
      );
      // The finding leaves its scan's untriaged figures (a fixed finding counts in none).
      expect(streamsWritten(items)?.hawkscan?.High).toBe(0);
      // Its application's health is written with it.
      expect(items.some((item) => JSON.stringify(item.Update?.Key) === JSON.stringify(keys.application('app')))).toBe(
        true,
      );
      // Its open issues' summary goes stale: whether its issue is still open depends on the others.
      expect(items).toContainEqual(openIssuesStale(env));
      // The trends count the fix (counters conditioned on the total's version read).
      expect(items.some((item) => item.Update?.ConditionExpression?.includes('version'))).toBe(true);
    });

    it('writes no environment when neither its figures nor its open issues move', () => {
      const items = entityWrite.derivedWrites(retestFix, record, fixed, context(undefined));
      expect(streamsWritten(items)).toBeUndefined();
      expect(items).toContainEqual(openIssuesStale(env));
    });
  });
});

// A team's write (shared/teams/teams.ts) writes its own item; its copies are the kinds teamMembers and
// teamApplications derive (docs/DATA-MODEL.md, Teams): the items the hand-written assembly wrote, in its order.
describe("a team's copies", () => {
  const now = Date.UTC(2026, 0, 10);
  const team = (userIds: string[], applicationIds: string[]): TeamRecord => ({
    teamId: 't1',
    organizationId: 'org',
    name: 'payments',
    userIds,
    applicationIds,
    version: 4,
    createdAt: 0,
  });
  const member = (userId: string, teamIds: string[]): Membership => ({
    organizationId: 'org',
    userId,
    role: 'MEMBER',
    permissions: [],
    teamIds,
    createdAt: 0,
  });
  const memberships = new Map(
    [member('u1', []), member('u2', ['t2']), member('u3', ['t2', 't1']), member('u4', ['t1'])].map((m) => [
      m.userId,
      m,
    ]),
  );
  const app = (applicationId: string, teamId?: string): ApplicationRecord => ({
    applicationId,
    organizationId: 'org',
    name: applicationId,
    applicationType: 'STANDARD',
    applicationStatus: 'ACTIVE',
    environmentCount: 2,
    createdAt: 0,
    ...(teamId && { teamId }),
  });
  // a1 unowned, a2 the other team's (t2, version 7 as read), a3 and a4 this team's.
  const applications = new Map(
    [app('a1'), app('a2', 't2'), app('a3', 't1'), app('a4', 't1')].map((a) => [a.applicationId, a]),
  );
  const owners = new Map([['t2', { version: 7 }]]);

  const copies = (before: TeamRecord | undefined, after: TeamRecord, taken = owners) => [
    ...entityWrite.derivedWrites(teamMembers, before, after, { memberships }),
    ...entityWrite.derivedWrites(teamApplications, before, after, { applications, owners: taken, now }),
  ];
  const membershipKey = (userId: string) => {
    const { pk, sk } = keys.membership('org', userId);
    return { pk, sk };
  };
  const joins = (userId: string) => ({
    Update: {
      TableName: config.tableName,
      Key: membershipKey(userId),
      UpdateExpression: 'SET teamIds = list_append(if_not_exists(teamIds, :none), :team)',
      ConditionExpression: 'attribute_exists(pk) AND NOT contains(teamIds, :teamId)',
      ExpressionAttributeValues: { ':none': [], ':team': ['t1'], ':teamId': 't1' },
    },
  });
  const leaves = (userId: string, index: number) => ({
    Update: {
      TableName: config.tableName,
      Key: membershipKey(userId),
      UpdateExpression: `REMOVE teamIds[${index}]`,
      ConditionExpression: `teamIds[${index}] = :teamId`,
      ExpressionAttributeValues: { ':teamId': 't1' },
    },
  });
  /** The applications' own writes as their ownership change wrote them (conditioned on what was read). */
  const moved = (...moves: [string, string | undefined][]) =>
    entityWrite.entityWrites(
      application,
      moves.map(([id, teamId]) => {
        const read = applications.get(id)!;
        return { change: applicationChange(read, { ...read, teamId }, unchangedSinceRead(read)), context: { now } };
      }),
    );
  const leavesList = (teamId: string, version: number, appIds: string[]) => ({
    Update: {
      TableName: config.tableName,
      Key: keys.team('org', teamId),
      UpdateExpression: 'DELETE applicationIds :apps ADD version :one',
      ConditionExpression: 'version = :read',
      ExpressionAttributeValues: { ':apps': new Set(appIds), ':one': 1, ':read': version },
    },
  });
  const counter = (teamId: string | undefined) => JSON.stringify(keys.organizationCounter('org', 'STANDARD', teamId));

  it("registers the memberships, the ownership and the other teams' lists", () => {
    expect(Object.keys(teamMembers.projections)).toEqual(['memberships']);
    expect(Object.keys(teamApplications.projections)).toEqual(['ownership', 'teamLists']);
  });

  it('a new team: its users join, its applications move to it, one taken from another team leaves its list', () => {
    const items = copies(undefined, team(['u1', 'u2'], ['a1', 'a2']));
    expect(items).toEqual([
      joins('u1'),
      joins('u2'),
      ...moved(['a1', 't1'], ['a2', 't1']),
      leavesList('t2', 7, ['a2']),
    ]);
    // Each application's write is conditioned on the owner read; the counters move between the buckets at once.
    const appWrites = items.filter((item) => item.Update?.Key?.sk === keys.application('a1').sk);
    expect(appWrites.map((item) => item.Update!.ConditionExpression)).toEqual([
      expect.stringContaining('attribute_not_exists(teamId)'),
      expect.stringContaining('teamId = :oldTeam'),
    ]);
    const added = (teamId: string | undefined) =>
      items.find((item) => JSON.stringify(item.Update?.Key) === counter(teamId))?.Update?.ExpressionAttributeValues;
    expect(added(undefined)).toMatchObject({ ':c0': -1, ':c1': -2 });
    expect(added('t2')).toMatchObject({ ':c0': -1, ':c1': -2 });
    expect(added('t1')).toMatchObject({ ':c0': 2, ':c1': 4 });
  });

  it('users added and removed: only memberships that lack or hold the team are written', () => {
    // u1 joins; u3 leaves (its second team: index 1); u4 stays; u2 was listed but its membership lacks the team.
    const items = copies(team(['u2', 'u3', 'u4'], ['a3']), team(['u1', 'u4'], ['a3']));
    expect(items).toEqual([joins('u1'), leaves('u3', 1)]);
  });

  it("an application taken from another team, one left: the first moves in, the other out, t2's list loses one", () => {
    const items = copies(team(['u4'], ['a3', 'a4']), team(['u4'], ['a2', 'a3']));
    expect(items).toEqual([...moved(['a2', 't1'], ['a4', undefined]), leavesList('t2', 7, ['a2'])]);
  });

  it('a team cleared (its delete): every member leaves it, its applications are unowned, no other list moves', () => {
    const before = team(['u3', 'u4'], ['a3', 'a4']);
    const items = copies(before, { ...before, userIds: [], applicationIds: [] }, new Map());
    expect(items).toEqual([leaves('u3', 1), leaves('u4', 0), ...moved(['a3', undefined], ['a4', undefined])]);
  });

  it('leaves what is no longer its own: an application listed but owned elsewhere by now is not unowned', () => {
    const items = copies(team([], ['a2']), team([], []), new Map());
    expect(items).toEqual([]);
  });
});
