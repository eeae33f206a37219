import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { api } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { createApp, pluginAlert, scanOnce } from './scan-helpers.ts';
import { notifyOverdueFindings } from '../../shared/governance/overdue-check.ts';
import { DAY_MS } from '../../shared/governance/model.ts';
import { queryAll } from '../../shared/db/query.ts';
import { keys } from '../../shared/db/keys.ts';

// Overdue findings (docs/GOVERNANCE.md, Overdue findings): the check records findingOverdue once per finding and
// overdue episode, without a scan, with the days in force; triage that sets a finding aside stops it, reopening
// moves the due date, a fix removes it, and another organization never receives it. The check runs here with a
// controlled clock (the service's own schedule runs it every second with the real one).

/** A receiver on loopback subscribed to findingOverdue for the tenant; records each body. */
async function subscribe(tenant: Tenant) {
  const allowed = await api('PUT', `/api/v1/org/${tenant.orgId}/integrations/settings`, {
    token: tenant.token,
    body: { allowPrivateNetworks: true },
  });
  expect(allowed.status, allowed.text).toBe(200);
  const received: { event: string; body: any }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        event: String(request.headers['x-hawk-event']),
        body: JSON.parse(Buffer.concat(chunks).toString()),
      });
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const created = await api('POST', `/api/v1/org/${tenant.orgId}/webhooks`, {
    token: tenant.token,
    body: { url, events: ['findingOverdue', 'findingStatusChanged'] },
  });
  expect(created.status, created.text).toBe(200);
  const overdue = () => received.filter((r) => r.event === 'findingOverdue');
  return { received, overdue, close: () => new Promise((resolve) => server.close(resolve)) };
}

const hashOf = async (tenant: Tenant, path: string) => {
  const out = await api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, { token: tenant.token });
  expect(out.status, out.text).toBe(200);
  return out.body.findings.find((r: any) => r.findingUrl === `https://target.test${path}`)!.findingHash as string;
};

/** Runs the check as of `at` until no entry is due then (other suites' entries share the index). */
async function checkAt(at: number) {
  for (let run = 0; run < 50; run++) if ((await notifyOverdueFindings(at)).environments === 0) return;
  throw new Error('the overdue check did not settle');
}

const until = async (check: () => boolean, ms = 20_000) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) if (check()) return;
  throw new Error('timed out');
};

