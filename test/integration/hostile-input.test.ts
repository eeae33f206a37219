import { describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { api, baseUrl } from './client.ts';
import { addUserTo, createTenant } from './fixtures.ts';
import { SCAN_CONFIG, alert, completeScan, createApp, reportAlerts, startScan } from './scan-helpers.ts';
import { newTeam } from './team-helpers.ts';
import { json30 } from './hosted-assets-helpers.ts';
import { joinTeams } from './app-helpers.ts';
import {
  FINDINGS_REPORT_LIMITS,
  MAX_JSON_BODY_BYTES,
  MAX_PATTERN_LENGTH,
  SCAN_CONFIG_LIMITS,
} from '../../shared/limits.ts';
import { routes } from '../../shared/routes.ts';
import { getScan, getScanLocation, putFindings, reserveAlertUris } from '../../shared/results/scan-repository.ts';
import { listMembers, listOrganizations, removeMember } from '../../shared/identity/admin.ts';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/db/client.ts';
import { keys, rateLimitKeys } from '../../shared/db/keys.ts';
import { config } from '../../shared/config.ts';
import { hashApiKey } from '../../shared/auth/api-keys.ts';

// Defects found by hostile input (docs/COMPATIBILITY.md, Limits), each reproduced: requests that stalled the service,
// answered 5xx or half-wrote. `api()` fails any test on a 5xx.

describe('denial of service: one request costs bounded time', () => {
  it('matches team search patterns without backtracking, and caps their length', async () => {
    const tenant = await createTenant();
    const reader = await addUserTo(tenant.orgId, ['read:team']);
    await newTeam(tenant.orgId, tenant.token, { name: 'Platform Engineering Team' });
    const search = async (pattern: string) =>
      api('GET', `/api/v1/org/${tenant.orgId}/teams`, { token: reader.token, query: { search: pattern } });
    expect((await search(`${'*'.repeat(40)}Q`)).body.totalCount).toBe('0'); // a regex took 16 s at 12 stars, x3 per star
    expect((await search('plat*eng*TEAM')).body.teams.map((t: { name: string }) => t.name)).toEqual([
      'Platform Engineering Team',
    ]);
    const long = await search('*'.repeat(MAX_PATTERN_LENGTH + 1));
    expect([long.status, long.body.message]).toEqual([400, `search: must be at most ${MAX_PATTERN_LENGTH} characters`]);
  });

  it('matches scan tag filters without backtracking, and caps their length', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const { scanId } = await startScan(tenant.token, appId, {
      tags: [{ name: 'branch', value: 'feature/very-long-branch-name-with-words' }],
    });
    const list = (tag: string) => api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token, query: { tag } });
    expect((await list(`branch:${'*'.repeat(40)}Q`)).body.totalCount).toBe('0'); // 12 s at 11 stars before
    expect(
      (await list('branch:feature/*words')).body.applicationScanResults.map((r: { scan: { id: string } }) => r.scan.id),
    ).toEqual([scanId]);
    expect((await list(`branch:${'x'.repeat(MAX_PATTERN_LENGTH)}`)).status).toBe(400);
  });

  it('authorizes a scan start before parsing its configuration', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const nobody = await addUserTo(tenant.orgId, []);
    const huge = Array.from({ length: 90_000 }, (_, i) => `k${i}: v`).join('\n'); // blocked the server 80 s before
    const body = { env: 'dev', config: huge };
    const unknownApp = await api('POST', `/api/v1/app/${crypto.randomUUID()}/scan`, { token: nobody.token, body });
    expect([unknownApp.status, unknownApp.body.message]).toEqual([404, expect.stringMatching(/not found/)]);
    expect((await api('POST', `/api/v1/app/${appId}/scan`, { token: nobody.token, body })).status).toBe(401);
    const refused = await api('POST', `/api/v1/app/${appId}/scan`, { token: tenant.token, body });
    expect([refused.status, refused.body.message]).toEqual([
      413,
      `config: more than ${SCAN_CONFIG_LIMITS.maxNodes} values (nodes)`,
    ]);
  });

  it("parses no large body before the caller's access to its target is checked (a body that would be a 400 answers 404/401)", async () => {
    // Every body allowed above the default JSON limit is parsed by its handler after the access check (route table).
    const large = routes.filter((route) => (route.maxBodyBytes ?? 0) > MAX_JSON_BODY_BYTES);
    expect(large.map((route) => route.operationId).sort()).toEqual([
      'endScanRun',
      'reportScanAlerts',
      'reportScanRunStarted',
      'reportScanStarted',
      'uploadProfileScanResult',
    ]);
    for (const route of large) expect(route.bodyAfterAccess, route.operationId).toBe(true);

    const tenant = await createTenant();
    const other = await createTenant();
    const appId = await createApp(tenant);
    const { scanId } = await startScan(tenant.token, appId);
    const nobody = await addUserTo(tenant.orgId, []);
    // 3.5 MiB that is not JSON at all: parsing it is the only way to a 400.
    const hostile = `{"alerts":[${'['.repeat(3.5 * 1024 * 1024)}`;
    const post = (path: string, token: string) =>
      api('POST', path, { token, rawBody: hostile, contentType: 'application/json' });
    const parsed = { status: 400, message: 'request body is not valid JSON' };

    const foreignScan = await post(`/api/v1/scan/${scanId}/alerts`, other.token);
    expect([foreignScan.status, foreignScan.body.message]).toEqual([404, `scan ${scanId} not found`]);
    expect((await post(`/api/v1/scan/${crypto.randomUUID()}/alerts`, tenant.token)).status).toBe(404);
    expect((await post(`/api/v1/scan/${scanId}/alerts`, nobody.token)).status).toBe(401);
    const ownScan = await post(`/api/v1/scan/${scanId}/alerts`, tenant.token);
    expect({ status: ownScan.status, message: ownScan.body.message }).toEqual(parsed);

    const foreignApp = await post(`/api/v1/app/${appId}/scan`, other.token);
    expect([foreignApp.status, foreignApp.body.message]).toEqual([404, expect.stringMatching(/not found/)]);
    expect((await post(`/api/v1/app/${appId}/scan`, nobody.token)).status).toBe(401);
    const ownApp = await post(`/api/v1/app/${appId}/scan`, tenant.token);
    expect({ status: ownApp.status, message: ownApp.body.message }).toEqual(parsed);

    // An agent's profile result: no run of that key for the device, so no parse.
    const profileResult = (token: string) =>
      api('PUT', `/api/v1/app/${appId}/perch/runs/${crypto.randomUUID()}/profile`, {
        token,
        rawBody: hostile,
        contentType: 'application/json',
        query: { deviceId: crypto.randomUUID() },
      });
    expect((await profileResult(other.token)).status).toBe(404);
    expect((await profileResult(tenant.token)).status).toBe(404);
    // An agent's announcement of its run's scan: likewise.
    const runScan = (token: string) =>
      post(`/api/v1/app/${appId}/perch/runs/${crypto.randomUUID()}/scan?deviceId=${crypto.randomUUID()}`, token);
    expect((await runScan(other.token)).status).toBe(404);
    expect((await runScan(tenant.token)).status).toBe(404);

    // Bodies of operations addressed by {orgId} are parsed after the organization authorization.
    const teamBody = { rawBody: '{"name": ', contentType: 'application/json' };
    expect((await api('POST', `/api/v1/org/${tenant.orgId}/team`, { token: other.token, ...teamBody })).status).toBe(
      401,
    );
    expect((await api('POST', `/api/v1/org/${tenant.orgId}/team`, { token: nobody.token, ...teamBody })).status).toBe(
      401,
    );
    expect(
      (await api('POST', `/api/v1/org/${tenant.orgId}/team`, { token: tenant.token, ...teamBody })).body.message,
    ).toBe(parsed.message);

    const listed = await api('GET', `/api/v1/scan/${scanId}/alerts`, { token: tenant.token });
    expect(listed.body.applicationScanResults[0].alertStats.totalAlerts).toBe(0);
  });

  it('refuses deep, aliased and duplicate-keyed scan configurations with a 400 naming the limit', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const start = (config: string) =>
      api('POST', `/api/v1/app/${appId}/scan`, { token: tenant.token, body: { env: 'dev', config } });
    const deep = await start(`${'['.repeat(900_000)}`); // ~940 MB of RSS before its 400
    expect([deep.status, deep.body.message]).toEqual([
      400,
      `config: nested deeper than ${SCAN_CONFIG_LIMITS.maxDepth} levels`,
    ]);
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const [i, name] of ['b', 'c', 'd', 'e', 'f', 'g'].entries())
      levels.push(`${name}: &${name} [${Array(10).fill(`*${'abcdef'[i]}`).join(', ')}]`);
    const laughs = await start(levels.join('\n')); // 500 "Excessive alias count" before
    expect([laughs.status, laughs.body.message]).toEqual([
      400,
      expect.stringMatching(/^config: aliases expand too much/),
    ]);
    const duplicate = await start(`${SCAN_CONFIG}app:\n  env: again\n`);
    expect([duplicate.status, duplicate.body.message]).toEqual([
      400,
      'config: duplicate key "app" (keys of a mapping must be unique)',
    ]);
  });

  it('limits one findings report (alerts, URIs, bytes) and answers 400/413 naming the limit', async () => {
    const tenant = await createTenant();
    const { scanId } = await startScan(tenant.token, await createApp(tenant));
    const tooMany = Array.from({ length: FINDINGS_REPORT_LIMITS.maxAlerts + 1 }, (_, i) => ({
      ...alert(String(i), 'Low', 1),
      references: [],
    }));
    const alerts = await api('POST', `/api/v1/scan/${scanId}/alerts`, {
      token: tenant.token,
      body: { alerts: tooMany },
    });
    expect([alerts.status, alerts.body.message]).toEqual([
      400,
      expect.stringContaining(`must have at most ${FINDINGS_REPORT_LIMITS.maxAlerts} alerts`),
    ]);
    const uris = await api('POST', `/api/v1/scan/${scanId}/alerts`, {
      token: tenant.token,
      body: {
        alerts: [
          {
            ...alert('1', 'Low', 0),
            uris: Array(FINDINGS_REPORT_LIMITS.maxUris + 1).fill({ uri: '/', requestMethod: 'GET' }),
          },
        ],
      },
    });
    expect([uris.status, uris.body.message]).toEqual([
      400,
      expect.stringContaining(`at most ${FINDINGS_REPORT_LIMITS.maxUris} URIs`),
    ]);
    const big = {
      ...alert('1', 'Low', 0),
      uris: Array(20).fill({ uri: '/', requestMethod: 'GET', responseBody: 'x'.repeat(280_000) }),
    };
    const bytes = await api('POST', `/api/v1/scan/${scanId}/alerts`, { token: tenant.token, body: { alerts: [big] } });
    expect([bytes.status, bytes.body.message]).toEqual([
      413,
      `request body exceeds ${FINDINGS_REPORT_LIMITS.maxBytes} bytes`,
    ]);
    const listed = await api('GET', `/api/v1/scan/${scanId}/alerts`, { token: tenant.token });
    expect(listed.body.applicationScanResults[0].alertStats.totalAlerts).toBe(0); // nothing of the refused requests
  });
});

