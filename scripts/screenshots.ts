// `npm run screenshots`: redraws docs/screenshots/*.png, the dashboard's main pages with a small example
// organization, on a throwaway local stack (DynamoDB Local in memory, s3rver, the local server, free ports).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from './local/stack.ts';
import { freePorts } from './local/ports.ts';
import { ensureWebBuild } from './local/web.ts';
import { launchBrowser } from './local/chromium.ts';
import { benchTenant } from './bench/harness.ts';

const OUT = 'docs/screenshots';
/** The example shop's product pages, one per finding of an alert (at most 8). */
const PRODUCTS = ['lamp', 'chair', 'desk', 'shelf', 'rug', 'sofa', 'table', 'clock'];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hawk-screenshots-'));
  const [dynamodbPort, httpPort] = await freePorts(2);
  Object.assign(process.env, { LOG_LEVEL: 'SILENT' });
  const stack = await startLocalStack({ dir, persistent: false, port: httpPort, dynamodbPort });
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  const browser = await launchBrowser();
  try {
    await ensureWebBuild({ log: console.error });
    const { orgId, userId, token } = await benchTenant({ baseUrl, progress: console.error }, 'screenshots');
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return response.json() as Promise<any>;
    };
    const shop = await call('POST', `/api/v1/org/${orgId}/app`, { name: 'shop', env: 'production' });
    for (const name of ['billing-api', 'customer-portal', 'inventory'])
      await call('POST', `/api/v1/org/${orgId}/app`, { name, env: 'staging' });
    await call('POST', `/api/v1/app/${shop.applicationId}/env`, { env: 'staging' });
    let scanId = '';
    for (const [high, medium, low] of [
      [3, 5, 8],
      [2, 4, 8],
      [1, 4, 6],
      [1, 2, 5],
    ]) {
      ({ scanId } = await call('POST', `/api/v1/app/${shop.applicationId}/scan`, {
        env: 'production',
        config: 'app:\n  env: production\n',
        hawkscanVersion: '4.2.0',
        host: 'https://shop.example',
      }));
      // Each rule its own weakness, each product page its own place (a numeric segment would be templated): one
      // issue per finding (docs/ISSUES.md), so one triage below does not carry to the rest.
      const alert = (pluginId: string, name: string, severity: string, count: number, cweId: string) => ({
        pluginId,
        name,
        severity,
        cweId,
        description: `${name}: see the references.`,
        references: ['https://owasp.org/www-project-top-ten/'],
        uris: Array.from({ length: count }, (_, i) => ({
          uri: `/products/${PRODUCTS[i]}?q=test`,
          requestMethod: 'GET',
          param: 'q',
          evidence: '<script>alert(1)</script>',
          requestHeader: `GET https://shop.example/products/${PRODUCTS[i]}?q=test HTTP/1.1\r\nHost: shop.example\r\nAccept: text/html\r\n`,
          responseHeader: 'HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n',
          responseBody: '<html><body><p>Results for <script>alert(1)</script></p></body></html>',
        })),
      });
      await call('POST', `/api/v1/scan/${scanId}/alerts`, {
        alerts: [
          alert('40012', 'Cross Site Scripting (Reflected)', 'High', high, '79'),
          alert('10038', 'Content Security Policy Header Not Set', 'Medium', medium, '693'),
          alert('10021', 'X-Content-Type-Options Header Missing', 'Low', low, '16'),
        ],
      });
      await call('POST', `/api/v1/scan/${scanId}/complete`, { status: 'COMPLETED', urlCount: 40 });
    }
    const team = await call('POST', `/api/v1/org/${orgId}/team`, { name: 'Payments' });
    await call('PUT', `/api/v1/org/${orgId}/team/${team.team.id}`, {
      name: 'Payments',
      userIds: [userId],
      applicationIds: [shop.applicationId],
    });
    const envs = await call('GET', `/api/v2/org/${orgId}/envs?appIds=${shop.applicationId}&query=production`);
    const envId = envs.environments[0].environmentId;
    const findings = await call('GET', `/api/v1/scan/${scanId}/alert/40012`);
    const uri = findings.applicationScanAlertUris[0];
    // Some triage, so the lists, counts and report show statuses: one false positive, one risk accepted with a note.
    const csp = await call('GET', `/api/v1/scan/${scanId}/alert/10038`);
    await call('POST', `/api/v1/org/${orgId}/app/${shop.applicationId}/env/${envId}/findings/triage`, {
      actions: [
        {
          findingHash: csp.applicationScanAlertUris[0].findingHash,
          status: 'FALSE_POSITIVE',
          note: 'CSP is set by the CDN',
        },
        {
          findingHash: uri.findingHash,
          status: 'RISK_ACCEPTED',
          note: 'internal search page, fixed in the next release',
        },
      ],
    });
    // A colleague to find on the team page.
    const admin = await import('../shared/identity/admin.ts'); // after the stack set the table names
    const addUserTo = async (fullName: string, email: string) => {
      const { userId: id } = await admin.createUser({ email, fullName });
      await admin.addMember({ organizationId: orgId, userId: id });
    };
    await addUserTo('Ada Lovelace', 'ada@example.test');
    await addUserTo('Grace Hopper', 'grace@example.test');

    mkdirSync(OUT, { recursive: true });
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.goto(`${baseUrl}/`);
    await page.evaluate((t) => sessionStorage.setItem('hawk.token', t), token);
    const shoot = async (name: string, path: string, ready: string) => {
      await page.goto(`${baseUrl}/org/${orgId}${path}`);
      await page
        .locator(ready)
        .first()
        .waitFor()
        .catch(async (error) => {
          throw new Error(`${path}: ${ready} never showed; the page says: ${await page.locator('body').innerText()}`, {
            cause: error,
          });
        });
      await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
      console.error(`wrote ${OUT}/${name}.png`);
    };
    await shoot('applications', '/apps', 'tbody tr');
    await shoot('overview', '/overview', 'svg.recharts-surface');
    await shoot('inbox', '/inbox', 'tbody tr');
    await shoot('environment', `/app/${shop.applicationId}/env/${envId}`, 'figure.chart svg');
    await shoot('scan', `/scan/${scanId}`, 'main .rows');
    await shoot('finding', `/scan/${scanId}/finding/${uri.alertUriId}/${uri.msgId}?plugin=40012&page=0`, '.history');
    // The alert with two findings ticked for bulk triage.
    const triage = async (name: string) => {
      await page.goto(`${baseUrl}/org/${orgId}/scan/${scanId}/alert/10021`);
      const boxes = page.locator('tbody input[type=checkbox]');
      await boxes.nth(1).check();
      await boxes.nth(2).check();
      await page.getByLabel('Note (optional)').fill('headers are added by the proxy in production');
      await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
      console.error(`wrote ${OUT}/${name}.png`);
    };
    await triage('triage');
    await shoot('report', '/report', 'tbody tr');
    await page.goto(`${baseUrl}/org/${orgId}/team/${team.team.id}`);
    await page.getByLabel('Find a member to add').fill('a');
    await page.getByRole('list', { name: 'Members you can add' }).waitFor();
    await page.screenshot({ path: join(OUT, 'team.png'), fullPage: true });
    console.error(`wrote ${OUT}/team.png`);
    await shoot('teams', '/teams', 'tbody tr');
    await shoot('audit', '/audit', 'tbody tr');
    await page.setViewportSize({ width: 390, height: 844 });
    await shoot('phone-scan', `/scan/${scanId}`, 'main .rows');
    await triage('phone-triage');
    await shoot('phone-report', '/report', 'tbody tr');
  } finally {
    await browser.close();
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`screenshots failed: ${error instanceof Error ? error.stack : error}`);
    process.exit(1);
  },
);
