import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { MAX_SCHEDULES_PER_APP } from '../../shared/schedules/inputs.ts';

// Scan schedules (docs/HOSTED-SCANS.md, Schedules): the operations over HTTP, and the embedded scheduler of the
// local stack starting runs at their times.

async function cloudApp(tenant: Tenant, name = 'cloud') {
  const out = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
    token: tenant.token,
    body: {
      name: `${name}-${Date.now()}-${Math.random()}`,
      env: 'production',
      applicationType: 'CLOUD',
      cloudScanTargetURL: 'http://127.0.0.1:9/',
    },
  });
  expect(out.status, out.text).toBe(200);
  return out.body.applicationId as string;
}

const schedulesPath = (appId: string) => `/api/v1/app/${appId}/schedules`;
const create = (tenant: Pick<Tenant, 'token'>, appId: string, body: unknown) =>
  api('POST', schedulesPath(appId), { token: tenant.token, body });
const list = async (tenant: Pick<Tenant, 'token'>, appId: string) => {
  const out = await api('GET', schedulesPath(appId), { token: tenant.token });
  expect(out.status, out.text).toBe(200);
  return out.body.schedules as Record<string, any>[];
};
const everyMinute = { env: 'production', cron: '* * * * *', timezone: 'UTC' };

async function scheduleAudit(tenant: Tenant) {
  const out = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: tenant.token, query: { pageSize: 1000 } });
  expect(out.status).toBe(200);
  return (out.body.auditRecords as { userActivityType: string; payload: string }[])
    .map((r) => ({ type: r.userActivityType, payload: JSON.parse(r.payload) }))
    .filter((r) => r.payload.scheduleId);
}

