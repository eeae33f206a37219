import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { expect } from 'vitest';
import { startAgent, type AgentOptions } from '@hawk-api/scanner/agent';
import { api, baseUrl } from '../integration/client.ts';
import type { Tenant } from '../integration/fixtures.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';

// What the hosted-scan tests share: a CLOUD application of a target on loopback, an agent of the package's,
// starting a scan, waiting for its end, reading its findings and log.

/** The scan list shows CLOUD applications' scans only when asked (its applicationTypes default is STANDARD). */
export const CLOUD = { applicationTypes: 'CLOUD' };

export const loginConfig = (host: string, indicators = '    loggedInIndicator: "Signed in as"\n') => `app:
  env: production
  host: ${host}
  authentication:
${indicators}    usernamePassword:
      type: FORM
      loginPath: /login
      loginPagePath: /login
      usernameField: username
      passwordField: password
      scanUsername: alice
      scanPassword: \${HAWK_SCAN_TEST_TARGET_PASSWORD}
    cookieAuthorization:
      cookieNames: [sid]
    testPath:
      path: /account
      type: BODY
      success: "Signed in as"
  antiCsrfParam: csrf
`;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function cloudAppAt(tenant: Tenant, name: string, targetUrl: string) {
  await allowScanDomain(tenant.orgId, '127.0.0.1');
  const created = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
    token: tenant.token,
    body: { name, env: 'production', applicationType: 'CLOUD', cloudScanTargetURL: targetUrl },
  });
  expect(created.status, created.text).toBe(200);
  return created.body.applicationId as string;
}

export async function withAgent<T>(
  tenant: Tenant,
  work: (deviceId: string) => Promise<T>,
  options: Partial<AgentOptions> = {},
) {
  const abort = new AbortController();
  const agent = await startAgent({
    url: baseUrl(),
    apiKey: tenant.apiKey,
    orgId: tenant.orgId,
    name: 'test agent',
    signal: abort.signal,
    ...options,
  });
  try {
    return await work(agent.deviceId);
  } finally {
    abort.abort();
    await agent.done;
  }
}

export const start = (tenant: Tenant, appId: string, config?: string) =>
  api('POST', `/api/v1/app/${appId}/perch/start`, {
    token: tenant.token,
    body: { command: { command: 'START', ...(config ? { config } : {}) }, env: 'production' },
  });

export const runLog = async (tenant: Tenant, appId: string) =>
  (await api('GET', `/api/v1/app/${appId}/perch/log`, { token: tenant.token })).body;

export async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, seconds = 240) {
  let value = await read();
  for (const until = Date.now() + seconds * 1000; !done(value); value = await read()) {
    if (Date.now() > until) throw new Error(`${what}: still ${JSON.stringify(value).slice(0, 2000)}`);
    await sleep(500);
  }
  return value;
}

export const waitForEnd = (tenant: Tenant, appId: string) =>
  waitFor(
    'the scan did not end',
    async () => (await api('GET', `/api/v1/app/${appId}/perch/status`, { token: tenant.token })).body.device,
    (device) => device.status !== 'RUNNING',
  );

/** The scan's findings: by plugin id, each finding's URI and hash. */
export async function findings(tenant: Tenant, scanId: string) {
  const alerts = await api('GET', `/api/v1/scan/${scanId}/alerts`, { token: tenant.token, query: { pageSize: 100 } });
  expect(alerts.status, alerts.text).toBe(200);
  const out: Record<string, { uri: string; findingHash: string; status: string }[]> = {};
  for (const alert of alerts.body.applicationScanResults[0].applicationAlerts ?? []) {
    const uris = await api('GET', `/api/v1/scan/${scanId}/alert/${alert.pluginId}`, {
      token: tenant.token,
      query: { pageSize: 100 },
    });
    out[alert.pluginId] = uris.body.applicationScanAlertUris;
  }
  return out;
}
/** A finding's path: Wapiti's findings are URLs on the target's origin (read as an imported report is). */
export const pathOf = (uri: string) => new URL(uri, 'http://target').pathname;
export const urisOf = (found: Awaited<ReturnType<typeof findings>>, pluginId: string) =>
  (found[pluginId] ?? []).map((finding) => pathOf(finding.uri));

export async function listedScan(tenant: Tenant, scanId: string) {
  const scans = await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token, query: CLOUD });
  return scans.body.applicationScanResults.find((result: { scan: { id: string } }) => result.scan.id === scanId)?.scan;
}

/**
 * A target with a form login (POST /login, `password` must be `password`; a `sid` cookie then) that records the login
 * bodies it receives and greets a signed-in visitor as alice, on a loopback port.
 */
export async function passwordLoginTarget(password: string) {
  const logins: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/login') {
        logins.push(body);
        const ok = new URLSearchParams(body).get('password') === password;
        res.writeHead(ok ? 302 : 401, ok ? { location: '/account', 'set-cookie': 'sid=1; Path=/' } : {}).end();
        return;
      }
      const signedIn = /\bsid=1\b/.test(req.headers.cookie ?? '');
      res.writeHead(200, { 'content-type': 'text/html' }).end(signedIn ? '<p>Signed in as alice</p>' : '<p>Hello</p>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    logins,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
