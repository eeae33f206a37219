import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { agentVariables, createSession, loadConfigText, runTestPath } from '../src/auth/index.ts';
import { TargetRefused } from '../src/net/addresses.ts';
import { parseRobots, robotsAllow } from '../src/profile/fetch.ts';
import { profileTarget, type ProfileOptions, type ProfileScanResult } from '../src/profile/profile.ts';
import {
  API_DESCRIPTION_PATH,
  PASSWORD,
  serve,
  startApiTarget,
  startFormTarget,
  startHostileTarget,
  startManyLinksTarget,
  startSpaTarget,
  startStaticTarget,
  USERNAME,
  type Target,
} from './profile-targets.ts';

const started: Target[] = [];
afterAll(() => Promise.all(started.map((t) => t.close())));
const start = async (target: Promise<Target>) => {
  const t = await target;
  started.push(t);
  return t;
};

const applicationId = randomUUID();
const profile = (url: string, options: Partial<ProfileOptions> = {}) =>
  profileTarget({
    scanId: randomUUID(),
    targetUrl: url,
    applicationId,
    env: 'Development',
    allowPrivate: true,
    budget: { minIntervalMs: 0 },
    ...options,
  });

const credentials = { HAWK_SCAN_USERNAME: USERNAME, HAWK_SCAN_PASSWORD: PASSWORD };

/** The suggested configuration, given the credentials, logs in and passes its testPath (what `hawk-scanner validate` does). */
async function logsIn(result: ProfileScanResult) {
  const loaded = loadConfigText(result.suggestedScanConfig, {}, agentVariables([], credentials));
  expect(loaded.errors).toBeUndefined();
  const session = createSession(loaded.config!);
  await session.login();
  const verdict = await runTestPath(session, loaded.config!.app.authentication.testPath!);
  expect(verdict.ok, verdict.detail).toBe(true);
  return loaded.config!;
}

const markerTypes = (result: ProfileScanResult) => result.authMarkers.map((m) => m.type).sort();
const signalsOf = (result: ProfileScanResult, type: string) =>
  result.authMarkers.find((m) => m.type === type)?.signals.map((s) => s.signalType) ?? [];