describe('the schedule operations', () => {
  it('creates, lists, changes, pauses and deletes a schedule, each audited', async () => {
    const tenant = await createTenant();
    const appId = await cloudApp(tenant);
    const created = await create(tenant, appId, { env: 'production', cron: '0 3 * * 1-5', timezone: 'Europe/Paris' });
    expect(created.status, created.text).toBe(200);
    const schedule = created.body.schedule;
    for (const field of ['id', 'env', 'cron', 'timezone', 'enabled', 'nextRunAt', 'lastRunAt', 'lastRunScanKey'])
      expect(schedule).toHaveProperty(field);
    expect(schedule).toMatchObject({
      env: 'production',
      cron: '0 3 * * 1-5',
      timezone: 'Europe/Paris',
      enabled: true,
      kind: 'SCAN',
      lastRunAt: '',
      lastRunScanKey: '',
    });
    // 03:00 in Paris on a weekday: 01:00 or 02:00 UTC.
    const next = new Date(schedule.nextRunAt);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect([1, 2]).toContain(next.getUTCHours());
    expect([1, 2, 3, 4, 5]).toContain(next.getUTCDay());

    expect(await list(tenant, appId)).toEqual([schedule]);

    const paused = await api('PATCH', `${schedulesPath(appId)}/${schedule.id}`, {
      token: tenant.token,
      body: { enabled: false, cron: '30 4 * * *' },
    });
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body.schedule).toMatchObject({ id: schedule.id, enabled: false, cron: '30 4 * * *', nextRunAt: '' });
    const resumed = await api('PATCH', `${schedulesPath(appId)}/${schedule.id}`, {
      token: tenant.token,
      body: { enabled: true, timezone: 'UTC' },
    });
    expect(resumed.body.schedule.nextRunAt).toMatch(/T04:30:00\.000Z$/);

    const removed = await api('DELETE', `${schedulesPath(appId)}/${schedule.id}`, { token: tenant.token });
    expect(removed.status, removed.text).toBe(200);
    expect(await list(tenant, appId)).toEqual([]);
    expect((await api('DELETE', `${schedulesPath(appId)}/${schedule.id}`, { token: tenant.token })).status).toBe(404);

    const audit = await scheduleAudit(tenant);
    expect(audit.map((r) => [r.type, r.payload.change]).sort()).toEqual([
      ['APPLICATION_MODIFIED', 'scheduleAdded'],
      ['APPLICATION_MODIFIED', 'scheduleModified'],
      ['APPLICATION_MODIFIED', 'scheduleModified'],
      ['APPLICATION_MODIFIED', 'scheduleRemoved'],
    ]);
    expect(audit.every((r) => r.payload.scheduleId === schedule.id && r.payload.applicationId === appId)).toBe(true);
  });

  it('answers 400 naming the field for a bad cron expression or time zone, and stores nothing', async () => {
    const tenant = await createTenant();
    const appId = await cloudApp(tenant);
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ cron: '* * * *' }, /^cron: must have 5 fields/],
      [{ cron: '0 0 * * * *' }, /^cron: must have 5 fields/],
      [{ cron: '@daily' }, /^cron: must have 5 fields/],
      [{ cron: '61 * * * *' }, /^cron: the minute field: "61" is out of range/],
      [{ cron: '0 24 * * *' }, /^cron: the hour field/],
      [{ cron: '0 0 L * *' }, /^cron: the day of month field/],
      [{ cron: '0 0 * * MON#2' }, /^cron: the day of week field/],
      [{ cron: '5/5 * * * *' }, /^cron: the minute field: a step needs/],
      [{ cron: '0 0 30 2 *' }, /^cron: "0 0 30 2 \*" is never due/],
      [{ cron: '' }, /cron/],
      [{ timezone: 'Mars/Olympus' }, /^timezone: "Mars\/Olympus" is not an IANA time zone name/],
      [{ timezone: '+02:00' }, /^timezone: /],
      [{ timezone: 'Europe/../../etc' }, /^timezone: /],
      [{ timezone: '' }, /timezone/],
      [{ kind: 'NIGHTLY' }, /kind/],
      [{ scanConfig: 'no-such-configuration' }, /^scanConfig: no scan configuration named no-such-configuration/],
      [{ every: 'minute' }, /every/],
    ];
    for (const [change, message] of bad) {
      const out = await create(tenant, appId, { ...everyMinute, ...change });
      expect(out.status, `${JSON.stringify(change)}: ${out.text}`).toBe(400);
      expect(out.body.message, JSON.stringify(change)).toMatch(message);
    }
    const { body } = await create(tenant, appId, everyMinute);
    for (const [change, message] of bad.slice(0, 14)) {
      const out = await api('PATCH', `${schedulesPath(appId)}/${body.schedule.id}`, {
        token: tenant.token,
        body: change,
      });
      expect(out.status, `${JSON.stringify(change)}: ${out.text}`).toBe(400);
      expect(out.body.message).toMatch(message);
    }
    expect(await list(tenant, appId)).toEqual([body.schedule]);
    expect((await scheduleAudit(tenant)).length).toBe(1);
  });

  it('refuses an application that is not CLOUD, and more than the bound per application', async () => {
    const tenant = await createTenant();
    const app = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: tenant.token,
      body: { name: `standard-${Date.now()}`, env: 'production' },
    });
    const notCloud = await create(tenant, app.body.applicationId, everyMinute);
    expect(notCloud.status).toBe(400);
    expect(notCloud.body.message).toMatch(/not a CLOUD application/);

    const appId = await cloudApp(tenant);
    const made = await Promise.all(
      Array.from({ length: MAX_SCHEDULES_PER_APP + 3 }, (_, i) =>
        create(tenant, appId, { ...everyMinute, cron: `${i} 1 * * *`, enabled: false }),
      ),
    );
    expect(made.filter((out) => out.status === 200)).toHaveLength(MAX_SCHEDULES_PER_APP);
    for (const out of made.filter((o) => o.status !== 200)) {
      expect(out.status).toBe(400);
      expect(out.body.message).toMatch(new RegExp(`${MAX_SCHEDULES_PER_APP} schedules, the most it may`));
    }
    expect(await list(tenant, appId)).toHaveLength(MAX_SCHEDULES_PER_APP);
    // A deletion makes room again.
    await api('DELETE', `${schedulesPath(appId)}/${made.find((o) => o.status === 200)!.body.schedule.id}`, {
      token: tenant.token,
    });
    expect((await create(tenant, appId, everyMinute)).status).toBe(200);
  });

  it("neither shows nor touches another organization's schedules, nor another application's", async () => {
    const owner = await createTenant();
    const stranger = await createTenant();
    const appId = await cloudApp(owner);
    const otherApp = await cloudApp(owner, 'other');
    const { body } = await create(owner, appId, { ...everyMinute, enabled: false });
    const id = body.schedule.id;
    const path = `${schedulesPath(appId)}/${id}`;
    expect((await api('GET', schedulesPath(appId), { token: stranger.token })).status).toBe(404);
    expect((await create(stranger, appId, everyMinute)).status).toBe(404);
    expect((await api('PATCH', path, { token: stranger.token, body: { enabled: true } })).status).toBe(404);
    expect((await api('DELETE', path, { token: stranger.token })).status).toBe(404);
    // The schedule's id under another application of the same organization is not found either.
    const crossed = `${schedulesPath(otherApp)}/${id}`;
    expect((await api('PATCH', crossed, { token: owner.token, body: { enabled: true } })).status).toBe(404);
    expect((await api('DELETE', crossed, { token: owner.token })).status).toBe(404);
    // A member without write:scan reads them, and changes none.
    const reader = await addUserTo(owner.orgId, ['read:scan', 'read:application']);
    expect(await list(reader, appId)).toEqual([body.schedule]);
    expect((await api('PATCH', path, { token: reader.token, body: { enabled: true } })).status).toBe(401);
    expect((await create(reader, appId, everyMinute)).status).toBe(401);
    expect(await list(owner, appId)).toEqual([body.schedule]);
    expect(await scheduleAudit(stranger)).toEqual([]);
  });
});

