import { OWN_TABLE } from './own-table.ts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { api, useServer } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { createApp, startScan, reportAlerts, completeScan } from './scan-helpers.ts';
import { startLocalServer } from '../../scripts/local/server.ts';
import { createTableInput } from '../../scripts/local/provision.ts';
import { freePort } from '../../scripts/local/ports.ts';
import { config } from '../../shared/config.ts';
import { s3 } from '../../shared/storage/s3.ts';
import { mainTable } from '../../shared/db/tables.ts';
import { keys } from '../../shared/db/keys.ts';
import { queryAll } from '../../shared/db/query.ts';
import { expireRiskAcceptances } from '../../shared/findings/risk-expiry.ts';
import { slaClock } from '../../shared/governance/model.ts';
import type { FindingRecord, TriageRule } from '../../shared/results/model.ts';

// The trends (docs/GOVERNANCE.md, Trends) are kept as the writes happen; here 120 days of history (scans completed,
// errored, overlapping and crossing midnight, imports, bulk triage, alert rules, acceptances that expire, scan,
// environment and application deletes) run on a simulated clock, the raw records (findings, rules, scans) are
// read at the end of every day, and every figure of every day is compared with the one recomputed by brute force
// from those records. The server runs in this process on a table of its own, so its clock is this file's.