describe('profile scans of the four kinds of target', () => {
  it('an API: finds the description linked from its index at a non-default path and its JSON login', async () => {
    const target = await start(startApiTarget());
    const result = await profile(target.url);
    expect(result.classification).toBe('APP_API_WITH_AUTH');
    expect(result.discoveredOpenapiSpecPath).toBe(API_DESCRIPTION_PATH);
    expect(markerTypes(result)).toEqual(['AUTH_LOGIN_FORM', 'AUTH_PROTECTED_ENDPOINT', 'AUTH_WWW_AUTHENTICATE']);
    expect(signalsOf(result, 'AUTH_WWW_AUTHENTICATE')).toEqual(['SIGNAL_WWW_AUTHENTICATE']);
    expect(signalsOf(result, 'AUTH_PROTECTED_ENDPOINT')).toContain('SIGNAL_STATUS_CODE_401_403');
    expect(result.authConfigPresent).toBe(true);
    expect(result.score).toBe('TESTABILITY_HIGH');
    expect(result.paths.samplesAuthProtected.map((p) => new URL(p.url).pathname)).toEqual(['/api/orders']);
    expect(result.paths.samplesAuthProtected[0].authEvidence).toBe('401 with WWW-Authenticate: Bearer realm="orders"');
    // The well-known places are not needed once the index pointed at the description.
    expect(target.requests).not.toContain('GET /openapi.json');
    expect(result.recommendations[0]).toContain(result.suggestedScanConfig);

    const config = await logsIn(result);
    expect(config.app.authentication.usernamePassword).toMatchObject({
      type: 'JSON',
      loginPath: '/api/login',
      usernameField: 'email',
      passwordField: 'password',
      scanUsername: USERNAME,
    });
    expect(config.app.authentication.tokenExtraction).toEqual({ type: 'TOKEN_PATH', value: 'data.token' });
    expect(config.app.authentication.testPath?.path).toBe('/api/orders');
    expect(result.suggestedScanConfig).toContain('scanPassword: ${HAWK_SCAN_PASSWORD}');
    expect(result.suggestedScanConfig).toContain(`openApiConf:\n    path: ${API_DESCRIPTION_PATH}`);
  });

  it('a server-rendered site: a FORM login with its anti-CSRF field, a page that redirects to it', async () => {
    const target = await start(startFormTarget());
    const result = await profile(target.url);
    expect(result.classification).toBe('APP_PUBLIC_WEBSITE');
    expect(result.discoveredOpenapiSpecPath).toBe('');
    expect(markerTypes(result)).toEqual(['AUTH_LOGIN_FORM', 'AUTH_REDIRECT_TO_AUTH', 'AUTH_SESSION_COOKIE']);
    expect(signalsOf(result, 'AUTH_LOGIN_FORM')).toEqual(['SIGNAL_LOGIN_FORM_DETECTED', 'SIGNAL_CSRF_TOKEN']);
    expect(result.authMarkers.find((m) => m.type === 'AUTH_LOGIN_FORM')?.confidence).toBe('AUTH_CONFIDENCE_HIGH');
    expect(result.paths.samplesAuthProtected).toEqual([
      { method: 'GET', url: `${target.url}/account`, authEvidence: '302 to /login' },
    ]);
    expect(result.paths.samplesDynamic.map((p) => new URL(p.url).pathname + new URL(p.url).search)).toContain(
      '/products?page=1',
    );
    expect(result.authConfigPresent).toBe(true);

    const config = await logsIn(result);
    expect(config.app.antiCsrfParam).toBe('csrf_token');
    expect(config.app.authentication.usernamePassword).toMatchObject({
      type: 'FORM',
      loginPagePath: '/login',
      loginPath: '/session',
      usernameField: 'email',
      passwordField: 'pass',
      otherParams: [{ name: 'commit', val: 'Sign in' }],
    });
    expect(config.app.authentication.loggedOutIndicator).toBe('location: \\S*/login');
    expect(config.app.authentication.testPath?.path).toBe('/account');
  });

  it('a single-page app: its bundle logs in with JSON and sends a bearer token to its API', async () => {
    const target = await start(startSpaTarget());
    const result = await profile(target.url);
    expect(result.classification).toBe('APP_SPA_WITH_AUTH');
    expect(result.assets.buildStrategy).toBe('BUILD_VENDOR_APP_SPLIT');
    expect(result.assets.assetSummary.scripts.count).toBe(2);
    expect(markerTypes(result)).toEqual(['AUTH_LOGIN_FORM', 'AUTH_PROTECTED_ENDPOINT']);
    const bearer = result.authMarkers.find((m) => m.type === 'AUTH_PROTECTED_ENDPOINT')!;
    expect(bearer.signals.map((s) => s.detail)).toContain(
      'the front-end bundle sends Authorization: Bearer … to /api/profile',
    );
    expect(result.recommendations.join('\n')).toContain('Publish an OpenAPI description');

    const config = await logsIn(result);
    expect(config.app.authentication.usernamePassword).toMatchObject({
      type: 'JSON',
      loginPath: '/api/auth/login',
      usernameField: 'username',
    });
    expect(config.app.authentication.tokenExtraction).toEqual({ type: 'TOKEN_PATH', value: 'accessToken' });
    expect(config.app.authentication.tokenAuthorization).toEqual({
      type: 'HEADER',
      value: 'Authorization',
      tokenType: 'Bearer',
    });
  });

  it('a static site: no login, static paths only, robots.txt obeyed', async () => {
    const target = await start(startStaticTarget());
    const result = await profile(target.url);
    expect(result.classification).toBe('APP_STATIC_SITE');
    expect(result.authMarkers).toEqual([]);
    expect(result.authConfigPresent).toBe(false);
    expect(result.score).toBe('TESTABILITY_LOW');
    expect(result.paths.dynamicCount).toBe(0);
    expect(result.paths.samplesStatic.map((p) => new URL(p.url).pathname).sort()).toEqual([
      '/',
      '/about.html',
      '/recipes/bread.html',
    ]);
    expect(target.requests.some((r) => r.includes('/drafts/'))).toBe(false);
    expect(result.notes).toContain('1 paths not requested: robots.txt disallows them');
    // Nothing to log in to: the app block alone (which the login validator has nothing to check in).
    expect(parseYaml(result.suggestedScanConfig)).toEqual({
      app: { applicationId, env: 'Development', host: target.url },
    });
  });
});

