import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { api } from './client.ts';
import { addUserTo, createTenant } from './fixtures.ts';
import { auditTypes, joinTeams } from './app-helpers.ts';
import { SCAN_CONFIG, alert, completeScan, createApp, reportAlerts, startScan } from './scan-helpers.ts';
import { FINDINGS_REPORT_LIMITS } from '../../shared/limits.ts';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { config } from '../../shared/config.ts';
import {
  findingsBefore,
  findingsOfEnvironment,
  recordFindings,
  restoreFindings,
} from '../../shared/results/finding-repository.ts';
import { type FindingRecord } from '../../shared/results/model.ts';
import { findingsOfScan } from '../../shared/findings/scan-findings.ts';
import { statsOf } from '../../shared/scans/scans.ts';
import { cancelledItems } from '../../shared/db/items.ts';
import { transactWrite } from '../../shared/db/transactions.ts';
import { getEnvironment } from '../../shared/applications/environment-repository.ts';
import {
  alertsOfScan,
  getScan,
  scanFindingsRestoreStart,
  scanStatusNow,
} from '../../shared/results/scan-repository.ts';
import { scanEnd } from '../../shared/scans/scan-write.ts';

/** An environment whose first scan completed with findings, and a reader of its finding records (in hash order). */
async function environmentWithFindings() {
  const tenant = await createTenant();
  const appId = await createApp(tenant);
  const first = await startScan(tenant.token, appId);
  await reportAlerts(tenant.token, first.scanId, [alert('10038', 'High', 2)]);
  await completeScan(tenant.token, first.scanId);
  const envRef = { applicationId: appId, environmentId: first.envId };
  const records = async () => {
    const all: Partial<FindingRecord>[] = [];
    for await (const f of findingsOfEnvironment(envRef)) all.push(f);
    return all.sort((a, b) => a.findingHash!.localeCompare(b.findingHash!));
  };
  return { tenant, appId, first, envRef, records };
}

