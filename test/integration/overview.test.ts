import { describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { createApp, scanOnce } from './scan-helpers.ts';
import { newApp, newTeam } from './team-helpers.ts';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { findingsOfEnvironment } from '../../shared/results/finding-repository.ts';

// getOrganizationOverview (docs/GOVERNANCE.md, The overview): the riskiest applications, the most overdue findings
// and the coverage gaps, checked against the operations that give the same facts one by one (the findings report,
// ), with team rules and tenant isolation.

const DAY = 86_400_000;
const alert = (pluginId: string, severity: string, paths: string[]) => ({
  pluginId,
  name: `Plugin ${pluginId}`,
  severity,
  description: `About ${pluginId}`,
  cweId: '89',
  uris: paths.map((uri) => ({
    uri,
    requestMethod: 'GET',
    param: 'id',
    evidence: '',
    otherInfo: '',
    requestHeader: '',
  })),
});
type Overview = Record<string, any>;

/** Moves the first sighting of the environment's findings of `severity` `days` back: their clocks started then. */
async function backdate(appId: string, envId: string, severity: string, days: number) {
  let moved = 0;
  for await (const f of findingsOfEnvironment({ applicationId: appId, environmentId: envId })) {
    if (f.severity !== severity) continue;
    moved++;
    await db.send(
      new UpdateCommand({
        TableName: process.env.TABLE_NAME,
        Key: keys.finding(appId, envId, f.findingHash!),
        UpdateExpression: 'SET firstSeen = :t',
        ExpressionAttributeValues: { ':t': Date.now() - days * DAY },
      }),
    );
  }
  return moved;
}

const overview = async (tenant: Pick<Tenant, 'orgId' | 'token'>) => {
  const out = await api('GET', `/api/v1/org/${tenant.orgId}/overview`, { token: tenant.token });
  expect(out.status, out.text).toBe(200);
  return out.body as Overview;
};

describe('getOrganizationOverview', () => {
  it('counts and ranks by open findings, each once whatever its URIs, as the trends count them', async () => {
    const tenant = await createTenant();
    // One Low finding at three URIs (ids in the path: one normalized path) against two Low findings at one each.
    const many = await createApp(tenant, { name: 'one finding, many URIs', env: 'dev' });
    const two = await createApp(tenant, { name: 'two findings', env: 'dev' });
    await scanOnce(tenant.token, many, [alert('10020', 'Low', ['/items/1', '/items/2', '/items/3'])]);
    await scanOnce(tenant.token, two, [alert('10020', 'Low', ['/a']), alert('10021', 'Low', ['/b'])]);

    const body = await overview(tenant);
    expect(body.riskiestApplications.map((a: Overview) => [a.name, a.openLow, a.openTotal, a.untriagedLow])).toEqual([
      ['two findings', 2, 2, 2],
      ['one finding, many URIs', 1, 1, 3],
    ]);
    const trends = await api('GET', `/api/v1/org/${tenant.orgId}/trends`, { token: tenant.token });
    expect(trends.body.days.at(-1).open.Low).toBe(3);
  });

  it('ranks applications by untriaged findings, lists the most overdue findings and the environments never scanned', async () => {
    const tenant = await createTenant();
    const risky = await createApp(tenant, { name: 'risky', env: 'prod' });
    const calm = await createApp(tenant, { name: 'calm', env: 'dev' });
    const idle = await createApp(tenant, { name: 'idle', env: 'staging' });
    const riskyScan = await scanOnce(
      tenant.token,
      risky,
      [alert('40018', 'High', ['/a', '/b', '/c']), alert('10038', 'Medium', ['/d', '/e'])],
      'prod',
    );
    await scanOnce(tenant.token, calm, [alert('10020', 'Low', ['/f', '/g']), alert('10021', 'Medium', ['/h'])]);
    // Highs first seen 50 days ago (20 past the default 30 days), Mediums 100 days ago (10 past 90): all overdue.
    expect(await backdate(risky, riskyScan.envId, 'High', 50)).toBe(3);
    expect(await backdate(risky, riskyScan.envId, 'Medium', 100)).toBe(2);

    const body = await overview(tenant);
    expect(body.organizationId).toBe(tenant.orgId);

    // Riskiest applications: by untriaged High, then Medium, then Low; none without untriaged findings.
    expect(body.riskiestApplications.map((a: Overview) => a.name)).toEqual(['risky', 'calm']);
    expect(body.riskiestApplications[0]).toMatchObject({
      applicationId: risky,
      untriagedHigh: 3,
      untriagedMedium: 2,
      untriagedLow: 0,
    });
    expect(body.riskiestApplications[1]).toMatchObject({ applicationId: calm, untriagedMedium: 1, untriagedLow: 2 });
    expect(body.riskiestApplications[0]).toMatchObject({ openHigh: 3, openMedium: 2, openLow: 0, openTotal: 5 });

    // Most overdue: exactly the findings report's overdue rows, earliest due date first.
    const report = await api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, { token: tenant.token });
    expect(report.status, report.text).toBe(200);
    const late = (report.body.findings as Overview[])
      .filter((r) => r.overdue)
      .sort((a, b) => a.dueDate.localeCompare(b.dueDate) || a.findingHash.localeCompare(b.findingHash));
    expect(late).toHaveLength(5);
    expect(body.overdue).toMatchObject({
      overdueCount: 5,
      overdueBySeverity: { High: 3, Medium: 2, Low: 0 },
      environmentsExamined: 2,
    });
    expect(
      body.overdue.findings.map((f: Overview) => [f.findingHash, f.dueDate, f.daysLeft, f.severity, f.url]),
    ).toEqual(late.map((r) => [r.findingHash, r.dueDate, r.daysLeft, r.findingRisk, r.findingUrl]));
    expect(body.overdue.findings[0]).toMatchObject({
      applicationName: 'risky',
      environmentName: 'prod',
      environmentId: riskyScan.envId,
      scanId: riskyScan.scanId,
      severity: 'High', // 20 days late before 10
      status: 'UNKNOWN',
    });

    // Coverage gaps: the environment never scanned; the ones scanned today are not gaps.
    expect(body.coverageGaps).toMatchObject({
      complete: true,
      neverScanned: 1,
      notScannedIn7Days: 1,
      notScannedIn30Days: 1,
      environments: [{ applicationId: idle, applicationName: 'idle', environmentName: 'staging', lastScannedAt: '' }],
    });

    // A false positive has no due date: it leaves the overdue list (the report agrees).
    const triaged = await api(
      'POST',
      `/api/v1/org/${tenant.orgId}/app/${risky}/env/${riskyScan.envId}/findings/triage`,
      {
        token: tenant.token,
        body: { actions: [{ findingHash: late[0]!.findingHash, status: 'FALSE_POSITIVE', note: 'not real' }] },
      },
    );
    expect(triaged.status, triaged.text).toBe(200);
    const after = await overview(tenant);
    expect(after.overdue.overdueCount).toBe(4);
    expect(after.overdue.findings.map((f: Overview) => f.findingHash)).not.toContain(late[0]!.findingHash);

    // A rename shows everywhere at once: the overdue rows take the name from the riskiest entry, the gaps from the
    // overview's copy of names, which the rename's transaction moved out of date (overview-names.test.ts).
    for (const [appId, name] of [
      [risky, 'risky renamed'],
      [idle, 'idle renamed'],
    ]) {
      const renamed = await api('POST', `/api/v1/app/${appId}`, { token: tenant.token, body: { name } });
      expect(renamed.status, renamed.text).toBe(200);
    }
    const renamed = await overview(tenant);
    expect(renamed.riskiestApplications[0]).toMatchObject({ applicationId: risky, name: 'risky renamed' });
    expect(new Set(renamed.overdue.findings.map((f: Overview) => f.applicationName))).toEqual(
      new Set(['risky renamed']),
    );
    expect(renamed.coverageGaps.environments[0]).toMatchObject({
      applicationId: idle,
      applicationName: 'idle renamed',
    });
  });

  it("follows team rules, needs read:report and never shows another organization's data", async () => {
    const owner = await createTenant();
    const member = await addUserTo(owner.orgId);
    const outsider = await addUserTo(owner.orgId);
    await newTeam(owner.orgId, owner.token, { name: 'red', userIds: [member.userId] });
    const teamApp = await newApp(owner.orgId, member.token, 'team app', 'dev'); // the member's team owns it
    await scanOnce(member.token, teamApp, [alert('40018', 'High', ['/a'])]);
    const open = await createApp(owner, { name: 'open app', env: 'dev' });

    const seen = async (who: Pick<Tenant, 'token'>) => {
      const body = await overview({ orgId: owner.orgId, token: who.token });
      return {
        risky: body.riskiestApplications.map((a: Overview) => a.applicationId),
        gaps: body.coverageGaps.environments.map((e: Overview) => e.applicationId),
      };
    };
    expect(await seen(member)).toEqual({ risky: [teamApp], gaps: [open] });
    expect(await seen(outsider)).toEqual({ risky: [], gaps: [open] });

    const reportless = await addUserTo(owner.orgId, ['read:application']);
    expect((await api('GET', `/api/v1/org/${owner.orgId}/overview`, { token: reportless.token })).status).toBe(401);
    const stranger = await createTenant();
    expect((await api('GET', `/api/v1/org/${owner.orgId}/overview`, { token: stranger.token })).status).toBe(401);
    const own = await overview(stranger);
    expect(own.riskiestApplications).toEqual([]);
    expect(own.coverageGaps.environments).toEqual([]);
    expect(own.overdue).toMatchObject({ overdueCount: 0, findings: [], environmentsExamined: 0 });
  });
});