describe('profile scans are bounded', () => {
  it('a huge and a deeply nested "OpenAPI", a redirect loop, a slow drip and other origins: cut, refused and reported', async () => {
    const other = await start(serve((request, body, response) => response.writeHead(200).end('other')));
    const target = await start(startHostileTarget(other.url));
    const began = Date.now();
    const result = await profile(target.url, {
      budget: { minIntervalMs: 0, requestTimeoutMs: 1000, maxDescriptionBytes: 1024 * 1024 },
    });
    expect(Date.now() - began).toBeLessThan(15_000);
    expect(result.discoveredOpenapiSpecPath).toBe('');
    const recommendations = result.recommendations.join('\n');
    expect(recommendations).toContain('/specs/huge-openapi.json: larger than the size cap (not read)');
    expect(recommendations).toContain('/specs/nested-openapi.json: nested deeper than 64 levels (not read)');
    expect(result.notes).toEqual(
      expect.arrayContaining([
        'GET /specs/huge-openapi.json: answer cut at 1048576 bytes',
        'GET /loop/a: redirect loop',
        'GET /slow: no complete answer within 1000 ms (cut)',
        `links to 2 other origin(s) not followed (same origin only): ${other.url}, http://169.254.169.254`,
      ]),
    );
    expect(other.requests).toEqual([]);
    expect(target.requests.filter((r) => r.startsWith('GET /loop/')).length).toBeLessThanOrEqual(3);
  });

  it('a target with 10,000 links: stops at its request budget and says so', async () => {
    const target = await start(startManyLinksTarget());
    const result = await profile(target.url, { budget: { minIntervalMs: 0, maxRequests: 80 } });
    expect(result.stoppedBy).toBe('REQUEST_BUDGET');
    expect(result.requestsSent).toBe(80);
    expect(target.requests.length).toBeLessThanOrEqual(80);
    expect(result.scoreReasons.join('\n')).toMatch(
      /stopped at its request budget \(80 requests\) with \d+ links not visited/,
    );
    expect(result.notes.join('\n')).toContain("8000 links beyond the page's or the queue's bounds not kept");
    expect(result.paths.samplesStatic.length + result.paths.samplesDynamic.length).toBeLessThanOrEqual(20);
  });

  it('a time budget holds too', async () => {
    const target = await start(startManyLinksTarget());
    const began = Date.now();
    const result = await profile(target.url, { budget: { minIntervalMs: 100, maxMs: 1500 } });
    expect(Date.now() - began).toBeLessThan(3000);
    expect(result.stoppedBy).toBe('TIME_BUDGET');
  });

  it('refuses a private address unless the organization allowed it', async () => {
    const target = await start(startStaticTarget());
    await expect(profile(target.url, { allowPrivate: false })).rejects.toThrow(TargetRefused);
    expect(target.requests).toEqual([]);
  });

  it('reads robots.txt rules without building expressions from them', () => {
    const rules = parseRobots(
      'User-agent: other\nDisallow: /\n\nUser-agent: *\nDisallow: /private*.html$\nAllow: /private/ok.html\nCrawl-delay: 2\n',
    );
    expect(rules.crawlDelayMs).toBe(2000);
    expect(robotsAllow(rules, '/private/secret.html')).toBe(false);
    expect(robotsAllow(rules, '/private/secret.html?x')).toBe(true);
    expect(robotsAllow(rules, '/private/ok.html')).toBe(true);
    expect(robotsAllow(rules, '/public')).toBe(true);
  });
});