describe('scan reporting: start, alerts, complete', () => {
  it('reports a scan and reads it back with the public shapes', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const started = await startScan(tenant.token, appId, { tags: [{ name: 'branch', value: 'main' }] });
    expect(started.scanId).toMatch(/^[0-9a-f-]{36}$/);
    expect(started.configHash).toMatch(/^[0-9a-f]{64}$/);

    const first = await reportAlerts(tenant.token, started.scanId, [
      alert('10038', 'High', 3),
      alert('10020', 'Low', 1),
    ]);
    expect(first).toEqual({ scanId: started.scanId, alertsReported: 2, urisReported: 4, alreadyCounted: false });
    // The same plugin again (later batch, other metadata): merges into the first report of the plugin.
    await reportAlerts(tenant.token, started.scanId, [
      { ...alert('10038', 'Low', 2, 3), name: 'renamed' },
      alert('90001', 'Medium', 1),
    ]);

    // While running: the statistics are those of the alerts so far, percentComplete 0.
    const running = await api('GET', `/api/v1/scan/${started.scanId}/alerts`, { token: tenant.token });
    expect(running.body.applicationScanResults[0]).toMatchObject({
      percentComplete: '0',
      alertStats: { totalAlerts: 7, uniqueAlerts: 3 },
    });
    expect(running.body.applicationScanResults[0].scan.status).toBe('STARTED');

    const done = await completeScan(tenant.token, started.scanId, 'COMPLETED', 42);
    expect(done.scan).toMatchObject({
      id: started.scanId,
      status: 'COMPLETED',
      applicationId: appId,
      applicationName: 'scanned',
      env: 'dev',
      envId: started.envId,
      version: '4.1.0',
      externalUserId: tenant.userId,
    });

    const listed = await api('GET', `/api/v1/scan/${started.scanId}/alerts`, {
      token: tenant.token,
      query: { pageSize: 2 },
    });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ totalCount: '3', nextPageToken: '1' });
    const result = listed.body.applicationScanResults[0];
    expect(typeof result.scanDuration).toBe('string');
    expect(typeof result.scan.timestamp).toBe('string');
    expect(result).toMatchObject({
      urlCount: 42,
      configHash: started.configHash,
      appHost: 'https://target.test',
      percentComplete: '100',
      tags: [{ name: 'branch', value: 'main' }],
      severityStats: { High: 1, Medium: 1, Low: 1 },
      alertStats: {
        totalAlerts: 7,
        uniqueAlerts: 3,
        alertStatusStats: [{ alertStatus: 'UNKNOWN', totalCount: 7, severityStats: { High: 5, Medium: 1, Low: 1 } }],
      },
    });
    expect(result.applicationAlerts.map((a: { pluginId: string }) => a.pluginId)).toEqual(['10020', '10038']);
    expect(result.applicationAlerts[1]).toEqual({
      pluginId: '10038',
      name: 'Plugin 10038',
      description: 'About 10038',
      severity: 'High',
      cweId: '79',
      references: ['https://owasp.org/x'],
      uriCount: 5,
      alertStatusStats: [{ alertStatus: 'UNKNOWN', totalCount: 5, severityStats: { High: 5 } }],
      scan: expect.objectContaining({ id: started.scanId, applicationId: appId, status: 'COMPLETED' }),
    });
    const byName = await api('GET', `/api/v1/scan/${started.scanId}/alerts`, {
      token: tenant.token,
      query: { sortField: 'name', sortDir: 'desc' },
    });
    expect(
      byName.body.applicationScanResults[0].applicationAlerts.map((a: { pluginId: string }) => a.pluginId),
    ).toEqual(['90001', '10038', '10020']);
    expect(byName.body.nextPageToken).toBe(''); // the last page: the end marker (README "Paging")

    // An alert's URIs, in the order reported, with the required fields; then one finding's messages.
    const findings = await api('GET', `/api/v1/scan/${started.scanId}/alert/10038`, {
      token: tenant.token,
      query: { pageSize: 4 },
    });
    expect(findings.status).toBe(200);
    expect(findings.body).toMatchObject({
      totalCount: '5',
      nextPageToken: '1',
      appHost: 'https://target.test',
      alert: { pluginId: '10038', uriCount: 5, scan: { id: started.scanId } },
    });
    const uris = findings.body.applicationScanAlertUris;
    expect(uris.map((u: { uri: string }) => u.uri)).toEqual(['/path/0', '/path/1', '/path/2', '/path/3']);
    expect(uris[0]).toMatchObject({ requestMethod: 'GET', pluginId: '10038', status: 'UNKNOWN' });
    expect(uris[0].alertUriId).toMatch(/^[0-9a-f-]{36}$/);
    expect(uris[0].msgId).toMatch(/^[0-9a-f-]{36}$/);
    expect(uris[0].findingHash).toMatch(/^[0-9a-f]{64}$/);
    const last = await api('GET', `/api/v1/scan/${started.scanId}/alert/10038`, {
      token: tenant.token,
      query: { pageSize: 4, pageToken: 1 },
    });
    expect(last.body.applicationScanAlertUris.map((u: { uri: string }) => u.uri)).toEqual(['/path/4']);
    expect(last.body.nextPageToken).toBe('6');
    const capped = await api('GET', `/api/v1/scan/${started.scanId}/alert/10038`, {
      token: tenant.token,
      query: { pageSize: 1000 },
    });
    expect(capped.status).toBe(200);

    const message = await api(
      'GET',
      `/api/v1/scan/${started.scanId}/uri/${uris[1].alertUriId}/messages/${uris[1].msgId}`,
      {
        token: tenant.token,
        query: { includeValidationCommand: true },
      },
    );
    expect(message.status).toBe(200);
    expect(message.body).toMatchObject({
      scanMessage: {
        id: uris[1].msgId,
        responseBody: '<html>1</html>',
        responseHeader: 'HTTP/1.1 200 OK\r\n',
        cookieParams: 'a=1; b=2',
      },
      uri: '/path/1',
      evidence: 'evidence 1',
      otherInfo: 'other',
      param: 'q',
      description: 'About 10038',
      findingHash: uris[1].findingHash,
    });
    expect(message.body.validationCommand).toBe(
      "curl --globoff --path-as-is -X 'GET' 'https://target.test/path/1' -H 'Host: target.test' -H 'Cookie: a=1; b=2'",
    );
    const plain = await api(
      'GET',
      `/api/v1/scan/${started.scanId}/uri/${uris[1].alertUriId}/messages/${uris[1].msgId}`,
      { token: tenant.token },
    );
    expect(plain.body.validationCommand).toBe('');
    const mismatched = await api(
      'GET',
      `/api/v1/scan/${started.scanId}/uri/${uris[0].alertUriId}/messages/${uris[1].msgId}`,
      { token: tenant.token },
    );
    expect(mismatched.status).toBe(404);
    expect((await api('GET', `/api/v1/scan/${started.scanId}/alert/77777`, { token: tenant.token })).status).toBe(404);

    expect(await auditTypes(tenant)).toEqual([
      'APPLICATION_ADDED',
      'ENVIRONMENT_ADDED',
      'SCAN_STARTED',
      'SCAN_COMPLETED',
    ]);
  });

  it('creates the environment on a new name, returns the parsed config by hash, and 404s unknown hashes', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'cfg' });
    const started = await startScan(tenant.token, appId, { env: 'staging' });
    const envs = await api('GET', `/api/v1/app/${appId}/env/list`, { token: tenant.token });
    expect(envs.body.environments).toEqual([
      expect.objectContaining({
        environmentId: started.envId,
        environmentName: 'staging',
        currentScanSummary: expect.objectContaining({
          scanId: started.scanId,
          configHash: started.configHash,
          version: '4.1.0',
        }),
      }),
    ]);
    expect((await api('GET', `/api/v1/app/${appId}`, { token: tenant.token })).body.applicationStatus).toBe('ACTIVE');
    // Same name in another case: the same environment.
    expect((await startScan(tenant.token, appId, { env: 'STAGING' })).envId).toBe(started.envId);

    const config = await api('GET', `/api/v1/app/${appId}/config/${started.configHash}`, { token: tenant.token });
    expect(config.status).toBe(200);
    expect(config.body).toEqual({
      configHash: started.configHash,
      conf: {
        app: expect.objectContaining({ applicationId: 'x', env: 'dev', host: 'https://target.test' }),
        hawk: expect.objectContaining({ spider: expect.objectContaining({ base: true }) }),
        tags: [],
      },
    });
    expect((await api('GET', `/api/v1/app/${appId}/config/${'0'.repeat(64)}`, { token: tenant.token })).status).toBe(
      404,
    );
    expect((await api('GET', `/api/v1/app/${appId}/config/not-a-hash`, { token: tenant.token })).status).toBe(400);
    const otherApp = await createApp(tenant, { name: 'other' });
    expect(
      (await api('GET', `/api/v1/app/${otherApp}/config/${started.configHash}`, { token: tenant.token })).status,
    ).toBe(404);
    expect(await auditTypes(tenant)).toEqual([
      'APPLICATION_ADDED',
      'ENVIRONMENT_ADDED',
      'SCAN_STARTED',
      'SCAN_STARTED',
      'APPLICATION_ADDED',
    ]);
  });

  it('refuses invalid reports with 400 naming the problem, and changes nothing', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const bad: [Record<string, unknown>, string][] = [
      [{ env: 'dev', config: 'app: [unclosed' }, 'config'],
      [{ env: 'dev', config: 'just a string' }, 'config'],
      [{ env: 'dev', config: 'app: 7' }, 'config'],
      [{ env: 'dev' }, 'body.config'],
      [{ config: SCAN_CONFIG }, 'body.env'],
      [{ env: 'a,b', config: SCAN_CONFIG }, 'body.env'],
      [{ env: 'dev', config: SCAN_CONFIG, tags: [{ value: 'x' }] }, 'body.tags'],
    ];
    for (const [body, field] of bad) {
      const out = await api('POST', `/api/v1/app/${appId}/scan`, { token: tenant.token, body });
      expect(out.status, JSON.stringify(body)).toBe(400);
      expect(out.body.message).toContain(field);
    }
    const { scanId } = await startScan(tenant.token, appId);
    const badAlerts: [unknown, string][] = [
      [{ alerts: [] }, 'body.alerts'],
      [{ alerts: [{ ...alert('1', 'High', 1), severity: 'Critical' }] }, 'severity'],
      [{ alerts: [{ ...alert('1', 'High', 1), pluginId: 'a#b' }] }, 'pluginId'],
      [{ alerts: [alert('1', 'High', 0)] }, 'uris'],
      [{ alerts: [{ ...alert('1', 'High', 1), uris: [{ uri: '/x' }] }] }, 'requestMethod'],
      [
        { alerts: [alert('1', 'High', FINDINGS_REPORT_LIMITS.maxUris + 1)] },
        `at most ${FINDINGS_REPORT_LIMITS.maxUris} URIs`,
      ],
    ];
    for (const [body, field] of badAlerts) {
      const out = await api('POST', `/api/v1/scan/${scanId}/alerts`, { token: tenant.token, body });
      expect(out.status).toBe(400);
      expect(out.body.message).toContain(field);
    }
    expect(
      (await api('POST', `/api/v1/scan/${scanId}/complete`, { token: tenant.token, body: { status: 'DONE' } })).status,
    ).toBe(400);
    const done = await completeScan(tenant.token, scanId, 'ERROR');
    expect(done.alertStats).toEqual({ totalAlerts: 0, uniqueAlerts: 0, alertStatusStats: [] });
    // Once ended: no second completion, no more alerts.
    const again = await api('POST', `/api/v1/scan/${scanId}/complete`, {
      token: tenant.token,
      body: { status: 'COMPLETED' },
    });
    expect(again.status).toBe(400);
    expect(again.body.message).toContain('already ended');
    expect(
      (
        await api('POST', `/api/v1/scan/${scanId}/alerts`, {
          token: tenant.token,
          body: { alerts: [alert('1', 'High', 1)] },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await api('POST', `/api/v1/scan/${randomUUID()}/alerts`, {
          token: tenant.token,
          body: { alerts: [alert('1', 'High', 1)] },
        })
      ).status,
    ).toBe(404);
    expect(await auditTypes(tenant)).toEqual([
      'APPLICATION_ADDED',
      'ENVIRONMENT_ADDED',
      'SCAN_STARTED',
      'SCAN_ERRORED',
    ]);
  });

  it('enforces read:scan / write:scan / delete:scan, team rules and organization isolation', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const { scanId, configHash } = await startScan(tenant.token, appId);
    await reportAlerts(tenant.token, scanId, [alert('1', 'High', 1)]);

    const reader = await addUserTo(tenant.orgId, ['read:scan', 'read:application']);
    expect((await api('GET', `/api/v1/scan/${scanId}/alerts`, { token: reader.token })).status).toBe(200);
    expect(
      (
        await api('POST', `/api/v1/app/${appId}/scan`, {
          token: reader.token,
          body: { env: 'dev', config: SCAN_CONFIG },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await api('POST', `/api/v1/scan/${scanId}/alerts`, {
          token: reader.token,
          body: { alerts: [alert('1', 'High', 1)] },
        })
      ).status,
    ).toBe(401);
    expect(
      (await api('POST', `/api/v1/scan/${scanId}/complete`, { token: reader.token, body: { status: 'COMPLETED' } }))
        .status,
    ).toBe(401);
    expect((await api('DELETE', `/api/v1/scan/${scanId}`, { token: reader.token })).status).toBe(401);
    expect((await api('GET', `/api/v1/app/${appId}/config/${configHash}`, { token: reader.token })).status).toBe(401);
    const writer = await addUserTo(tenant.orgId, ['write:scan']);
    expect((await api('GET', `/api/v1/scan/${scanId}/alerts`, { token: writer.token })).status).toBe(401);
    expect((await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: writer.token })).status).toBe(401);

    // Another organization: 404 for the scan, 401 for the list.
    const stranger = await createTenant();
    expect((await api('GET', `/api/v1/scan/${scanId}/alerts`, { token: stranger.token })).status).toBe(404);
    expect((await api('DELETE', `/api/v1/scan/${scanId}`, { token: stranger.token })).status).toBe(404);
    expect(
      (await api('POST', `/api/v1/scan/${scanId}/complete`, { token: stranger.token, body: { status: 'COMPLETED' } }))
        .status,
    ).toBe(404);
    expect((await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: stranger.token })).status).toBe(401);

    // A team-owned application's scans: its team's members only.
    const teamId = randomUUID();
    const member = await addUserTo(tenant.orgId);
    await joinTeams(tenant.orgId, member.userId, [teamId]);
    const teamApp = await createApp({ orgId: tenant.orgId, token: member.token }, { name: 'team app', env: 'dev' });
    const teamScan = await startScan(member.token, teamApp);
    expect((await api('GET', `/api/v1/scan/${teamScan.scanId}/alerts`, { token: member.token })).status).toBe(200);
    const outsider = await addUserTo(tenant.orgId);
    await joinTeams(tenant.orgId, outsider.userId, [randomUUID()]);
    expect((await api('GET', `/api/v1/scan/${teamScan.scanId}/alerts`, { token: outsider.token })).status).toBe(401);
    expect(
      (
        await api('POST', `/api/v1/scan/${teamScan.scanId}/complete`, {
          token: outsider.token,
          body: { status: 'COMPLETED' },
        })
      ).status,
    ).toBe(401);
    const outsiderList = await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: outsider.token });
    expect(outsiderList.body.applicationScanResults.map((r: { scan: { id: string } }) => r.scan.id)).toEqual([scanId]);
    const memberList = await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: member.token });
    expect(memberList.body.applicationScanResults.map((r: { scan: { id: string } }) => r.scan.id).sort()).toEqual(
      [scanId, teamScan.scanId].sort(),
    );
  });

  it('completion is atomic: when its transaction fails, the finding records written before it are put back and nothing else changed', async () => {
    const { tenant, appId, first, envRef, records } = await environmentWithFindings();
    const recorded = await records();
    expect(recorded.length).toBeGreaterThan(0);
    expect(recorded.every((f) => f.lastScanId === first.scanId)).toBe(true);

    const second = await startScan(tenant.token, appId);
    await reportAlerts(tenant.token, second.scanId, [alert('10038', 'High', 2), alert('10020', 'Low', 1)]);
    const envBefore = await getEnvironment(appId, first.envId);
    // The failing commit: the triage counter holds a string, so the completion's check of the version it read (a
    // number) fails on every attempt, after each attempt has recorded the scan's findings.
    const counter = keys.triageVersion(appId, first.envId);
    await db.send(
      new PutCommand({ TableName: config.tableName, Item: { ...counter, entity: 'triageVersion', version: '0' } }),
    );
    const failed = await api('POST', `/api/v1/scan/${second.scanId}/complete`, {
      token: tenant.token,
      body: { status: 'COMPLETED', urlCount: 3 },
    });
    expect(failed.status).toBe(409);
    expect(await records()).toEqual(recorded);
    expect(await getEnvironment(appId, first.envId)).toEqual(envBefore);
    expect(await scanStatusNow({ ...envRef, scanId: second.scanId })).toBe('STARTED');
    expect((await auditTypes(tenant)).filter((t) => t === 'SCAN_COMPLETED')).toHaveLength(1);

    // The same completion without the failure commits, with the findings of both alerts.
    await db.send(new DeleteCommand({ TableName: config.tableName, Key: counter }));
    await completeScan(tenant.token, second.scanId);
    const after = await records();
    expect(after).toHaveLength(recorded.length + 1);
    expect(after.every((f) => f.lastScanId === second.scanId)).toBe(true);
  });

  // Two completions of one scan, A failing and B committing, in the order that used to let A's restore revert B's
  // records: A records its findings, fails and starts its restore; then B reads the scan, records and commits; then
  // A puts records back. (A's steps are the ones reportScanCompleted takes, run here so that B fits between them.)
  it("a failed completion's restore keeps the records of a completion of the same scan that committed meanwhile", async () => {
    const { tenant, appId, envRef, records } = await environmentWithFindings();
    const recordedByFirst = await records();

    const second = await startScan(tenant.token, appId);
    await reportAlerts(tenant.token, second.scanId, [alert('10038', 'High', 2), alert('10020', 'Low', 1)]);
    const scanRef = { ...envRef, scanId: second.scanId };
    const scan = (await getScan(scanRef))!;
    const found = await findingsOfScan(scan, await alertsOfScan(scan));
    const beforeA = await findingsBefore(
      scan,
      found.findings.map((f) => f.findingHash),
    );
    await recordFindings(scan, found.findings, beforeA);
    expect(await scanFindingsRestoreStart(scanRef)).toBe(true); // A failed: the scan is still STARTED

    await completeScan(tenant.token, second.scanId); // B
    const recordedByB = await records();
    expect(recordedByB).toHaveLength(recordedByFirst.length + 1);
    expect(
      recordedByB.every((f) => f.lastScanId === second.scanId && f.recordedBy && f.recordedBy !== beforeA.attempt),
    ).toBe(true);

    await restoreFindings(scan, beforeA);
    expect(await records()).toEqual(recordedByB);
    expect(await scanStatusNow(scanRef)).toBe('COMPLETED');
    // Once the scan has completed, a failed completion does not start a restore at all.
    expect(await scanFindingsRestoreStart(scanRef)).toBe(false);
  });

  it('a completion that read the scan before another completion started its restore does not commit (it reads again)', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const started = await startScan(tenant.token, appId);
    await reportAlerts(tenant.token, started.scanId, [alert('10038', 'High', 2)]);
    const scanRef = { applicationId: appId, environmentId: started.envId, scanId: started.scanId };
    const readByB = (await getScan(scanRef))!;
    expect(await scanFindingsRestoreStart(scanRef)).toBe(true); // A's restore starts after B's read
    const end = {
      status: 'COMPLETED' as const,
      completedAt: Date.now(),
      durationSeconds: 1,
      urlCount: 1,
      stats: statsOf(await alertsOfScan(readByB)),
    };
    expect(end.stats.totalAlerts).toBe(readByB.reportedUris); // only the restore stands in its way
    // The scan's own write alone (its scanCompleted event follows it in scanEnd's items).
    const [ownWrite] = scanEnd(readByB, end, { name: 'app' });
    const commit = await transactWrite([ownWrite!]).catch((error: unknown) => error);
    expect(cancelledItems(commit)?.map((item) => item.code)).toEqual(['ConditionalCheckFailed']);
    expect(await scanStatusNow(scanRef)).toBe('STARTED');
    // The API's completion reads the scan itself, after the restore started: it commits.
    expect((await getScan(scanRef))!.findingsRestores).toBe(1);
    await completeScan(tenant.token, started.scanId);
    expect(await scanStatusNow(scanRef)).toBe('COMPLETED');
  });
});