const DAY = 86_400_000;
const HOUR = 3_600_000;
const DAYS = 120;
const client = new DynamoDBClient({
  region: config.region,
  endpoint: config.dynamodbEndpoint,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
let server: Server;
/** Midnight (UTC) of the first simulated day. */
const T0 = Math.floor(Date.now() / DAY) * DAY - DAYS * DAY;
const SLA = { High: 7, Medium: 30, Low: 90 };

async function at(ms: number) {
  vi.setSystemTime(ms);
  (await s3()).config.systemClockOffset = vi.getRealSystemTime() - ms;
}

/** A seeded generator, so that every run plays the same history. */
function random(seed: number) {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

const SEVERITIES = ['High', 'Medium', 'Low', 'Info'] as const;
type Sev = (typeof SEVERITIES)[number];
/** The findings an environment's scans may report: a plugin and path each, and a severity. */
const UNIVERSE = Array.from({ length: 12 }, (_, i) => ({
  pluginId: String(10_000 + (i % 4)),
  severity: SEVERITIES[i % 4] as Sev,
  path: `/f/x${i}`,
}));
const RISK = { High: '3', Medium: '2', Low: '1', Info: '0' };

function alertsOf(findings: typeof UNIVERSE) {
  const byPlugin = new Map<string, typeof UNIVERSE>();
  for (const f of findings) byPlugin.set(f.pluginId, [...(byPlugin.get(f.pluginId) ?? []), f]);
  return [...byPlugin.values()].map((list) => ({
    pluginId: list[0]!.pluginId,
    name: `Plugin ${list[0]!.pluginId}`,
    severity: list[0]!.severity,
    description: 'about it',
    cweId: '79',
    references: [],
    uris: list.map((f) => ({
      uri: f.path,
      requestMethod: 'GET',
      param: 'q',
      evidence: '',
      otherInfo: '',
      requestHeader: 'GET / HTTP/1.1\r\n',
      requestBody: '',
      responseHeader: 'HTTP/1.1 200 OK\r\n',
      responseBody: '',
    })),
  }));
}

/** The same findings as a ZAP JSON report (an import). */
function zapReportOf(findings: typeof UNIVERSE) {
  return JSON.stringify({
    '@programName': 'ZAP',
    '@version': '2.14.0',
    site: [
      {
        '@name': 'https://target.test',
        '@host': 'target.test',
        '@port': '443',
        '@ssl': 'true',
        alerts: alertsOf(findings).map((a) => ({
          pluginid: a.pluginId,
          name: a.name,
          riskcode: RISK[a.severity],
          confidence: '2',
          desc: a.description,
          cweid: '79',
          wascid: '8',
          instances: a.uris.map((u) => ({ uri: `https://target.test${u.uri}`, method: 'GET', param: 'q' })),
        })),
      },
    ],
  });
}

interface EnvSnapshot {
  appId: string;
  envId: string;
  findings: Map<string, FindingRecord>;
  rules: Map<string, TriageRule>;
}

/** The raw records of a live environment as stored now. */
async function snapshotOf(appId: string, envId: string): Promise<EnvSnapshot> {
  const f = keys.findingsOfEnvironment(appId, envId);
  const r = keys.triageRulesOfEnvironment(appId, envId);
  const [findings, rules] = await Promise.all([
    queryAll({ partition: f.pk, skPrefix: f.skPrefix, consistent: true }),
    queryAll({ partition: r.pk, skPrefix: r.skPrefix, consistent: true }),
  ]);
  return {
    appId,
    envId,
    findings: new Map(findings.map((i) => [i.findingHash as string, i as unknown as FindingRecord])),
    rules: new Map(rules.map((i) => [i.findingHash as string, i as unknown as TriageRule])),
  };
}

const isOpen = (status: string) => status !== 'FALSE_POSITIVE' && status !== 'RISK_ACCEPTED';
/** A finding's status at `at` from its rule's history. */
function statusAt(rule: TriageRule | undefined, at: number): string {
  if (!rule) return 'UNKNOWN';
  let status: string = rule.history[0]?.oldResult ?? 'UNKNOWN';
  for (const entry of rule.history) if (entry.timestamp <= at) status = entry.newResult;
  return status;
}

type Counts = Record<Sev, number>;
const zero = (): Counts => ({ High: 0, Medium: 0, Low: 0, Info: 0 });
interface Events {
  new: Counts;
  fixed: Counts;
  reopened: Counts;
  fixTimeMs: number;
  fixesWithDueDate: number;
  fixedWithinSla: number;
}
interface ExpectedDay extends Events {
  date: string;
  open: Counts;
  scannedWithin7Days: number;
  scannedWithin30Days: number;
}

/**
 * The brute-force reference: after every write the test reads the raw records of the environment it touched
 * (findings, rules, scans) and derives what happened from the difference with the previous reading; the state at the
 * end of each day is the last reading of every live environment.
 */
class Reference {
  /** The last reading of each live environment, and when it was taken. */
  readonly latest = new Map<string, { snap: EnvSnapshot; at: number }>();
  /** Events per UTC day and environment. */
  readonly events = new Map<number, Map<string, Events>>();
  /** The days on which each environment's scans ended (deleted scans stay here). */
  readonly published = new Map<string, Map<string, number>>();
  /** Its ended scans still stored, oldest first. */
  readonly endedScans = new Map<string, string[]>();
  /** The state at the end of each day (live environments' readings). */
  readonly ends: Map<string, EnvSnapshot>[] = [];

  async observe(appId: string, envId: string): Promise<void> {
    const now = Date.now();
    const before = this.latest.get(envId);
    const snap = await snapshotOf(appId, envId);
    const day = Math.floor(now / DAY);
    const byEnv = this.events.get(day) ?? new Map<string, Events>();
    this.events.set(day, byEnv);
    const ev = byEnv.get(envId) ?? {
      new: zero(),
      fixed: zero(),
      reopened: zero(),
      fixTimeMs: 0,
      fixesWithDueDate: 0,
      fixedWithinSla: 0,
    };
    byEnv.set(envId, ev);
    for (const [hash, f] of snap.findings) {
      const sev = f.severity as Sev;
      const rule = snap.rules.get(hash);
      const was = before?.snap.findings.get(hash);
      if (!was) ev.new[sev]++;
      if (f.fixedAt !== undefined && f.fixedAt !== was?.fixedAt && isOpen(statusAt(rule, f.fixedAt))) {
        ev.fixed[sev]++;
        ev.fixTimeMs += f.fixedAt - f.firstSeen;
        const clock = slaClock(f.firstSeen, sev === 'Info' ? undefined : SLA[sev], rule?.history ?? [], f.fixedAt);
        if (clock.dueAt !== undefined) {
          ev.fixesWithDueDate++;
          if (f.fixedAt <= clock.dueAt) ev.fixedWithinSla++;
        }
      }
      // Seen again after a fix (and open), or made open again from a false positive or accepted risk while current.
      if (was?.fixedAt !== undefined && f.fixedAt === undefined && isOpen(statusAt(rule, now))) ev.reopened[sev]++;
      if (was && was.fixedAt === undefined && f.fixedAt === undefined)
        for (const entry of rule?.history ?? [])
          if (
            entry.timestamp > before!.at &&
            entry.timestamp <= now &&
            !isOpen(entry.oldResult) &&
            isOpen(entry.newResult)
          )
            ev.reopened[sev]++;
    }
    this.latest.set(envId, { snap, at: now });
    const scans = await queryAll({
      partition: `APP#${appId}`,
      skPrefix: keys.scanRecord(appId, envId, '').sk,
      consistent: true,
    });
    const log = this.published.get(envId) ?? new Map<string, number>();
    for (const scan of scans)
      if (scan.entity === 'scan' && scan.completedAt)
        log.set(scan.scanId as string, Math.floor(Number(scan.completedAt) / DAY));
    this.published.set(envId, log);
    this.endedScans.set(
      envId,
      scans
        .filter((scan) => scan.entity === 'scan' && scan.completedAt && !scan.deleting)
        .sort((x, y) => Number(x.startedAt) - Number(y.startedAt))
        .map((scan) => scan.scanId as string),
    );
  }

  forget(envId: string): void {
    this.latest.delete(envId);
  }

  endOfDay(): void {
    this.ends.push(new Map([...this.latest].map(([envId, { snap }]) => [envId, snap])));
  }

  /** Day `d`'s figures over the environments `inScope` selects. */
  day(d: number, end: Map<string, EnvSnapshot>, inScope: (appId: string, envId: string) => boolean): ExpectedDay {
    const day: ExpectedDay = {
      date: new Date(d * DAY).toISOString().slice(0, 10),
      open: zero(),
      new: zero(),
      fixed: zero(),
      reopened: zero(),
      fixTimeMs: 0,
      fixesWithDueDate: 0,
      fixedWithinSla: 0,
      scannedWithin7Days: 0,
      scannedWithin30Days: 0,
    };
    for (const env of end.values()) {
      if (!inScope(env.appId, env.envId)) continue;
      for (const [hash, f] of env.findings)
        if (f.fixedAt === undefined && isOpen(env.rules.get(hash)?.status ?? 'UNKNOWN')) day.open[f.severity as Sev]++;
      const published = [...(this.published.get(env.envId)?.values() ?? [])];
      if (published.some((p) => p > d - 7 && p <= d)) day.scannedWithin7Days++;
      if (published.some((p) => p > d - 30 && p <= d)) day.scannedWithin30Days++;
    }
    for (const [envId, ev] of this.events.get(d) ?? []) {
      if (!inScope(appOf.get(envId)!, envId)) continue;
      for (const sev of SEVERITIES) {
        day.new[sev] += ev.new[sev];
        day.fixed[sev] += ev.fixed[sev];
        day.reopened[sev] += ev.reopened[sev];
      }
      day.fixTimeMs += ev.fixTimeMs;
      day.fixesWithDueDate += ev.fixesWithDueDate;
      day.fixedWithinSla += ev.fixedWithinSla;
    }
    return day;
  }
}
/** Each environment's application. */
const appOf = new Map<string, string>();

let owner: Tenant;

async function login(): Promise<string> {
  const out = await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': owner.apiKey } });
  expect(out.status, out.text).toBe(200);
  return out.body.token;
}

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  await at(T0 - DAY + HOUR); // the day before the history
  await client.send(new CreateTableCommand(createTableInput(mainTable, OWN_TABLE)));
  const port = await freePort();
  server = await startLocalServer(port);
  useServer(`http://127.0.0.1:${port}`);
  owner = await createTenant();
}, 120_000);

afterAll(async () => {
  vi.useRealTimers();
  server?.close();
  await client.send(new DeleteTableCommand({ TableName: OWN_TABLE })).catch(() => undefined);
  client.destroy();
});

describe('trends', () => {
  it('equal a brute-force recomputation from the raw records after 120 days of history, every day and scope', async () => {
    const rnd = random(42);
    const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)]!;
    let token = await login();
    const sla = await api('PUT', `/api/v1/org/${owner.orgId}/sla`, {
      token,
      body: { days: SLA, riskAcceptance: { defaultDays: 5, maxDays: 20 } },
    });
    expect(sla.status, sla.text).toBe(200);

    const apps = {
      a: await createApp({ orgId: owner.orgId, token }, { name: 'shop', env: 'dev' }),
      b: await createApp({ orgId: owner.orgId, token }, { name: 'blog', env: 'dev' }),
      c: await createApp({ orgId: owner.orgId, token }, { name: 'doomed', env: 'dev' }),
    };
    /** Live environments: app id, environment name, id once known, and how likely each finding is reported. */
    const envs: { appId: string; name: string; envId?: string; share: number }[] = [
      { appId: apps.a, name: 'dev', share: 0.7 },
      { appId: apps.a, name: 'prod', share: 0.5 },
      { appId: apps.b, name: 'dev', share: 0.6 },
      { appId: apps.c, name: 'dev', share: 0.6 },
    ];
    const envList = async (appId: string) => {
      const out = await api('GET', `/api/v1/app/${appId}/env/list`, { token });
      expect(out.status, out.text).toBe(200);
      return out.body.environments as { environmentId: string; environmentName: string }[];
    };
    /** Scans started on one day and completed on the next (after midnight). */
    let overnight: { env: (typeof envs)[number]; scanId: string }[] = [];
    const ref = new Reference();
    let loggedInAt = Date.now();
    /** A fresh token when the last is 20 minutes old (one lives 30). */
    const fresh = async () => {
      if (Date.now() - loggedInAt < 20 * 60_000) return;
      token = await login();
      loggedInAt = Date.now();
    };
    const observe = async (env: (typeof envs)[number]) => {
      appOf.set(env.envId!, env.appId);
      await ref.observe(env.appId, env.envId!);
    };

    for (const env of envs) {
      env.envId = (await envList(env.appId)).find((e) => e.environmentName === env.name)?.environmentId;
      await observe(env);
    }

    const reportedNow = (env: (typeof envs)[number], d: number) =>
      UNIVERSE.filter(() => rnd() < env.share * (1 - d / (2 * DAYS))); // improving over time

    const scan = async (env: (typeof envs)[number], d: number) => {
      const started = await startScan(token, env.appId, { env: env.name });
      env.envId = started.envId;
      const found = reportedNow(env, d);
      if (found.length) await reportAlerts(token, started.scanId, alertsOf(found));
      return started.scanId;
    };
    const complete = async (env: (typeof envs)[number], scanId: string, status: 'COMPLETED' | 'ERROR') => {
      await completeScan(token, scanId, status);
      await observe(env);
    };
    const current = (env: (typeof envs)[number]) =>
      [...ref.latest.get(env.envId!)!.snap.findings.values()].filter((f) => f.fixedAt === undefined);

    for (let d = 0; d < DAYS; d++) {
      const day = Math.floor(T0 / DAY) + d;
      let minute = 10;
      const step = async () => {
        minute += 1;
        await at(day * DAY + minute * 60_000);
        await fresh();
      };
      await step();
      for (const { env, scanId } of overnight) await complete(env, scanId, 'COMPLETED');
      overnight = [];
      minute = 20; // acceptances expire after the night's completions
      await step();
      if ((await expireRiskAcceptances(Date.now())).expired > 0) for (const env of envs) await observe(env);
      if (d === 10) envs.push({ appId: apps.a, name: 'stage', share: 0.8 });
      if (d === 70) {
        const stage = envs.findIndex((e) => e.name === 'stage');
        await step();
        const out = await api('DELETE', `/api/v1/app/${apps.a}/env/${envs[stage]!.envId}`, { token });
        expect(out.status, out.text).toBe(200);
        ref.forget(envs[stage]!.envId!);
        envs.splice(stage, 1);
      }
      if (d === 100) {
        await step();
        const out = await api('DELETE', `/api/v1/app/${apps.c}`, { token });
        expect(out.status, out.text).toBe(200);
        const doomed = envs.findIndex((e) => e.appId === apps.c);
        ref.forget(envs[doomed]!.envId!);
        envs.splice(doomed, 1);
      }
      for (const env of envs) {
        await step();
        const roll = env.envId ? rnd() : 0; // a new environment starts with a scan
        if (roll < 0.3) {
          const scanId = await scan(env, d);
          await step();
          await complete(env, scanId, rnd() < 0.12 ? 'ERROR' : 'COMPLETED');
        } else if (roll < 0.38) {
          // Two scans overlapping: the older completes after the newer started (it decides no fix).
          const older = await scan(env, d);
          await step();
          const newer = await scan(env, d);
          await step();
          await complete(env, older, 'COMPLETED');
          await step();
          await complete(env, newer, 'COMPLETED');
        } else if (roll < 0.45) {
          const out = await api('POST', `/api/v1/app/${env.appId}/scan/import`, {
            token,
            rawBody: zapReportOf(reportedNow(env, d)),
            contentType: 'application/json',
            query: { env: env.name },
          });
          expect(out.status, out.text).toBe(200);
          await observe(env);
        } else if (roll < 0.5) {
          overnight.push({ env, scanId: await scan(env, d) }); // completed after midnight
        } else if (roll < 0.68) {
          const actions = current(env)
            .filter(() => rnd() < 0.4)
            .slice(0, 4)
            .map((f) => {
              const status = pick(['FALSE_POSITIVE', 'RISK_ACCEPTED', 'ADD_COMMENT'] as const);
              const expiring = status === 'RISK_ACCEPTED' && rnd() < 0.6;
              return {
                findingHash: f.findingHash,
                status,
                note: `day ${d}`,
                ...(expiring && { expiresAt: new Date(Date.now() + (1 + Math.floor(rnd() * 4)) * DAY).toISOString() }),
              };
            });
          if (actions.length) {
            const out = await api(
              'POST',
              `/api/v1/org/${owner.orgId}/app/${env.appId}/env/${env.envId}/findings/triage`,
              { token, body: { actions } },
            );
            expect(out.status, out.text).toBe(200);
            await observe(env);
          }
        } else if (roll < 0.76) {
          const all = [...ref.latest.get(env.envId!)!.snap.findings.values()];
          if (all.length) {
            const f = pick(all);
            const out = await api('POST', `/api/v1/app/${env.appId}/alerts/rules/${randomUUID()}`, {
              token,
              body: {
                alertRuleWrapper: {
                  alertRule: [
                    {
                      alertCondition: { environmentId: env.envId, pluginId: f.pluginId, requestMethod: 'GET' },
                      path: f.path,
                      result: pick(['FALSE_POSITIVE', 'UNKNOWN', 'UNKNOWN', 'PROMOTED'] as const),
                      note: `rule of day ${d}`,
                    },
                  ],
                },
              },
            });
            expect(out.status, out.text).toBe(200);
            await observe(env);
          }
        } else if (roll < 0.8) {
          const ended = ref.endedScans.get(env.envId!) ?? [];
          if (ended.length) {
            const out = await api('DELETE', `/api/v1/scan/${ended[ended.length - 1]}`, { token });
            expect(out.status, out.text).toBe(200);
            await observe(env);
          }
        }
      }
      ref.endOfDay();
    }

    // Every figure of every day, for the organization, each live application and each live environment.
    const firstDay = Math.floor(T0 / DAY);
    const compare = async (path: string, inScope: (appId: string, envId: string) => boolean) => {
      const out = await api('GET', path, { token, query: { days: DAYS } });
      expect(out.status, out.text).toBe(200);
      expect(out.body.days).toHaveLength(DAYS);
      const expected = ref.ends.map((end, i) => ref.day(firstDay + i, end, inScope));
      for (let i = 0; i < DAYS; i++) expect(out.body.days[i], `${path} ${expected[i]!.date}`).toEqual(expected[i]);
      return expected;
    };
    await at(Math.floor(T0 / DAY) * DAY + DAYS * DAY - 10 * 60_000);
    token = await login();
    const org = await compare(`/api/v1/org/${owner.orgId}/trends`, () => true);
    for (const appId of [apps.a, apps.b])
      await compare(`/api/v1/org/${owner.orgId}/app/${appId}/trends`, (a) => a === appId);
    for (const env of envs)
      await compare(`/api/v1/org/${owner.orgId}/app/${env.appId}/env/${env.envId}/trends`, (_, e) => e === env.envId);

    // The history is not trivial: every kind of event happened.
    const total = (pick: (day: ExpectedDay) => number) => org.reduce((n, day) => n + pick(day), 0);
    const all = (c: Counts) => c.High + c.Medium + c.Low + c.Info;
    expect(total((day) => all(day.new))).toBeGreaterThan(20);
    expect(total((day) => all(day.fixed))).toBeGreaterThan(10);
    expect(total((day) => all(day.reopened))).toBeGreaterThan(5);
    expect(total((day) => day.fixesWithDueDate)).toBeGreaterThan(total((day) => day.fixedWithinSla));
    expect(total((day) => day.fixedWithinSla)).toBeGreaterThan(0);
    expect(new Set(org.map((day) => day.scannedWithin7Days)).size).toBeGreaterThan(2);

    // The summary is the sum of the days; a shorter period ends today too.
    const last30 = await api('GET', `/api/v1/org/${owner.orgId}/trends`, { token, query: { days: 30 } });
    expect(last30.status).toBe(200);
    expect(last30.body.days).toEqual(org.slice(-30));
    const fixes = org.slice(-30).reduce((n, day) => n + all(day.fixed), 0);
    const fixTime = org.slice(-30).reduce((n, day) => n + day.fixTimeMs, 0);
    expect(last30.body.summary.fixes).toBe(fixes);
    expect(last30.body.summary.meanTimeToRemediateDays).toBeCloseTo(fixes ? fixTime / fixes / DAY : 0, 9);
  }, 600_000);

  it('answers 404 for another organization’s application or environment, and 400 naming a bad `days`', async () => {
    await at(vi.getRealSystemTime());
    const token = await login();
    const other = await createTenant();
    const otherApp = await createApp(other, { name: 'theirs', env: 'dev' });
    const otherEnv = (await api('GET', `/api/v1/app/${otherApp}/env/list`, { token: other.token })).body.environments[0]
      .environmentId as string;
    const mine = await createApp({ orgId: owner.orgId, token }, { name: 'mine', env: 'dev' });
    // Another organization's application or environment under this organization's path: as unknown ones (404).
    for (const path of [
      `/api/v1/org/${owner.orgId}/app/${otherApp}/trends`,
      `/api/v1/org/${owner.orgId}/app/${otherApp}/env/${otherEnv}/trends`,
      `/api/v1/org/${owner.orgId}/app/${mine}/env/${otherEnv}/trends`,
    ]) {
      const out = await api('GET', path, { token });
      expect(out.status, `${path}: ${out.text}`).toBe(404);
    }
    // Another organization's path: refused before anything is read (401, as every operation addressed by orgId).
    for (const path of [`/api/v1/org/${other.orgId}/app/${otherApp}/trends`, `/api/v1/org/${other.orgId}/trends`]) {
      const out = await api('GET', path, { token });
      expect(out.status, `${path}: ${out.text}`).toBe(401);
      expect(out.text).not.toMatch(/days|open/);
    }
    for (const days of ['0', '366', 'ninety', '-3', '1.5']) {
      const out = await api('GET', `/api/v1/org/${owner.orgId}/trends`, { token, query: { days } });
      expect(out.status, out.text).toBe(400);
      expect(out.body.message).toMatch(/days/);
    }
    const fresh = await api('GET', `/api/v1/org/${owner.orgId}/app/${mine}/trends`, { token });
    expect(fresh.status).toBe(200);
    expect(fresh.body.days).toHaveLength(30);
    expect(fresh.body.days.every((day: ExpectedDay) => day.open.High === 0 && day.scannedWithin30Days === 0)).toBe(
      true,
    );
  });

  it('counts the open findings of data written before the trends on its first write, once', async () => {
    await at(vi.getRealSystemTime());
    const tenant = await createTenant();
    const token = tenant.token;
    const findings = UNIVERSE.slice(0, 3); // High, Medium, Low
    const trendsOf = async (path: string) => {
      const out = await api('GET', `/api/v1/org/${tenant.orgId}${path}/trends`, { token, query: { days: 1 } });
      expect(out.status, out.text).toBe(200);
      return out.body.days[0];
    };
    /** Removes every trend item of the organization and the application, as data of an earlier version has none. */
    const forgetTrends = async (appId: string) => {
      const { batchDelete } = await import('../../shared/db/query.ts');
      const items = [
        ...(await queryAll({ partition: `ORG#${tenant.orgId}`, skPrefix: 'TREND#', consistent: true })),
        ...(await queryAll({ partition: `APP#${appId}`, consistent: true })).filter((i) =>
          String(i.entity).startsWith('trend'),
        ),
      ];
      await batchDelete(items.map((i) => ({ pk: i.pk, sk: i.sk })));
    };
    const scanWith = async (appId: string, found: typeof UNIVERSE) => {
      const started = await startScan(token, appId, { env: 'dev' });
      if (found.length) await reportAlerts(token, started.scanId, alertsOf(found));
      await completeScan(token, started.scanId);
      return started.envId;
    };

    const triaged = await createApp(tenant, { name: 'triaged', env: 'dev' });
    const published = await createApp(tenant, { name: 'published', env: 'dev' });
    const env = await scanWith(triaged, findings);
    await scanWith(published, findings);
    await forgetTrends(triaged);
    await forgetTrends(published);

    // First write a triage: the baseline (3 open), then the false positive; the next triage counts no baseline.
    const records = await snapshotOf(triaged, env);
    const high = [...records.findings.values()].find((f) => f.severity === 'High')!;
    for (let i = 0; i < 2; i++) {
      const out = await api('POST', `/api/v1/org/${tenant.orgId}/app/${triaged}/env/${env}/findings/triage`, {
        token,
        body: { actions: [{ findingHash: high.findingHash, status: i ? 'ADD_COMMENT' : 'FALSE_POSITIVE', note: 'x' }] },
      });
      expect(out.status, out.text).toBe(200);
    }
    expect((await trendsOf(`/app/${triaged}/env/${env}`)).open).toEqual({ High: 0, Medium: 1, Low: 1, Info: 0 });

    // First write a publication: the baseline (3 open), then the fix of the Low finding.
    const env2 = await scanWith(published, findings.slice(0, 2));
    const today = await trendsOf(`/app/${published}/env/${env2}`);
    expect(today).toMatchObject({ open: { High: 1, Medium: 1, Low: 0, Info: 0 }, fixed: { Low: 1 }, new: { Low: 0 } });
    expect((await trendsOf('')).open).toEqual({ High: 1, Medium: 2, Low: 1, Info: 0 });
  });
});
