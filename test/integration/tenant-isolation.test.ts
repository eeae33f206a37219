import { describe, expect, it } from 'vitest';
import { routes } from '../../shared/routes.ts';
import { pathParameterNames, type Route } from '../../shared/http/route.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { findingHash } from '../../shared/results/model.ts';
import { api, type RequestOptions } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { alert, completeScan, reportAlerts } from './scan-helpers.ts';
import { newTeam } from './team-helpers.ts';
import { auditEntriesOf } from './hosted-assets-helpers.ts';

// Tenant isolation (docs/API.md): no request returns, touches or even confirms another organization's data. Driven by
// the route table: both organizations build the same world (a CLOUD application with a reported scan and a finding,
// a retest queued on it, a schedule, an agent, a team, an invitation, scan secrets); then every operation is called by
// one organization's owner with its own ids, one of them swapped for the other organization's id of that kind, and
// must answer exactly as it does for an id that does not exist (same status, same message but for the id), while the
// other organization's audit log (every mutation writes it in its transaction) stays as it was.

const TARGET = 'http://127.0.0.1:9/';
const ENV = 'production';

type World = Record<string, string>;

async function world(tenant: Tenant): Promise<World> {
  const post = (path: string, body: unknown, query?: RequestOptions['query']) =>
    api('POST', path, { token: tenant.token, body, ...(query ? { query } : {}) });
  await allowScanDomain(tenant.orgId, '127.0.0.1');
  const app = await post(`/api/v1/org/${tenant.orgId}/app`, {
    name: `isolated-${Date.now()}`,
    env: ENV,
    applicationType: 'CLOUD',
    cloudScanTargetURL: TARGET,
  });
  expect(app.status, app.text).toBe(200);
  const appId = app.body.applicationId as string;
  const scan = await post(`/api/v1/app/${appId}/scan`, {
    env: ENV,
    // Its own configuration (a configuration's hash is its text's: the same text would be either's).
    config: `# ${tenant.orgId}\napp:\n  env: ${ENV}\n  host: ${TARGET}\n`,
    hawkscanVersion: '4.1.0',
    host: TARGET,
    tags: [],
  });
  expect(scan.status, scan.text).toBe(200);
  const { scanId, envId, configHash } = scan.body as Record<string, string>;
  await reportAlerts(tenant.token, scanId, [alert('40012', 'High', 1)]);
  await completeScan(tenant.token, scanId);
  const hash = findingHash({
    applicationId: appId,
    environmentId: envId,
    pluginId: '40012',
    method: 'GET',
    uri: '/path/0',
    param: 'q',
  });
  const retest = await post(`/api/v1/app/${appId}/findings/${hash}/retest`, undefined, { env: ENV });
  expect(retest.status, retest.text).toBe(200);
  const schedule = await post(`/api/v1/app/${appId}/schedules`, { env: ENV, cron: '0 3 * * *', timezone: 'UTC' });
  expect(schedule.status, schedule.text).toBe(200);
  const device = await post(`/api/v1/org/${tenant.orgId}/perch/devices`, { name: 'agent', engines: ['wapiti'] });
  expect(device.status, device.text).toBe(200);
  const team = await newTeam(tenant.orgId, tenant.token, { name: `team-${Date.now()}`, userIds: [tenant.userId] });
  const invitation = await post(`/api/v1/org/${tenant.orgId}/invitations`, { email: `i-${Date.now()}@example.test` });
  expect(invitation.status, invitation.text).toBe(200);
  for (const path of [
    `/api/v1/app/${appId}/secrets/HAWK_SCAN_TOKEN`,
    `/api/v1/org/${tenant.orgId}/secrets/HAWK_SCAN_TOKEN`,
  ]) {
    const secret = await api('PUT', path, { token: tenant.token, body: { value: 'secret-of-its-own' } });
    expect(secret.status, secret.text).toBe(204);
  }
  return {
    orgId: tenant.orgId,
    userId: tenant.userId,
    appId,
    oasId: appId,
    envId,
    scanId,
    configHash,
    findingHash: hash,
    retestId: retest.body.retestId,
    scanKey: retest.body.retestId,
    commandId: retest.body.retestId,
    scheduleId: schedule.body.schedule.id,
    deviceId: device.body.deviceId,
    teamId: team.id,
    invitationId: invitation.body.invitation.id,
  };
}

