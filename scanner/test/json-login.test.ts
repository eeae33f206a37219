import { afterEach, describe, expect, it } from 'vitest';
import { AuthenticationError, createSession, runTestPath, type Step } from '../src/auth/index.ts';
import { CREDENTIALS_ENV, jsonApiConfig, load } from './configs.ts';
import { PASSWORD, startJsonApi, USERNAME } from './target-apps.ts';

let api: Awaited<ReturnType<typeof startJsonApi>>;
afterEach(() => api.close());

describe('JSON login with bearer tokens', () => {
  it('logs in once for 20 concurrent requests and once more when the token expires under them', async () => {
    api = await startJsonApi({ tokenUses: 10 });
    const steps: Step[] = [];
    const session = createSession(load([jsonApiConfig(api.url)]), { onStep: (step) => steps.push(step) });

    const responses = await Promise.all(Array.from({ length: 20 }, () => session.send({ path: '/api/me' })));

    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    expect(responses.filter((response) => response.retried)).toHaveLength(10);
    expect(api.stats).toEqual({ logins: 2, requests: 30 });
    expect(steps.filter((step) => step.name === 'login')).toHaveLength(2);
  });

  it('posts credentials and otherParams as JSON to a login on another host and reads the token from a header', async () => {
    api = await startJsonApi({ tokenUses: 5 });
    const document = jsonApiConfig(api.url, `${api.authUrl}/api/login`);
    Object.assign(document.app.authentication, { tokenExtraction: { type: 'HEADER', value: 'X-Auth-Token' } });
    const steps: Step[] = [];
    const session = createSession(load([document]), { onStep: (step) => steps.push(step) });

    const verification = await runTestPath(session, { path: '/api/me', type: 'BODY', success: '"email"' });

    expect(verification).toMatchObject({ ok: true, status: 200, request: `GET ${api.url}/api/me` });
    expect(steps[0]).toMatchObject({
      request: `POST ${api.authUrl}/api/login (JSON)`,
      status: 200,
      detail: 'token read from header X-Auth-Token',
    });
    expect(api.stats.logins).toBe(1);
  });

  it('rejects wrong credentials without naming them', async () => {
    api = await startJsonApi({ tokenUses: 5 });
    const steps: Step[] = [];
    const session = createSession(
      load([jsonApiConfig(api.url)], { ...CREDENTIALS_ENV, SCAN_PASSWORD: 'not-the-password' }),
      {
        onStep: (step) => steps.push(step),
      },
    );
    const failure = (await session.send({ path: '/api/me' }).catch((err: unknown) => err)) as Error;
    expect(failure).toBeInstanceOf(AuthenticationError);
    expect(failure.message).toBe(
      `login failed: ${api.url}/api/login answered 401 Unauthorized; check scanUsername, scanPassword, usernameField and passwordField`,
    );
    expect(JSON.stringify(steps) + failure.stack).not.toMatch(/not-the-password|alice/);
  });

  it('fails when the token is not at the configured path', async () => {
    api = await startJsonApi({ tokenUses: 5 });
    const document = jsonApiConfig(api.url);
    document.app.authentication.tokenExtraction.value = 'data.token';
    const session = createSession(load([document]));
    await expect(session.login()).rejects.toThrow(
      'the login response has no token at JSON path data.token; check tokenExtraction',
    );
  });
});

describe('external token', () => {
  it('sends the given token without logging in and cannot renew it', async () => {
    api = await startJsonApi({ tokenUses: 1 });
    const login = await fetch(`${api.url}/api/login`, {
      method: 'POST',
      body: JSON.stringify({ email: USERNAME, password: PASSWORD, client: 'scanner' }),
    });
    const token = ((await login.json()) as { data: { auth: { token: string } } }).data.auth.token;
    const authentication = {
      loggedOutIndicator: 'HTTP/1\\.1 401',
      external: { type: 'TOKEN', value: '${AUTH_TOKEN}' },
      tokenAuthorization: { type: 'HEADER', value: 'Authorization', tokenType: 'Bearer' },
    };
    const document = { app: { ...jsonApiConfig(api.url).app, authentication } };
    const steps: Step[] = [];
    const session = createSession(load([document], { AUTH_TOKEN: token }), { onStep: (step) => steps.push(step) });

    expect(await session.send({ path: '/api/me' })).toMatchObject({ status: 200, loggedIn: true });
    expect(await session.send({ path: '/api/me' })).toMatchObject({ status: 401, loggedIn: false, retried: false });
    expect(api.stats).toEqual({ logins: 1, requests: 2 });
    expect(steps).toEqual([
      { name: 'external token', ok: true, detail: 'no login; the external token is sent as header Authorization' },
    ]);
  });
});
