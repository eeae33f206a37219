// Logging in (docs/SCANNER-AUTH.md, Behaviour: FORM, JSON) or installing an external token. Each login starts from an
// empty cookie jar, so a renewed session never carries cookies of the expired one.
import { CookieJar } from 'tough-cookie';
import type { AuthConfig } from './config.ts';
import { exchange, resolveUrl, type Exchange, type Fetch, type Step } from './http.ts';

export type SessionState = { jar: CookieJar; token?: string };

/** The login itself failed (rejected credentials, missing token, cookie or anti-forgery field). */
export class AuthenticationError extends Error {
  override name = 'AuthenticationError';
}

export async function authenticate(
  config: AuthConfig,
  report: (step: Step) => void,
  send?: Fetch,
): Promise<SessionState> {
  const auth = config.app.authentication;
  const jar = new CookieJar();

  if (auth.external) {
    const token = auth.external.value;
    const cookieName = auth.cookieAuthorization?.cookieNames?.[0];
    if (cookieName) await jar.setCookie(`${cookieName}=${token}`, config.app.host);
    const carrier = cookieName ? `cookie ${cookieName}` : `header ${auth.tokenAuthorization?.value}`;
    report({ name: 'external token', ok: true, detail: `no login; the external token is sent as ${carrier}` });
    return { jar, token };
  }

  const login = auth.usernamePassword!;
  const fields: [string, string][] = [
    [login.usernameField, login.scanUsername],
    [login.passwordField, login.scanPassword],
    ...(login.otherParams ?? []).map((param): [string, string] => [param.name, param.val]),
  ];
  const antiCsrfParam = config.app.antiCsrfParam;
  if (login.type === 'FORM' && (login.loginPagePath || antiCsrfParam)) {
    fields.push(...(await readLoginPage(config, jar, report, send)));
  }

  const request =
    login.type === 'FORM'
      ? { contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() }
      : { contentType: 'application/json', body: JSON.stringify(Object.fromEntries(fields)) };
  const url = resolveUrl(config.app.host, login.loginPath);
  const response = await exchange(
    jar,
    {
      method: 'POST',
      url,
      headers: { 'content-type': request.contentType, accept: 'application/json, text/html;q=0.9, */*;q=0.8' },
      body: request.body,
    },
    undefined,
    send,
  );
  const loginStep = { name: 'login', request: `POST ${url} (${login.type})`, status: response.status };
  const failLogin = (problem: string): never => {
    report({ ...loginStep, ok: false, detail: problem });
    throw new AuthenticationError(`login failed: ${problem}`);
  };

  if (response.status >= 400) {
    failLogin(
      `${url} answered ${response.status} ${response.statusText}; check scanUsername, scanPassword, usernameField and passwordField`,
    );
  }
  const extraction = auth.tokenExtraction;
  const tokenSource = extraction && `${extraction.type === 'HEADER' ? 'header' : 'JSON path'} ${extraction.value}`;
  const token = extraction && extractToken(response, extraction);
  if (extraction && !token) failLogin(`the login response has no token at ${tokenSource}; check tokenExtraction`);

  const cookieNames = auth.cookieAuthorization?.cookieNames ?? [];
  const cookiesSet = (await jar.getCookies(config.app.host)).map((cookie) => cookie.key);
  if (cookieNames.length && !cookieNames.some((name) => cookiesSet.includes(name))) {
    failLogin(
      `the login set none of the session cookies ${cookieNames.join(', ')} for ${config.app.host}; ` +
        'check the credentials and cookieAuthorization.cookieNames',
    );
  }
  report({
    ...loginStep,
    ok: true,
    detail: token
      ? `token read from ${tokenSource}`
      : `cookies for ${config.app.host}: ${cookiesSet.join(', ') || 'none'}`,
  });
  return { jar, token };
}

// GETs the page holding the login form: its cookies land in the jar and its anti-forgery field, which the
// target may rotate on every load, is returned for the login body.
async function readLoginPage(
  config: AuthConfig,
  jar: CookieJar,
  report: (step: Step) => void,
  send?: Fetch,
): Promise<[string, string][]> {
  const login = config.app.authentication.usernamePassword!;
  const url = resolveUrl(config.app.host, login.loginPagePath ?? login.loginPath);
  const page = await exchange(jar, { method: 'GET', url }, undefined, send);
  const step = { name: 'login page', request: `GET ${url}`, status: page.status };
  const antiCsrfParam = config.app.antiCsrfParam;
  if (!antiCsrfParam) {
    report({ ...step, ok: true, detail: 'pre-login cookies collected' });
    return [];
  }
  const value = hiddenFieldValue(page.body, antiCsrfParam);
  if (value === undefined) {
    const problem = `the page has no field named ${antiCsrfParam}; check app.antiCsrfParam and usernamePassword.loginPagePath`;
    report({ ...step, ok: false, detail: problem });
    throw new AuthenticationError(`login failed: ${problem}`);
  }
  report({ ...step, ok: true, detail: `anti-forgery field ${antiCsrfParam} read` });
  return [[antiCsrfParam, value]];
}

/** Value of the `<input name=...>` in an HTML page, attributes in any order and quoting. */
function hiddenFieldValue(html: string, name: string): string | undefined {
  for (const tag of html.match(/<input\b[^>]*>/gi) ?? []) {
    const attributes = new Map(
      [...tag.matchAll(/([^\s=<>"'/]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g)].map((match) => [
        match[1].toLowerCase(),
        match[2] ?? match[3] ?? match[4],
      ]),
    );
    if (attributes.get('name') === name) return decodeHtmlEntities(attributes.get('value') ?? '');
  }
  return undefined;
}

/** The target's page names the entities: a Map, so `&constructor;` is no entity (a plain object would answer it). */
const NAMED_ENTITIES = new Map([
  ['amp', '&'],
  ['quot', '"'],
  ['apos', "'"],
  ['lt', '<'],
  ['gt', '>'],
]);

function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, code: string) => {
    if (code[0] !== '#') return NAMED_ENTITIES.get(code.toLowerCase()) ?? entity;
    const point = code[1].toLowerCase() === 'x' ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
    // Beyond Unicode (fromCodePoint would throw): U+FFFD, as browsers decode it.
    return point <= 0x10ffff ? String.fromCodePoint(point) : '\uFFFD';
  });
}

function extractToken(
  response: Exchange,
  extraction: { type: 'TOKEN_PATH' | 'HEADER'; value: string },
): string | undefined {
  if (extraction.type === 'HEADER') return response.headers.get(extraction.value) ?? undefined;
  let node: unknown;
  try {
    node = JSON.parse(response.body);
  } catch {
    return undefined;
  }
  for (const key of extraction.value.split('.')) {
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  }
  return typeof node === 'string' || typeof node === 'number' ? String(node) : undefined;
}