describe('a findings report is counted whole or not at all', () => {
  it('shows only counted findings, also after a request died between storing and counting (kill -9)', async () => {
    const tenant = await createTenant();
    const { scanId } = await startScan(tenant.token, await createApp(tenant));
    await reportAlerts(tenant.token, scanId, [alert('10038', 'Medium', 3)]);
    // A request that stored its findings and died before its counting transaction, as kill -9 leaves it.
    const scan = (await getScan((await getScanLocation(scanId))!))!;
    const { first } = await reserveAlertUris(
      scan,
      { pluginId: '10038', name: 'x', severity: 'Medium', description: '', cweId: '', references: [] },
      4,
    );
    const orphan = (n: number) => ({
      uri: {
        n,
        alertUriId: crypto.randomUUID(),
        msgId: crypto.randomUUID(),
        pluginId: '10038',
        uri: `/orphan/${n}`,
        requestMethod: 'GET',
        param: '',
        findingHash: 'h',
      },
      message: {
        n,
        alertUriId: crypto.randomUUID(),
        msgId: crypto.randomUUID(),
        pluginId: '10038',
        uri: `/orphan/${n}`,
        requestMethod: 'GET',
        findingHash: 'h',
        param: '',
        evidence: '',
        otherInfo: '',
        requestHeader: '',
        requestBody: '',
        responseHeader: '',
        responseBody: '',
      },
    });
    const orphans = [0, 1, 2, 3].map((i) => orphan(first + i));
    await putFindings(scan, orphans);
    await reportAlerts(tenant.token, scanId, [alert('10038', 'Medium', 2, 3)]);
    const check = async () => {
      const page = await api('GET', `/api/v1/scan/${scanId}/alert/10038`, {
        token: tenant.token,
        query: { pageSize: 100 },
      });
      expect(page.body.totalCount).toBe('5');
      expect(page.body.applicationScanAlertUris.map((u: { uri: string }) => u.uri)).toEqual([
        '/path/0',
        '/path/1',
        '/path/2',
        '/path/3',
        '/path/4',
      ]);
      const second = await api('GET', `/api/v1/scan/${scanId}/alert/10038`, {
        token: tenant.token,
        query: { pageSize: 2, pageToken: 2 },
      });
      expect([
        second.body.applicationScanAlertUris.map((u: { uri: string }) => u.uri),
        second.body.nextPageToken,
      ]).toEqual([['/path/4'], '6']);
      const message = orphans[0].message;
      const hidden = await api('GET', `/api/v1/scan/${scanId}/uri/${message.alertUriId}/messages/${message.msgId}`, {
        token: tenant.token,
      });
      expect(hidden.status).toBe(404);
    };
    await check();
    await completeScan(tenant.token, scanId);
    await check();
  });
});

