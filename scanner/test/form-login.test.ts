import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuthenticationError, createSession, runTestPath, type Step } from '../src/auth/index.ts';
import { formAppConfig, load } from './configs.ts';
import { startFormApp, USERNAME } from './target-apps.ts';

let app: Awaited<ReturnType<typeof startFormApp>>;
beforeAll(async () => {
  app = await startFormApp();
});
afterAll(() => app.close());
beforeEach(() => {
  app.stats.logins = 0;
  app.stats.rejectedCsrf = 0;
});

function formSession(document: object = formAppConfig(app.url), env?: NodeJS.ProcessEnv) {
  const steps: Step[] = [];
  const session = createSession(load([document], env), { onStep: (step) => steps.push(step) });
  return { session, steps };
}

describe('FORM login', () => {
  it('reads the rotating anti-forgery field on every login and keeps the session cookie', async () => {
    const { session, steps } = formSession();
    await session.login();
    await session.login(); // a second page load issues a new token; a cached one would be refused

    const dashboard = await session.send({ path: '/dashboard' });
    expect(dashboard.status).toBe(200);
    expect(dashboard.body).toContain(`Welcome ${USERNAME}`);
    expect(dashboard.loggedIn).toBe(true);
    expect(app.stats).toEqual({ logins: 2, rejectedCsrf: 0 });
    expect(steps.slice(0, 2)).toEqual([
      {
        name: 'login page',
        request: `GET ${app.url}/login`,
        status: 200,
        ok: true,
        detail: 'anti-forgery field authenticity_token read',
      },
      {
        name: 'login',
        request: `POST ${app.url}/login (FORM)`,
        status: 302,
        ok: true,
        detail: `cookies for ${app.url}: pre_sid, SESSIONID`,
      },
    ]);
  });

  it('follows a session cookie replaced through Set-Cookie without logging in again', async () => {
    const { session } = formSession();
    expect((await session.send({ path: '/rotate' })).body).toBe('rotated');
    const dashboard = await session.send({ path: '/dashboard' });
    expect(dashboard.status).toBe(200);
    expect(dashboard.retried).toBe(false);
    expect(app.stats.logins).toBe(1);
  });

  it('logs in again once and retries once when a response matches loggedOutIndicator', async () => {
    const { session, steps } = formSession();
    await session.login();
    app.expireSessions();

    const dashboard = await session.send({ path: '/dashboard' });
    expect(dashboard).toMatchObject({ status: 200, loggedIn: true, retried: true });
    expect(app.stats.logins).toBe(2);
    expect(steps.find((step) => step.name === 'logged out')).toMatchObject({
      status: 302,
      detail: 'logging in again, then retrying once',
    });
  });

  it('fails with wrong credentials, naming neither the user nor the password', async () => {
    const { session, steps } = formSession(formAppConfig(app.url), {
      SCAN_USERNAME: USERNAME,
      SCAN_PASSWORD: 'wrong-password',
    });
    const failure = await session.login().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AuthenticationError);
    expect((failure as Error).message).toContain('the login set none of the session cookies SESSIONID');
    const everything = JSON.stringify(steps) + (failure as Error).message + (failure as Error).stack;
    expect(everything).not.toContain('wrong-password');
    expect(everything).not.toContain(USERNAME);
    expect(app.stats.logins).toBe(0);
  });

  it('fails clearly when the anti-forgery field is not on the login page', async () => {
    const document = formAppConfig(app.url);
    document.app.antiCsrfParam = '_csrf';
    const { session } = formSession(document);
    await expect(session.login()).rejects.toThrow('the page has no field named _csrf; check app.antiCsrfParam');
  });
});

describe('FORM login on a hostile page', () => {
  it('decodes the anti-forgery field as a browser: &constructor; is no entity, a code point beyond Unicode is U+FFFD', async () => {
    const hostile = await startFormApp({ tokenEntities: '&constructor;&__proto__;&#99999999;' });
    try {
      const session = createSession(load([formAppConfig(hostile.url)]));
      await session.login();
      expect(hostile.stats).toEqual({ logins: 1, rejectedCsrf: 0 });
    } finally {
      await hostile.close();
    }
  });
});

describe('testPath', () => {
  it('passes when success matches the status line and headers', async () => {
    const { session } = formSession();
    const step = await runTestPath(session, { path: '/dashboard', success: 'HTTP/1\\.1 200' });
    expect(step).toEqual({
      name: 'testPath',
      request: `GET ${app.url}/dashboard`,
      status: 200,
      ok: true,
      detail: 'success /HTTP/1\\.1 200/ matched "HTTP/1.1 200"',
    });
  });

  it('fails when fail matches, without re-login', async () => {
    const { session } = formSession();
    const step = await runTestPath(session, { path: '/admin', fail: 'HTTP/1\\.1 40[13]' });
    expect(step).toMatchObject({ ok: false, status: 403, detail: 'fail /HTTP/1\\.1 40[13]/ matched "HTTP/1.1 403"' });
    expect(app.stats.logins).toBe(1);
  });

  it('with type BODY matches the body only and reports a success regex that did not match', async () => {
    const { session } = formSession();
    expect(await runTestPath(session, { path: '/dashboard', type: 'BODY', success: 'Welcome' })).toMatchObject({
      ok: true,
    });
    const headerOnly = await runTestPath(session, { path: '/dashboard', type: 'BODY', success: 'content-type' });
    expect(headerOnly).toMatchObject({
      ok: false,
      detail: 'success /content-type/ did not match the body ("HTTP/1.1 200 OK")',
    });
  });
});