/** An id of nobody's: a fresh UUID, or a hash of nothing. */
const unknownId = (name: string) =>
  name === 'findingHash' || name === 'configHash' ? 'f'.repeat(64) : crypto.randomUUID();
/** The ids the world has none of (a key, a webhook...): the same unknown one in both calls of a comparison. */
const absent = new Map<string, string>();
const absentId = (name: string) => absent.get(name) ?? absent.set(name, unknownId(name)).get(name)!;

/** Ids the route takes outside its path (query or body) that name another resource, and the body it is sent. */
function requestOf(route: Route, ids: World, swap: Record<string, string>): RequestOptions {
  const id = (name: string) => swap[name] ?? ids[name];
  const takes = (name: string) => !!route.query && name in route.query.shape;
  const query: Record<string, string> = {};
  if (takes('env')) query.env = ENV;
  if (takes('deviceId')) query.deviceId = id('deviceId');
  if (takes('against')) query.against = id('againstScanId');
  const bodies: Record<string, unknown> = {
    acknowledgeDeviceCommand: { applicationId: id('ackAppId') },
    updateSchedule: { enabled: false },
    setApplicationScanSecret: { value: 'overwritten' },
    setOrganizationScanSecret: { value: 'overwritten' },
    pollDeviceCommand: { waitSeconds: 0 },
  };
  return { query, ...(route.operationId in bodies ? { body: bodies[route.operationId] } : {}) };
}

/** An answer with the swapped id written as `<id>`, so an unknown id's answer compares with it. */
const shape = (status: number, message: unknown, swapped: string) => ({
  status,
  message: typeof message === 'string' ? message.split(swapped).join('<id>') : message,
});

describe('tenant isolation on every route', () => {
  it("answers another organization's ids exactly as unknown ones, and changes nothing of theirs", async () => {
    const [caller, other] = [await createTenant(), await createTenant()];
    const [mine, theirs] = [await world(caller), await world(other)];
    const before = (await auditEntriesOf(other.orgId)).length;
    // Ids named outside the path: the diff's `against`, the acknowledged application.
    const outside: Record<string, (w: World) => string> = { againstScanId: (w) => w.scanId, ackAppId: (w) => w.appId };
    Object.assign(mine, Object.fromEntries(Object.entries(outside).map(([k, f]) => [k, f(mine)])));
    const kinds = [...Object.keys(theirs), ...Object.keys(outside)];
    const leaks: string[] = [];
    let cases = 0;
    for (const route of routes.filter((r) => r.auth === 'bearer')) {
      const names = [...pathParameterNames(route.path), ...Object.keys(outside)];
      for (const name of names.filter((n) => kinds.includes(n))) {
        const foreign = name in outside ? outside[name](theirs) : theirs[name];
        const unknown = unknownId(name);
        const call = async (value: string) => {
          const swap = { [name]: value };
          const path = pathParameterNames(route.path).reduce(
            (p, n) => p.replace(`{${n}}`, encodeURIComponent(swap[n] ?? mine[n] ?? absentId(n))),
            route.path,
          );
          return api(route.method, path, { token: caller.token, ...requestOf(route, mine, swap) });
        };
        const request = requestOf(route, mine, { [name]: foreign });
        // An id outside the path counts only where the route sends it.
        if (name in outside && !JSON.stringify(request).includes(foreign)) continue;
        const [theirAnswer, nobodys] = [await call(foreign), await call(unknown)];
        cases++;
        const a = shape(theirAnswer.status, theirAnswer.body?.message, foreign);
        const b = shape(nobodys.status, nobodys.body?.message, unknown);
        if (JSON.stringify(a) !== JSON.stringify(b) || (theirAnswer.status < 300 && nobodys.status >= 300))
          leaks.push(`${route.operationId} {${name}}: theirs ${JSON.stringify(a)}, unknown ${JSON.stringify(b)}`);
      }
    }
    expect(leaks).toEqual([]);
    expect(cases).toBeGreaterThan(100);
    expect((await auditEntriesOf(other.orgId)).length).toBe(before);
    // Their secrets are theirs still: listed by name, never overwritten (the audit log would show it).
    const listed = await api('GET', `/api/v1/app/${theirs.appId}/secrets`, { token: other.token });
    expect(listed.body.secrets.map((s: { name: string }) => s.name)).toEqual(['HAWK_SCAN_TOKEN']);
  }, 600_000);
});