describe('bad input answers 400, never 5xx', () => {
  it('refuses start after end in the audit list and List Scans', async () => {
    const tenant = await createTenant();
    for (const path of [`/api/v1/org/${tenant.orgId}/audit`, `/api/v1/scan/${tenant.orgId}`]) {
      const out = await api('GET', path, { token: tenant.token, query: { start: 2000, end: 1000 } });
      expect([out.status, out.body.message]).toEqual([400, 'start: must not be after end']);
    }
  });

  it('refuses malformed $ref escapes and deep JSON in API descriptions', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const upload = (text: string) =>
      api('POST', `/api/v1/oas/${appId}/upload`, {
        token: tenant.token,
        rawBody: text,
        contentType: 'application/json',
      });
    const doc = JSON.parse(json30());
    doc.paths['/users'].get.responses['200'] = { $ref: '#/components/%ZZ' };
    const ref = await upload(JSON.stringify(doc));
    expect([ref.status, ref.body.message]).toEqual([
      400,
      'Invalid OpenAPI description: $ref "#/components/%ZZ": malformed percent-escape',
    ]);
    const deep = await upload(
      `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
    );
    expect([deep.status, deep.body.message]).toEqual([
      400,
      'Invalid OpenAPI description: nested deeper than 64 levels (line 1)',
    ]);
  });

  it('answers concurrent environment creations and scan starts with 200 or 409, never 500', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const creations = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        api('POST', `/api/v1/app/${appId}/env`, { token: tenant.token, body: { env: `env-${i}` } }),
      ),
    );
    for (const out of creations) expect([200, 409], out.text).toContain(out.status);
    const starts = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api('POST', `/api/v1/app/${appId}/scan`, {
          token: tenant.token,
          body: { env: `scan-env-${i}`, config: SCAN_CONFIG },
        }),
      ),
    );
    for (const out of starts) expect([200, 409], out.text).toContain(out.status);
    const listed = await api('GET', `/api/v1/app/${appId}/env/list`, {
      token: tenant.token,
      query: { pageSize: 1000 },
    });
    const created = creations.filter((c) => c.status === 200).length + starts.filter((s) => s.status === 200).length;
    expect(Number(listed.body.totalCount)).toBe(created + 1); // + the application's first environment "dev"
  }, 120_000);
});

describe('consistency and isolation', () => {
  it('applies the team rule to environment create and to application and environment delete', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const team = await newTeam(tenant.orgId, tenant.token, {
      name: 'owners',
      userIds: [tenant.userId],
      applicationIds: [appId],
    });
    const outsider = await addUserTo(tenant.orgId);
    const created = await api('POST', `/api/v1/app/${appId}/env`, { token: outsider.token, body: { env: 'sneaky' } });
    expect([created.status, created.text]).toEqual([401, '{"message":"Unauthorized"}']);
    const envId = (await api('GET', `/api/v1/app/${appId}/env/list`, { token: tenant.token })).body.environments[0]
      .environmentId;
    expect((await api('DELETE', `/api/v1/app/${appId}/env/${envId}`, { token: outsider.token })).status).toBe(401);
    expect((await api('DELETE', `/api/v1/app/${appId}`, { token: outsider.token })).status).toBe(401);
    await joinTeams(tenant.orgId, outsider.userId, [team.id]);
    expect(
      (await api('POST', `/api/v1/app/${appId}/env`, { token: outsider.token, body: { env: 'member' } })).status,
    ).toBe(200);
  });

  it("answers another organization's scan id as an unknown one, naming nothing of theirs", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const otherApp = await createApp(other);
    const { scanId } = await startScan(other.token, otherApp);
    for (const path of [`/api/v1/scan/${scanId}/alerts`, `/api/v1/scan/${scanId}/alert/1`]) {
      const out = await api('GET', path, { token: tenant.token });
      expect([out.status, out.body.message]).toEqual([404, `scan ${scanId} not found`]);
    }
  });

  it('reads each id of a repeated id list once', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const out = await api('GET', `/api/v2/org/${tenant.orgId}/envs`, {
      token: tenant.token,
      query: { appIds: [appId, appId, appId] },
    });
    expect(out.body.environments.length).toBe(1);
  });

  it('refuses page tokens beyond int32', async () => {
    const tenant = await createTenant();
    const out = await api('GET', `/api/v1/org/${tenant.orgId}/teams`, {
      token: tenant.token,
      query: { pageToken: 2 ** 31 },
    });
    expect([out.status, out.body.message]).toEqual([400, expect.stringMatching(/^pageToken: /)]);
  });
});

describe('the local server answers requests its HTTP parser refuses with JSON', () => {
  /** Sends raw bytes to the local server and returns the status and body of its answer. */
  const raw = (request: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(baseUrl());
      const socket = connect(Number(url.port), url.hostname, () => socket.write(request));
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk));
      socket.on('end', () =>
        resolve({ status: Number(answer.split(' ')[1]), body: answer.slice(answer.indexOf('\r\n\r\n') + 4) }),
      );
      socket.on('error', reject);
    });

  it('431 for a URL over 16 KB, 400 for an unknown method or a NUL in a header, each with a message', async () => {
    const long = await raw(`GET /api/v1/app/${'x'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect([long.status, JSON.parse(long.body).message]).toEqual([
      431,
      'Request Header Fields Too Large: the request line and headers exceed 16 KB',
    ]);
    const method = await raw('FOO /api/v1/user HTTP/1.1\r\nHost: x\r\n\r\n');
    expect([method.status, JSON.parse(method.body).message]).toEqual([400, 'Bad Request: unknown HTTP method']);
    const nul = await raw('GET /api/v1/user HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n');
    expect([nul.status, typeof JSON.parse(nul.body).message]).toEqual([400, 'string']);
  });
});

describe('sessions and members', () => {
  it('refuses refresh, as login, once the user is in no organization with API access', async () => {
    const tenant = await createTenant();
    const refresh = (token: string) => api('GET', '/api/v1/auth/refresh-token', { token });
    expect((await refresh(tenant.token)).status).toBe(200);
    await removeMember({ organizationId: tenant.orgId, userId: tenant.userId });
    expect((await refresh(tenant.token)).status).toBe(401);
    expect((await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': tenant.apiKey } })).status).toBe(401);

    const planLost = await createTenant();
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.organization(planLost.orgId),
        UpdateExpression: 'SET apiAccess = :no',
        ExpressionAttributeValues: { ':no': false },
      }),
    );
    expect((await refresh(planLost.token)).status).toBe(401);
  });

  it('admin remove-member takes the user out of the organization and its teams; list-members and list-orgs show it', async () => {
    const tenant = await createTenant();
    const other = await addUserTo(tenant.orgId, ['read:team']);
    const team = await newTeam(tenant.orgId, tenant.token, { name: 'pair', userIds: [tenant.userId, other.userId] });
    const listed = await listMembers({ organizationId: tenant.orgId });
    expect(listed.members.map((m) => [m.userId, m.teamIds]).sort()).toEqual(
      [
        [tenant.userId, [team.id]],
        [other.userId, [team.id]],
      ].sort(),
    );
    expect((await listOrganizations()).organizations.map((o) => o.organizationId)).toContain(tenant.orgId);

    await removeMember({ organizationId: tenant.orgId, userId: other.userId });
    const after = await api('GET', `/api/v1/org/${tenant.orgId}/team/${team.id}`, { token: tenant.token });
    expect(after.body.team.users.map((u: { userId: string }) => u.userId)).toEqual([tenant.userId]);
    expect((await listMembers({ organizationId: tenant.orgId })).members.map((m) => m.userId)).toEqual([tenant.userId]);
    await expect(removeMember({ organizationId: tenant.orgId, userId: other.userId })).rejects.toThrow(
      /is not a member/,
    );
  });

  it('counts logins against the API key as it is looked up (surrounding spaces, U+00A0 included)', async () => {
    const tenant = await createTenant();
    const counted = async () =>
      Number(
        (
          await db.send(
            new GetCommand({
              TableName: config.rateLimitTableName,
              Key: rateLimitKeys.loginKey(hashApiKey(tenant.apiKey)),
            }),
          )
        ).Item?.total ?? 0,
      );
    const before = await counted();
    for (const variant of [`${tenant.apiKey}\u00a0`, ` ${tenant.apiKey}`, tenant.apiKey]) {
      expect((await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': variant } })).status).toBe(200);
    }
    expect((await counted()) - before).toBe(3); // the \u00a0 variant bypassed the per-key limit before
  });
});
