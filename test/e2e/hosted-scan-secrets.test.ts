import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../integration/client.ts';
import { createTenant, addUserTo } from '../integration/fixtures.ts';
import { permissionsOfRole } from '../../shared/context/roles.ts';
import { cloudAppAt, runLog, start, waitForEnd, withAgent, passwordLoginTarget } from './hosted-helpers.ts';

// An authenticated hosted scan whose password exists only as a scan secret of the application (docs/HOSTED-SCANS.md,
// "Scan secrets"): the agent that takes the run receives it, logs in with it, and it stays out of the run's log, the
// agent's output and every read of the configuration. Before the store, `${TARGET_PASSWORD}` could only be read from
// the agent's environment, where a name without HAWK_SCAN_ is refused.

const PASSWORD = `secret-${crypto.randomUUID()}`;
let target: Awaited<ReturnType<typeof passwordLoginTarget>>;
beforeAll(async () => {
  process.env.HAWK_WAPITI_ATTACK_SECONDS = '5';
  target = await passwordLoginTarget(PASSWORD);
});
afterAll(() => target.close());

const config = (host: string) => `app:
  env: production
  host: ${host}
  authentication:
    usernamePassword:
      type: FORM
      loginPath: /login
      usernameField: username
      passwordField: password
      scanUsername: alice
      scanPassword: \${TARGET_PASSWORD}
    cookieAuthorization:
      cookieNames: [sid]
    testPath:
      path: /account
      type: BODY
      success: "Signed in as"
`;

describe('a hosted scan with its password in the scan secrets', { timeout: 300_000 }, () => {
  it('logs in with the application secret, and the value stays out of the logs and every read', async () => {
    expect(process.env.TARGET_PASSWORD).toBeUndefined();
    const owner = await createTenant();
    const reader = { orgId: owner.orgId, ...(await addUserTo(owner.orgId, permissionsOfRole('READ_ONLY'))) };
    const appId = await cloudAppAt(owner, 'secret-password', target.url);
    // The organization's value is shadowed by the application's.
    for (const [path, value] of [
      [`/api/v1/org/${owner.orgId}/secrets/TARGET_PASSWORD`, 'the-organization-value'],
      [`/api/v1/app/${appId}/secrets/TARGET_PASSWORD`, PASSWORD],
    ]) {
      const set = await api('PUT', path, { token: owner.token, body: { value } });
      expect(set.status, set.text).toBe(204);
    }
    const echoed: string[] = [];
    await withAgent(
      owner,
      async () => {
        const started = await start(owner, appId, config(target.url));
        expect(started.status, started.text).toBe(200);
        const done = await waitForEnd(owner, appId);
        expect(done.status, JSON.stringify(done)).toBe('HOSTED_SCANNER_DISCONNECTED');
      },
      { echo: (line) => echoed.push(line) },
    );
    expect(target.logins).toContain(`username=alice&password=${PASSWORD}`);
    expect(target.logins.join('\n')).not.toContain('the-organization-value');

    const log = (await runLog(owner, appId)).log as string;
    expect(log).toContain('login ok');
    expect(log).not.toContain(PASSWORD);
    expect(echoed.join('\n')).not.toContain(PASSWORD);

    const envs = await api('GET', `/api/v1/app/${appId}/env/list`, { token: owner.token });
    const configHash = envs.body.environments[0].currentScanSummary.configHash as string;
    for (const who of [reader, owner]) {
      const read = await api('GET', `/api/v1/app/${appId}/config/${configHash}`, { token: who.token });
      expect(read.status, read.text).toBe(200);
      expect(read.text).not.toContain(PASSWORD);
      expect(read.body.conf.app.authentication.usernamePassword.scanPassword).toBe('${TARGET_PASSWORD}');
    }
  });
});