describe('findingOverdue', () => {
  it('fires once per episode with the days in force, paused by triage, never for a fix or another organization', async () => {
    const [tenant, other] = [await createTenant(), await createTenant()];
    const [receiver, otherReceiver] = [await subscribe(tenant), await subscribe(other)];
    try {
      const sla = await api('PUT', `/api/v1/org/${tenant.orgId}/sla`, {
        token: tenant.token,
        body: { days: { High: 3, Medium: 30, Low: 90 } },
      });
      expect(sla.status, sla.text).toBe(200);
      const appId = await createApp(tenant, { name: 'overdue', env: 'dev' });
      const t0 = Date.now();
      const scan = await scanOnce(tenant.token, appId, [
        pluginAlert('40018', 'High', ['/a', '/b']),
        pluginAlert('10020', 'Medium', ['/m']),
        pluginAlert('10021', 'Low', ['/fixed']),
      ]);
      // The other organization has the same findings, and a policy of its own it never reaches.
      const otherApp = await createApp(other, { name: 'overdue', env: 'dev' });
      await scanOnce(other.token, otherApp, [pluginAlert('40018', 'High', ['/a'])]);
      const [a, b, m, fixed] = await Promise.all(['/a', '/b', '/m', '/fixed'].map((p) => hashOf(tenant, p)));
      // A later scan no longer reports /fixed: fixed, it is never overdue.
      await scanOnce(tenant.token, appId, [
        pluginAlert('40018', 'High', ['/a', '/b']),
        pluginAlert('10020', 'Medium', ['/m']),
      ]);
      const marks = async () =>
        new Map(
          (
            await queryAll({
              partition: `APP#${appId}`,
              skPrefix: keys.overdueFiredOfEnvironment(appId, scan.envId).skPrefix,
              consistent: true,
            })
          ).map((item) => [item.findingHash as string, item as { dueAt: number; episode: number; eventId: string }]),
        );

      // Two days on: nothing is due.
      await checkAt(t0 + 2 * DAY_MS);
      expect((await marks()).size).toBe(0);

      // The policy shortens Medium to 2 days: /m is due now, though its environment's entry was for day 3.
      const shorter = await api('PUT', `/api/v1/org/${tenant.orgId}/sla`, {
        token: tenant.token,
        body: { days: { High: 3, Medium: 2, Low: 90 } },
      });
      expect(shorter.status, shorter.text).toBe(200);
      await checkAt(t0 + 2 * DAY_MS + 3_600_000);
      expect([...(await marks()).keys()]).toEqual([m]);

      // /b set aside, then reopened 1.5 s later: its clock stood still meanwhile, so it is due that much later.
      const triage = (findingHash: string, status: string) =>
        api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${scan.envId}/findings/triage`, {
          token: tenant.token,
          body: { actions: [{ findingHash, status, note: status }] },
        });
      expect((await triage(b, 'FALSE_POSITIVE')).status).toBe(200);
      const day3 = t0 + 3 * DAY_MS + 3_600_000;
      await checkAt(day3);
      expect([...(await marks()).keys()].sort()).toEqual([a, m].sort()); // /b's clock is stopped
      await new Promise((r) => setTimeout(r, 1500));
      const reopened = await api('POST', `/api/v1/app/${appId}/alerts/rules/${randomUUID()}`, {
        token: tenant.token,
        body: {
          alertRules: [
            {
              alertCondition: { environmentId: scan.envId, pluginId: '40018', requestMethod: 'GET' },
              path: '/b',
              result: 'UNKNOWN',
              note: 'not a false positive',
            },
          ],
        },
      });
      expect(reopened.status, reopened.text).toBe(200);
      await checkAt(day3);
      const fired = await marks();
      expect([...fired.keys()].sort()).toEqual([a, b, m].sort());
      expect(fired.get(b)!.dueAt - fired.get(a)!.dueAt).toBeGreaterThanOrEqual(1500);

      // Once: later runs (as after a restart: the check keeps nothing in memory) record nothing more, and the fixed
      // finding never fires.
      await checkAt(day3);
      await checkAt(t0 + 100 * DAY_MS);
      const after = await marks();
      expect(after.size).toBe(3);
      expect(after.has(fixed)).toBe(false);
      for (const hash of [a, b, m]) expect(after.get(hash)!.eventId).toBe(fired.get(hash)!.eventId);

      // Delivered once each to the organization's receiver, in StackHawk's shape; none to the other organization.
      await until(() => receiver.overdue().length >= 3);
      await new Promise((r) => setTimeout(r, 2000));
      const bodies = receiver.overdue().map((r) => r.body.findingOverdue);
      expect(bodies.map((x) => x.finding.findingHash).sort()).toEqual([a, b, m].sort());
      expect(bodies.find((x) => x.finding.findingHash === m)).toMatchObject({
        applicationId: appId,
        envId: scan.envId,
        env: 'dev',
        finding: { pluginId: '10020', severity: 'Medium', method: 'GET' },
        status: 'NEW',
        slaDays: 2,
        dueTimestamp: new Date(fired.get(m)!.dueAt).toISOString(),
      });
      // The other organization's receiver had its own finding only (overdue on day 100 with the default 30 days).
      await until(() => otherReceiver.overdue().length >= 1);
      expect(otherReceiver.overdue()).toHaveLength(1);
      expect(otherReceiver.overdue()[0].body.findingOverdue).toMatchObject({ applicationId: otherApp, slaDays: 30 });
      expect(receiver.overdue()).toHaveLength(3);
    } finally {
      await receiver.close();
      await otherReceiver.close();
    }
  });

  it('fires again when a fixed finding that was overdue comes back (a new episode), at once', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'regression', env: 'dev' });
    const t0 = Date.now();
    const scan = await scanOnce(tenant.token, appId, [pluginAlert('40018', 'High', ['/r'])]);
    const r = await hashOf(tenant, '/r');
    const mark = async () =>
      (
        await queryAll({
          partition: `APP#${appId}`,
          skPrefix: keys.overdueFiredOfEnvironment(appId, scan.envId).skPrefix,
          consistent: true,
        })
      ).find((item) => item.findingHash === r) as { episode: number; eventId: string } | undefined;
    await checkAt(t0 + 31 * DAY_MS); // the default 30 days for High
    const first = await mark();
    expect(first).toBeDefined();
    await scanOnce(tenant.token, appId, [pluginAlert('10020', 'Medium', ['/other'])]); // /r fixed
    await scanOnce(tenant.token, appId, [pluginAlert('40018', 'High', ['/r'])]); // and back
    await checkAt(t0 + 31 * DAY_MS);
    const second = await mark();
    expect(second!.episode).toBeGreaterThan(first!.episode);
    expect(second!.eventId).not.toBe(first!.eventId);
  });
});
