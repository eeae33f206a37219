import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTenant, addUserTo } from '../integration/fixtures.ts';
import { permissionsOfRole } from '../../shared/context/roles.ts';
import { cloudAppAt, runLog, start, waitForEnd, withAgent } from './hosted-helpers.ts';

// A SCANNER member's scan configuration read the agent's whole environment, which for the embedded
// agent of `npm start` (an agent in the service's own process, as here) is the server's: its login fields sent the
// service's S3 secret, its signing key's path and HOME to the target. An agent passes only HAWK_SCAN_* variables and
// those its operator names, never the service's own credentials (docs/SCANNER-AUTH.md, "Variables").

/** Everything the target receives: request line, headers and body. */
const received: string[] = [];
let server: Server;
let targetUrl: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push(`${req.method} ${req.url}\n${JSON.stringify(req.headers)}\n${body}`);
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'sid=1' }).end('<html>Signed in as x</html>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const config = (host: string) => `app:
  env: production
  host: ${host}
  authentication:
    usernamePassword:
      type: FORM
      loginPath: /login
      usernameField: username
      passwordField: password
      scanUsername: \${HOME}
      scanPassword: \${LOCAL_S3_SECRET_ACCESS_KEY}
      otherParams:
        - name: key
          val: \${SIGNING_KEY_FILE}
    cookieAuthorization:
      cookieNames: [sid]
`;

describe("a hosted scan's configuration and the agent's environment", { timeout: 120_000 }, () => {
  it("never sends the service's secrets or other variables to the target, even when the operator names them; the run says why", async () => {
    const secrets = [process.env.LOCAL_S3_SECRET_ACCESS_KEY, process.env.SIGNING_KEY_FILE, process.env.HOME];
    expect(secrets.every((value) => typeof value === 'string' && value.length > 3)).toBe(true);
    const owner = await createTenant();
    const scanner = { orgId: owner.orgId, ...(await addUserTo(owner.orgId, permissionsOfRole('SCANNER'))) };
    const appId = await cloudAppAt(owner, 'environment', targetUrl);
    // The operator names the service's credentials by mistake: they are still refused.
    process.env.HAWK_SCAN_ALLOWED_VARS = 'LOCAL_S3_SECRET_ACCESS_KEY,SIGNING_KEY_FILE';
    try {
      await withAgent(owner, async () => {
        const started = await start(scanner, appId, config(targetUrl));
        expect(started.status, started.text).toBe(200);
        const done = await waitForEnd(scanner, appId);
        expect(done.status).toBe('HOSTED_SCANNER_ERRORED');
        const message = done.command.errors[0].message as string;
        expect(done.command.errors[0].errorType).toBe('AUTHENTICATION');
        expect(message).toContain(
          'app.authentication.usernamePassword.scanUsername: HOME is not passed to scan configurations: ' +
            'the agent passes only HAWK_SCAN_* variables and those its operator names (HAWK_SCAN_ALLOWED_VARS=NAME1,NAME2',
        );
        expect(message).toContain(
          "scanPassword: LOCAL_S3_SECRET_ACCESS_KEY is one of the service's own credentials and is never passed to scan configurations",
        );
        expect(message).toContain(
          "otherParams[0].val: SIGNING_KEY_FILE is one of the service's own credentials and is never passed",
        );
        const log = (await runLog(scanner, appId)).log as string;
        for (const value of secrets) {
          expect(message).not.toContain(value);
          expect(log).not.toContain(value);
        }
      });
    } finally {
      delete process.env.HAWK_SCAN_ALLOWED_VARS;
    }
    // Only the agent's reachability probe reached the target: no login request, none of the values.
    expect(
      received.every((request) => request.startsWith('GET /\n')),
      received.join('\n---\n'),
    ).toBe(true);
    for (const value of secrets) expect(received.join('\n')).not.toContain(value);
  });
});