describe("the local stack's embedded scheduler", () => {
  /** Polls the application's one schedule until `done` holds, at most `ms`. */
  async function until(tenant: Tenant, appId: string, done: (s: Record<string, any>) => boolean, ms: number) {
    const end = Date.now() + ms;
    for (;;) {
      const [schedule] = await list(tenant, appId);
      if (done(schedule) || Date.now() > end) return schedule;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  const status = (tenant: Tenant, appId: string) =>
    api('GET', `/api/v1/app/${appId}/perch/status`, { token: tenant.token });

  it('starts a run every minute (two in about two minutes), skips while a run is active, starts none paused or deleted', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const [running, paused, deleted, busy] = await Promise.all(
      ['running', 'paused', 'deleted', 'busy'].map((n) => cloudApp(tenant, n)),
    );
    const made = async (appId: string, body: Record<string, unknown> = everyMinute) => {
      const out = await create(tenant, appId, body);
      expect(out.status, out.text).toBe(200);
      return out.body.schedule;
    };
    await made(running);
    await made(paused, { ...everyMinute, enabled: false });
    const gone = await made(deleted);
    expect((await api('DELETE', `${schedulesPath(deleted)}/${gone.id}`, { token: tenant.token })).status).toBe(200);
    // An active run of the application: the schedule's start is skipped, and says so.
    const manual = await api('POST', `/api/v1/app/${busy}/perch/start`, {
      token: tenant.token,
      body: { command: { command: 'START' }, env: 'production' },
    });
    expect(manual.status, manual.text).toBe(200);
    await made(busy);

    // The first minute: a run, started within 75 s of its time (the minute it was due, `lastResultAt`).
    const first = await until(tenant, running, (s) => s.lastRunScanKey !== '', 80_000);
    expect(first).toMatchObject({ lastResult: 'STARTED', lastMessage: '' });
    expect(Date.parse(first.lastRunAt) - Date.parse(first.lastResultAt)).toBeLessThan(75_000);
    expect(Date.parse(first.lastResultAt) % 60_000).toBe(0);
    expect((await status(tenant, running)).body.device.command.id).toBe(first.lastRunScanKey);
    // It is the ordinary run startScan makes: stopped the same way, which frees the application for the next minute.
    expect((await api('POST', `/api/v1/app/${running}/perch/stop`, { token: tenant.token, body: {} })).status).toBe(
      200,
    );

    const second = await until(tenant, running, (s) => s.lastRunScanKey !== first.lastRunScanKey, 80_000);
    expect(second.lastRunScanKey).not.toBe(first.lastRunScanKey);
    expect(Date.parse(second.lastResultAt) - Date.parse(first.lastResultAt)).toBe(60_000);
    expect(Date.parse(second.lastRunAt) - Date.parse(second.lastResultAt)).toBeLessThan(75_000);

    const skipped = (await list(tenant, busy))[0];
    expect(skipped).toMatchObject({ lastResult: 'SKIPPED', lastRunAt: '', lastRunScanKey: '' });
    expect(skipped.lastMessage).toMatch(/a scan is already running/);
    expect((await status(tenant, busy)).body.device.command.id).toBe(manual.body.scanKey);

    expect((await list(tenant, paused))[0]).toMatchObject({ enabled: false, lastRunAt: '', lastResult: '' });
    expect((await status(tenant, paused)).body.device).toBeUndefined();
    expect(await list(tenant, deleted)).toEqual([]);
    expect((await status(tenant, deleted)).body.device).toBeUndefined();

    // Each start is the schedule's creator's SCAN_STARTED, naming the schedule.
    const audit = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, {
      token: tenant.token,
      query: { pageSize: 1000 },
    });
    const started = (audit.body.auditRecords as { userActivityType: string; payload: string; userId: string }[])
      .filter((r) => r.userActivityType === 'SCAN_STARTED')
      .map((r) => ({ ...JSON.parse(r.payload), userId: r.userId }))
      .filter((p) => p.applicationId === running);
    expect(started.map((p) => p.scanKey).sort()).toEqual([first.lastRunScanKey, second.lastRunScanKey].sort());
    for (const p of started) expect(p).toMatchObject({ scheduleId: first.id, userId: tenant.userId, hosted: true });
  }, 200_000);
});
