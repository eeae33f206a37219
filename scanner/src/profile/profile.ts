// A profile scan (docs/PROFILE-SCANS.md): what a target is and how to test it, found with a bounded, polite probe
// before the first scan. It looks for API descriptions, login markers and the target's shape, then classifies the
// target, scores its testability and suggests a scan configuration. Its answer is the public
// scanresults.ProfileScanResult, with a few fields of ours (the configuration as YAML, the probe's own figures).
import { parse as parseYaml } from 'yaml';
import { pinnedAddress } from '../net/addresses.ts';
import {
  BudgetSpent,
  createFetcher,
  DEFAULT_BUDGET,
  readRobots,
  type Answer,
  type Budget,
  type Fetcher,
} from './fetch.ts';
import { readPage, type Form, type Page } from './page.ts';
import { suggestConfiguration, type LoginFinding } from './suggest.ts';

export type Classification =
  'APP_SPA_WITH_AUTH' | 'APP_API_WITH_AUTH' | 'APP_PUBLIC_WEBSITE' | 'APP_STATIC_SITE' | 'APP_CLASSIFICATION_UNKNOWN';
export type Testability = 'TESTABILITY_HIGH' | 'TESTABILITY_MEDIUM' | 'TESTABILITY_LOW';
export type AuthMarkerType =
  | 'AUTH_LOGIN_FORM'
  | 'AUTH_REDIRECT_TO_AUTH'
  | 'AUTH_SESSION_COOKIE'
  | 'AUTH_OAUTH_ENDPOINT'
  | 'AUTH_WWW_AUTHENTICATE'
  | 'AUTH_PROTECTED_ENDPOINT';
export type SignalType =
  | 'SIGNAL_PATH_PATTERN'
  | 'SIGNAL_STATUS_CODE_401_403'
  | 'SIGNAL_REDIRECT_TO_AUTH'
  | 'SIGNAL_LOGIN_FORM_DETECTED'
  | 'SIGNAL_OAUTH_PROMPT'
  | 'SIGNAL_SESSION_COOKIE'
  | 'SIGNAL_WWW_AUTHENTICATE'
  | 'SIGNAL_CSRF_TOKEN';
export type Confidence = 'AUTH_CONFIDENCE_LOW' | 'AUTH_CONFIDENCE_MEDIUM' | 'AUTH_CONFIDENCE_HIGH';
export type BuildStrategy =
  'BUILD_SINGLE_BUNDLE' | 'BUILD_VENDOR_APP_SPLIT' | 'BUILD_CODE_SPLIT_OPTIMIZED' | 'BUILD_STRATEGY_UNKNOWN';

export interface AuthMarker {
  type: AuthMarkerType;
  confidence: Confidence;
  evidence: string;
  signals: { signalType: SignalType; detail: string }[];
}
export interface PathInfo {
  method: string;
  url: string;
  authEvidence?: string;
}
interface AssetCategoryCount {
  count: number;
  totalSizeBytes: number;
  sampleUrls: string[];
}

/** scanresults.ProfileScanResult, and the fields of ours after it. */
export interface ProfileScanResult {
  scanId: string;
  timestamp: number;
  classification: Classification;
  score: Testability;
  scoreReasons: string[];
  recommendations: string[];
  discoveredOpenapiSpecPath: string;
  authConfigPresent: boolean;
  authMarkers: AuthMarker[];
  paths: {
    total: number;
    staticCount: number;
    dynamicCount: number;
    authProtectedCount: number;
    samplesStatic: PathInfo[];
    samplesDynamic: PathInfo[];
    samplesAuthProtected: PathInfo[];
  };
  assets: {
    buildStrategy: BuildStrategy;
    optimizationNotes: string[];
    totalAssets: number;
    totalSizeBytes: number;
    assetSummary: { scripts: AssetCategoryCount; staticMedia: AssetCategoryCount; dynamicContent: AssetCategoryCount };
  };
  /** Ours: the suggested stackhawk.yml (also the first recommendation). */
  suggestedScanConfig: string;
  /** Ours: requests the probe sent, its time, and the budget that stopped it, if one did. */
  requestsSent: number;
  durationMs: number;
  stoppedBy: '' | 'REQUEST_BUDGET' | 'TIME_BUDGET';
  /** Ours: what the probe cut, refused or could not read (bounded, at most 50). */
  notes: string[];
  /**
   * Ours: the discovered description's text (at most the 2 MB an answer may have), only with `keepDescription`:
   * the agent sends it with the result for the service to validate and keep (docs/PROFILE-SCANS.md).
   */
  discoveredOpenapiSpec?: string;
}

export interface ProfileOptions {
  scanId: string;
  targetUrl: string;
  applicationId: string;
  env: string;
  /** The organization allowlisted the host (or the agent runs inside its own network): private addresses allowed. */
  allowPrivate: boolean;
  budget?: Partial<Budget>;
  /** Send GraphQL's introspection query to a found GraphQL endpoint (default true). */
  graphqlIntrospection?: boolean;
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** Return the discovered description's text in `discoveredOpenapiSpec` (the agent uploads it). */
  keepDescription?: boolean;
}

/** Where API descriptions usually are, tried after the ones the target points at. */
export const WELL_KNOWN_DESCRIPTIONS = [
  '/openapi.json',
  '/openapi.yaml',
  '/v3/api-docs',
  '/v2/api-docs',
  '/swagger.json',
  '/swagger.yaml',
  '/swagger/v1/swagger.json',
  '/api-docs',
  '/api/openapi.json',
  '/api/swagger.json',
  '/docs/openapi.json',
  '/.well-known/openapi.json',
];
/** A reference that names an API description: openapi, swagger, api-docs, or an api*.json/yaml file. */
const DESCRIPTION_HREF = /openapi|swagger|api-docs|api[\w.-]{0,80}\.(?:json|ya?ml)(?:$|[?#])/i;
const GRAPHQL_PATHS = ['/graphql', '/api/graphql'];
const MAX_SCRIPTS = 8;
const MAX_QUEUE = 2_000;
const MAX_API_PROBES = 10;
const SAMPLES = 10;
/** Deeper JSON than this is not read as a description (a hostile nesting). */
const MAX_DESCRIPTION_DEPTH = 64;
/** YAML is read more slowly than JSON: a smaller cap. */
const MAX_YAML_DESCRIPTION_BYTES = 512 * 1024;

const STATIC_EXTENSIONS = new Set(
  'css js mjs map png jpg jpeg gif svg ico webp avif bmp woff woff2 ttf otf eot mp4 webm mp3 pdf txt xml'.split(' '),
);
const LOGIN_PATH = /(?:^|\/)(?:login|log-in|signin|sign-in|sign_in|logon|auth|session|sessions|token)(?:$|[/.?])/i;
const OAUTH_PATH = /(?:^|\/)(?:oauth2?|authorize|openid-connect)(?:$|[/.?])/i;
const CSRF_NAME = /csrf|xsrf|authenticity_token|requestverificationtoken|^_token$|nonce/i;
const SESSION_COOKIE = /sess|sid$|^sid|token|auth|jwt|connect\.sid|phpsessid|jsessionid/i;
const USER_FIELD = /user|email|login|account|name/i;
const TOKEN_FIELD = /^(?:access_?token|accessToken|token|jwt|id_?token|auth_?token)$/i;

interface Observation extends PathInfo {
  kind: 'static' | 'dynamic' | 'auth';
  contentType: string;
  bytes: number;
  category: 'scripts' | 'staticMedia' | 'dynamicContent';
}

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};
const header = (answer: Answer, name: string) => {
  const value = answer.headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
};
const extensionOf = (path: string) => {
  const last = path.split('?')[0].split('/').pop() ?? '';
  const dot = last.lastIndexOf('.');
  return dot > 0 ? last.slice(dot + 1).toLowerCase() : '';
};

/** The depth of nesting of a JSON text, counted without parsing it (strings skipped). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

type Description = { kind: 'openapi' | 'swagger'; document: Record<string, unknown> };

/** An OpenAPI (3.x) or Swagger (2.0) description in an answer, read within the depth bound; else a reason. */
export function readDescription(answer: Answer): Description | string {
  if (answer.status !== 200) return `answered ${answer.status}`;
  if (answer.truncated) return 'larger than the size cap (not read)';
  const text = answer.body.trimStart();
  if (!text) return 'empty';
  let document: unknown;
  try {
    if (text.startsWith('{')) {
      if (jsonDepth(text) > MAX_DESCRIPTION_DEPTH)
        return `nested deeper than ${MAX_DESCRIPTION_DEPTH} levels (not read)`;
      document = JSON.parse(text);
    } else if (/^(?:openapi|swagger)\s*:/m.test(text.slice(0, 4096))) {
      if (text.length > MAX_YAML_DESCRIPTION_BYTES)
        return `YAML larger than ${MAX_YAML_DESCRIPTION_BYTES} bytes (not read)`;
      document = parseYaml(text, { maxAliasCount: 100 });
      if (jsonDepth(JSON.stringify(document)) > MAX_DESCRIPTION_DEPTH)
        return `nested deeper than ${MAX_DESCRIPTION_DEPTH} levels (not read)`;
    } else return 'not JSON or YAML';
  } catch (error) {
    return `not readable: ${(error as Error).message.split('\n')[0].slice(0, 120)}`;
  }
  if (!document || typeof document !== 'object' || Array.isArray(document)) return 'not a mapping';
  const doc = document as Record<string, unknown>;
  if (typeof doc.openapi === 'string' && doc.openapi.startsWith('3') && typeof doc.paths === 'object')
    return { kind: 'openapi', document: doc };
  if (String(doc.swagger) === '2.0' && typeof doc.paths === 'object') return { kind: 'swagger', document: doc };
  return 'no openapi or swagger version with paths';
}

type Schema = { $ref?: string; properties?: Record<string, Schema>; type?: string; format?: string };

/** A schema with its local $ref followed (a few hops at most). */
function resolve(doc: Record<string, unknown>, schema: Schema | undefined): Schema | undefined {
  for (let hops = 0; schema?.$ref && hops < 5; hops++) {
    if (!schema.$ref.startsWith('#/')) return undefined;
    let at: unknown = doc;
    for (const part of schema.$ref.slice(2).split('/')) at = (at as Record<string, unknown> | undefined)?.[part];
    schema = at as Schema | undefined;
  }
  return schema && typeof schema === 'object' ? schema : undefined;
}

/** The dot path to a token-like property of a response schema, a few levels deep. */
function tokenPath(
  doc: Record<string, unknown>,
  schema: Schema | undefined,
  prefix = '',
  depth = 0,
): string | undefined {
  const resolved = resolve(doc, schema);
  if (!resolved?.properties || depth > 3) return undefined;
  const names = Object.keys(resolved.properties);
  const direct = names.find((name) => TOKEN_FIELD.test(name));
  if (direct) return `${prefix}${direct}`;
  for (const name of names.slice(0, 20)) {
    const found = tokenPath(doc, resolved.properties[name], `${prefix}${name}.`, depth + 1);
    if (found) return found;
  }
  return undefined;
}

interface DescriptionFacts {
  jsonLogin?: { path: string; usernameField: string; passwordField: string; tokenPath?: string };
  bearer: boolean;
  getPaths: string[];
  operations: number;
}

/** What a description says about logging in and what to probe: a JSON login operation, bearer security, GET paths. */
function descriptionFacts({ document }: Description): DescriptionFacts {
  const facts: DescriptionFacts = { bearer: false, getPaths: [], operations: 0 };
  const components = (document.components ?? {}) as {
    securitySchemes?: Record<string, { type?: string; scheme?: string; in?: string }>;
  };
  const schemes = Object.values(components.securitySchemes ?? (document.securityDefinitions as object) ?? {});
  facts.bearer = schemes.some(
    (s) =>
      (s?.type === 'http' && /bearer/i.test(s.scheme ?? '')) || s?.type === 'oauth2' || s?.type === 'openIdConnect',
  );
  const base = typeof document.basePath === 'string' ? document.basePath.replace(/\/+$/, '') : '';
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, unknown>>).slice(
    0,
    2000,
  )) {
    if (!item || typeof item !== 'object') continue;
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) if (item[method]) facts.operations++;
    if (item.get && !path.includes('{') && facts.getPaths.length < MAX_API_PROBES) facts.getPaths.push(base + path);
    const post = item.post as
      | {
          requestBody?: { content?: Record<string, { schema?: Schema }> };
          responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
        }
      | undefined;
    if (!post || facts.jsonLogin || !LOGIN_PATH.test(path)) continue;
    const body = resolve(document, post.requestBody?.content?.['application/json']?.schema);
    const fields = Object.keys(body?.properties ?? {});
    const passwordField = fields.find((f) => /pass/i.test(f));
    if (!passwordField) continue;
    const ok = post.responses?.['200'] ?? post.responses?.['201'];
    facts.jsonLogin = {
      path: base + path,
      passwordField,
      usernameField:
        fields.find((f) => f !== passwordField && USER_FIELD.test(f)) ??
        fields.find((f) => f !== passwordField) ??
        'username',
      tokenPath: tokenPath(document, ok?.content?.['application/json']?.schema),
    };
  }
  return facts;
}

interface ScriptFacts {
  bearer: boolean;
  apiPaths: string[];
  jsonLogin?: { path: string; usernameField: string; passwordField: string; tokenPath?: string };
}

// Path literals in a front-end bundle: a quote, a slash, a bounded run of path characters, a quote. Linear: one
// bounded character class, no nesting.
const PATH_LITERAL = /["'`](\/[A-Za-z0-9_\-./]{1,120})["'`?]/g;

/** What a front-end bundle shows: bearer tokens sent in Authorization, the API paths it calls, its login call. */
export function scriptFacts(text: string): ScriptFacts {
  const bearer = /authorization/i.test(text) && /["'`]Bearer[ "'`$]/.test(text);
  const paths = new Set<string>();
  for (const match of text.matchAll(PATH_LITERAL)) {
    const path = match[1];
    if (path.length > 1 && !STATIC_EXTENSIONS.has(extensionOf(path)) && !path.startsWith('//')) paths.add(path);
    if (paths.size >= 200) break;
  }
  const apiPaths = [...paths].filter((p) => /^\/(?:api|v\d|graphql|rest)\b/i.test(p) || LOGIN_PATH.test(p));
  const loginPath = apiPaths.find((p) => LOGIN_PATH.test(p) && !OAUTH_PATH.test(p));
  let jsonLogin: ScriptFacts['jsonLogin'];
  if (loginPath && /password/.test(text)) {
    const userField = /\b(email|username|login|user)\s*:/.exec(text)?.[1] ?? 'username';
    const tokenField = /\.(access_token|accessToken|token|jwt|id_token)\b/.exec(text)?.[1];
    jsonLogin = { path: loginPath, usernameField: userField, passwordField: 'password', tokenPath: tokenField };
  }
  return { bearer, apiPaths: apiPaths.filter((p) => p !== loginPath).slice(0, MAX_API_PROBES), jsonLogin };
}

/** Profiles the target: see the file's header. Throws TargetRefused when the target's address may not be reached. */
export async function profileTarget(options: ProfileOptions): Promise<ProfileScanResult> {
  const budget = { ...DEFAULT_BUDGET, ...options.budget };
  const log = options.log ?? (() => {});
  const target = new URL(options.targetUrl);
  const address = await pinnedAddress(target.hostname, { allowPrivate: options.allowPrivate });
  log(`profile of ${target.origin} at ${address}: at most ${budget.maxRequests} requests in ${budget.maxMs / 1000} s`);
  const fetcher = createFetcher(new URL(target.origin), address, budget, options.signal);
  const state = new ProbeState(target, fetcher);
  try {
    await state.run(options.graphqlIntrospection ?? true);
  } catch (error) {
    if (!(error instanceof BudgetSpent)) throw error;
    log(`stopped: ${error.message}`);
  }
  const result = state.result(options);
  log(
    `profile: ${result.classification}, ${result.score}, ${result.requestsSent} requests in ${result.durationMs} ms${result.stoppedBy ? ` (stopped by its ${result.stoppedBy})` : ''}`,
  );
  return result;
}

class ProbeState {
  readonly observations = new Map<string, Observation>();
  readonly markers = new Map<AuthMarkerType, AuthMarker>();
  readonly queue: string[] = [];
  readonly queued = new Set<string>();
  droppedLinks = 0;
  offOrigin = new Set<string>();
  robotsRefused = new Set<string>();
  index?: Page;
  indexAnswer?: Answer;
  indexScripts: string[] = [];
  description?: { path: string; facts: DescriptionFacts; text: string };
  descriptionProblems: string[] = [];
  graphql?: { path: string; introspection: boolean };
  scripts: ScriptFacts = { bearer: false, apiPaths: [] };
  loginForm?: { pagePath: string; form: Form };
  protectedPath?: { path: string; evidence: string; redirect?: string; status: number };
  cookieFlags: string[] = [];
  readonly basePath: string;

  constructor(
    readonly target: URL,
    readonly fetcher: Fetcher,
  ) {
    this.basePath = target.pathname.replace(/\/+$/, '');
  }

  async run(graphqlIntrospection: boolean) {
    const f = this.fetcher;
    await readRobots(f);
    const start = `${this.target.pathname}${this.target.search}`;
    const index = await this.get(start);
    this.indexAnswer = index;
    if (index && /html/i.test(header(index, 'content-type'))) this.index = readPage(index.body);

    // API descriptions: those the target points at, then the usual places.
    const pointed: string[] = [];
    for (const answer of [index]) {
      for (const part of header(answer ?? ({ headers: {} } as Answer), 'link')
        .split(/,(?=\s*<)/)
        .slice(0, 20)) {
        const m = /<([^>]{1,500})>\s*;[^,]{0,200}rel="?(service-desc|describedby|openapi|swagger)/i.exec(part);
        if (m) pointed.push(m[1]);
      }
    }
    for (const link of this.index?.links ?? [])
      if (/service-desc|openapi|swagger/.test(link.rel) || DESCRIPTION_HREF.test(link.href)) pointed.push(link.href);
    for (const script of this.index?.scripts ?? []) if (/openapi|swagger/i.test(script.src)) pointed.push(script.src);
    const candidates = [
      ...new Set([
        ...pointed.map((p) => this.sameOrigin(p)).filter((p): p is string => !!p),
        ...WELL_KNOWN_DESCRIPTIONS.map((p) => this.basePath + p),
      ]),
    ];
    for (const path of candidates) {
      if (this.description) break;
      if (!f.allowed(path)) {
        this.robotsRefused.add(path);
        continue;
      }
      const answer = await f.get(path, {
        description: true,
        accept: 'application/json, application/yaml;q=0.9, */*;q=0.5',
      });
      if (!answer) continue;
      this.observe(answer);
      const read = readDescription(answer);
      if (typeof read === 'string') {
        if (answer.status === 200 && pointed.length && candidates.indexOf(path) < pointed.length)
          this.descriptionProblems.push(`${path}: ${read}`);
        continue;
      }
      this.description = { path: pathOf(answer.finalUrl), facts: descriptionFacts(read), text: answer.body };
    }

    // The front end's scripts: API calls, bearer tokens, its login call.
    const scripts = (this.index?.scripts ?? []).map((s) => this.sameOrigin(s.src)).filter((p): p is string => !!p);
    this.indexScripts = scripts;
    const texts = [this.index?.inlineScript ?? ''];
    for (const path of scripts.slice(0, MAX_SCRIPTS)) {
      if (!f.allowed(path)) continue;
      const answer = await this.get(path);
      if (answer?.status === 200) texts.push(answer.body);
    }
    this.scripts = scriptFacts(texts.join('\n'));

    // OpenID Connect discovery and GraphQL.
    const oidc = await this.get(`${this.basePath}/.well-known/openid-configuration`);
    if (oidc?.status === 200 && /"authorization_endpoint"/.test(oidc.body))
      this.mark('AUTH_OAUTH_ENDPOINT', 'AUTH_CONFIDENCE_HIGH', 'OpenID Connect discovery document', {
        signalType: 'SIGNAL_OAUTH_PROMPT',
        detail: `${pathOf(oidc.finalUrl)} names an authorization endpoint`,
      });
    await this.findGraphql(graphqlIntrospection);

    // The API's own paths, without credentials: which need a session.
    const apiPaths = [
      ...(this.description?.facts.getPaths ?? []),
      ...this.scripts.apiPaths.map((p) => this.basePath + p),
    ].slice(0, MAX_API_PROBES);
    for (const path of new Set(apiPaths)) if (f.allowed(path)) await this.get(path);

    // The pages, breadth first, same origin only.
    this.enqueueLinks(this.index, index);
    while (this.queue.length) {
      const path = this.queue.shift()!;
      const answer = await this.get(path);
      if (!answer) continue;
      const type = header(answer, 'content-type');
      if (/html/i.test(type)) this.enqueueLinks(readPage(answer.body), answer);
      else if (!this.description && /json|yaml/i.test(type)) {
        const read = readDescription(answer);
        if (typeof read !== 'string')
          this.description = { path: pathOf(answer.finalUrl), facts: descriptionFacts(read), text: answer.body };
      }
    }
  }

  /** A same-origin path for a reference, or undefined (off-origin ones are counted, never fetched). */
  sameOrigin(reference: string): string | undefined {
    if (!reference || /^(?:mailto|javascript|data|tel):/i.test(reference)) return undefined;
    if (!URL.canParse(reference, this.target)) return undefined;
    const url = new URL(reference, this.target);
    if (!/^https?:$/.test(url.protocol)) return undefined;
    if (url.origin !== this.target.origin) {
      if (this.offOrigin.size < 1000) this.offOrigin.add(url.origin);
      return undefined;
    }
    return `${url.pathname}${url.search}`;
  }

  enqueueLinks(page: Page | undefined, answer: Answer | undefined) {
    if (!page || !answer) return;
    this.droppedLinks += page.droppedLinks;
    for (const form of page.forms) {
      if (form.inputs.some((input) => input.type === 'password') && !this.loginForm) {
        this.loginForm = { pagePath: pathOf(answer.finalUrl), form };
        const csrf = form.inputs.find((input) => input.type === 'hidden' && CSRF_NAME.test(input.name));
        this.mark('AUTH_LOGIN_FORM', 'AUTH_CONFIDENCE_HIGH', `login form on ${pathOf(answer.finalUrl)}`, {
          signalType: 'SIGNAL_LOGIN_FORM_DETECTED',
          detail: `form posting to ${form.action || pathOf(answer.finalUrl)} with a password field`,
        });
        if (csrf)
          this.mark('AUTH_LOGIN_FORM', 'AUTH_CONFIDENCE_HIGH', '', {
            signalType: 'SIGNAL_CSRF_TOKEN',
            detail: `hidden anti-forgery field ${csrf.name}`,
          });
      }
    }
    for (const link of page.links) {
      if (link.rel.includes('stylesheet') || link.rel.includes('icon') || link.rel.includes('preload')) continue;
      const path = this.sameOrigin(link.href);
      if (!path) continue;
      const key = path.split('#')[0];
      if (this.queued.has(key) || this.observations.has(`GET ${key}`)) continue;
      if (!this.fetcher.allowed(key)) {
        this.robotsRefused.add(key);
        continue;
      }
      if (this.queue.length >= MAX_QUEUE) {
        this.droppedLinks++;
        continue;
      }
      this.queued.add(key);
      this.queue.push(key);
    }
  }

  async findGraphql(introspection: boolean) {
    const referenced = this.scripts.apiPaths.find((p) => /graphql/i.test(p));
    for (const path of new Set([
      ...(referenced ? [this.basePath + referenced] : []),
      ...GRAPHQL_PATHS.map((p) => this.basePath + p),
    ])) {
      if (!this.fetcher.allowed(path)) continue;
      const query = introspection ? '{ __schema { queryType { name } } }' : '{ __typename }';
      const answer = await this.fetcher.post(path, JSON.stringify({ query }), 'application/json');
      if (!answer || answer.status === 404 || answer.status === 405) continue;
      this.observe(answer);
      if (!/json/i.test(header(answer, 'content-type'))) continue;
      const allowed = /"__schema"\s*:\s*\{/.test(answer.body);
      if (allowed || /"(?:data|errors)"\s*:/.test(answer.body)) {
        this.graphql = { path, introspection: allowed };
        return;
      }
    }
  }

  async get(path: string): Promise<Answer | undefined> {
    const answer = await this.fetcher.get(path);
    if (answer) this.observe(answer);
    return answer;
  }

  mark(type: AuthMarkerType, confidence: Confidence, evidence: string, signal: AuthMarker['signals'][number]) {
    const marker = this.markers.get(type) ?? { type, confidence, evidence, signals: [] };
    const rank = ['AUTH_CONFIDENCE_LOW', 'AUTH_CONFIDENCE_MEDIUM', 'AUTH_CONFIDENCE_HIGH'];
    if (rank.indexOf(confidence) > rank.indexOf(marker.confidence)) marker.confidence = confidence;
    if (!marker.evidence) marker.evidence = evidence;
    if (
      marker.signals.length < 10 &&
      !marker.signals.some((s) => s.signalType === signal.signalType && s.detail === signal.detail)
    )
      marker.signals.push(signal);
    // Two independent signals of one kind make it more certain.
    if (new Set(marker.signals.map((s) => s.signalType)).size > 1 && marker.confidence === 'AUTH_CONFIDENCE_LOW')
      marker.confidence = 'AUTH_CONFIDENCE_MEDIUM';
    this.markers.set(type, marker);
  }

  /** Files an answer as a static, dynamic or auth-protected path, and reads its login signals. */
  observe(answer: Answer) {
    const path = pathOf(answer.url);
    const key = `${answer.method} ${path.split('#')[0]}`;
    if (this.observations.has(key)) return;
    const contentType = header(answer, 'content-type').toLowerCase();
    const extension = extensionOf(path);
    const location = answer.redirects[0]?.location ?? '';
    const redirectedToLogin = answer.redirects.length > 0 && LOGIN_PATH.test(new URL(location, answer.url).pathname);
    const challenge = header(answer, 'www-authenticate');
    let kind: Observation['kind'];
    let authEvidence: string | undefined;
    if (answer.status === 401 || answer.status === 403) {
      kind = 'auth';
      authEvidence = `${answer.status}${challenge ? ` with WWW-Authenticate: ${challenge.slice(0, 80)}` : ''}`;
      this.mark(
        'AUTH_PROTECTED_ENDPOINT',
        'AUTH_CONFIDENCE_MEDIUM',
        `${answer.method} ${path} answers ${answer.status} without a session`,
        {
          signalType: 'SIGNAL_STATUS_CODE_401_403',
          detail: `${answer.method} ${path} -> ${answer.status}`,
        },
      );
      if (LOGIN_PATH.test(path) || /^\/(?:api|v\d)\b/.test(path))
        this.mark('AUTH_PROTECTED_ENDPOINT', 'AUTH_CONFIDENCE_HIGH', '', {
          signalType: 'SIGNAL_PATH_PATTERN',
          detail: path,
        });
      if (challenge)
        this.mark('AUTH_WWW_AUTHENTICATE', 'AUTH_CONFIDENCE_HIGH', `WWW-Authenticate: ${challenge.slice(0, 80)}`, {
          signalType: 'SIGNAL_WWW_AUTHENTICATE',
          detail: `${path}: ${challenge.slice(0, 120)}`,
        });
      if (answer.method === 'GET' && !this.protectedPath)
        this.protectedPath = { path, evidence: authEvidence, status: answer.status };
    } else if (redirectedToLogin && pathOf(answer.finalUrl) !== path) {
      kind = 'auth';
      authEvidence = `${answer.redirects[0].status} to ${location.slice(0, 120)}`;
      this.mark(
        'AUTH_REDIRECT_TO_AUTH',
        'AUTH_CONFIDENCE_HIGH',
        `${path} sends the visitor to ${location.slice(0, 120)}`,
        {
          signalType: 'SIGNAL_REDIRECT_TO_AUTH',
          detail: `${path} -> ${answer.redirects[0].status} ${location.slice(0, 120)}`,
        },
      );
      if (!this.protectedPath)
        this.protectedPath = {
          path,
          evidence: authEvidence,
          redirect: new URL(location, answer.url).pathname,
          status: answer.redirects[0].status,
        };
    } else if (
      STATIC_EXTENSIONS.has(extension) ||
      /^(?:image|font|audio|video)\/|text\/css|javascript/.test(contentType) ||
      (/html/.test(contentType) &&
        !path.includes('?') &&
        answer.method === 'GET' &&
        !/<form[\s>]/i.test(answer.body) &&
        !header(answer, 'set-cookie') &&
        Boolean(header(answer, 'etag') || header(answer, 'last-modified')))
    )
      kind = 'static';
    else kind = 'dynamic';
    if (answer.status === 404 || (answer.status >= 500 && kind !== 'auth')) return; // not a path of the target
    for (const cookie of [answer.headers['set-cookie'] ?? []].flat().slice(0, 20)) {
      const name = cookie.split('=', 1)[0].trim();
      if (!SESSION_COOKIE.test(name)) continue;
      const flags = cookie.toLowerCase();
      const missing = [
        !flags.includes('httponly') && 'HttpOnly',
        this.target.protocol === 'https:' && !flags.includes('secure') && 'Secure',
        !flags.includes('samesite') && 'SameSite',
      ].filter(Boolean);
      this.mark('AUTH_SESSION_COOKIE', 'AUTH_CONFIDENCE_MEDIUM', `cookie ${name} set by ${path}`, {
        signalType: 'SIGNAL_SESSION_COOKIE',
        detail: `${name} (${missing.length ? `without ${missing.join(', ')}` : 'HttpOnly, SameSite'})`,
      });
      if (missing.length && this.cookieFlags.length < 5)
        this.cookieFlags.push(
          `The cookie ${name} is set without ${missing.join(', ')}: a scan will report it; set the flags`,
        );
    }
    if (OAUTH_PATH.test(path) && answer.status < 400)
      this.mark('AUTH_OAUTH_ENDPOINT', 'AUTH_CONFIDENCE_MEDIUM', `${path} looks like an OAuth endpoint`, {
        signalType: 'SIGNAL_OAUTH_PROMPT',
        detail: path,
      });
    const category: Observation['category'] =
      /javascript/.test(contentType) || extension === 'js' || extension === 'mjs'
        ? 'scripts'
        : kind === 'static'
          ? 'staticMedia'
          : 'dynamicContent';
    const bytes = Number(header(answer, 'content-length')) || Buffer.byteLength(answer.body);
    this.observations.set(key, {
      method: answer.method,
      url: answer.url,
      authEvidence,
      kind,
      contentType,
      bytes,
      category,
    });
  }

  login(): LoginFinding | undefined {
    if (this.loginForm) {
      const { form, pagePath } = this.loginForm;
      const password = form.inputs.find((input) => input.type === 'password')!;
      const user =
        form.inputs.find((i) => ['text', 'email'].includes(i.type) && USER_FIELD.test(i.name)) ??
        form.inputs.find((i) => ['text', 'email'].includes(i.type));
      const csrf = form.inputs.find((i) => i.type === 'hidden' && CSRF_NAME.test(i.name));
      const submit = form.inputs.find((i) => i.type === 'submit' && i.value);
      return {
        type: 'FORM',
        loginPagePath: pagePath,
        loginPath: this.sameOrigin(form.action || pagePath) ?? pagePath,
        usernameField: user?.name ?? 'username',
        passwordField: password.name,
        antiCsrfParam: csrf?.name,
        otherParams: submit ? [{ name: submit.name, val: submit.value }] : [],
      };
    }
    const json = this.description?.facts.jsonLogin ?? this.scripts.jsonLogin;
    if (json) return { type: 'JSON', ...json, loginPath: json.path };
    if (
      this.scripts.bearer ||
      this.description?.facts.bearer ||
      /bearer/i.test(this.markers.get('AUTH_WWW_AUTHENTICATE')?.evidence ?? '')
    )
      return { type: 'TOKEN' };
    return undefined;
  }

  /** Login markers from the API description or the front-end bundle. */
  private markFrontEndLogin() {
    const jsonLogin = this.description?.facts.jsonLogin ?? this.scripts.jsonLogin;
    if (jsonLogin)
      this.mark('AUTH_LOGIN_FORM', 'AUTH_CONFIDENCE_MEDIUM', `JSON login POST ${jsonLogin.path}`, {
        signalType: 'SIGNAL_PATH_PATTERN',
        detail: `POST ${jsonLogin.path} takes ${jsonLogin.usernameField} and ${jsonLogin.passwordField} as JSON${this.description?.facts.jsonLogin ? ` (from ${this.description.path})` : ' (from the front-end bundle)'}`,
      });
    if (this.scripts.bearer)
      this.mark('AUTH_PROTECTED_ENDPOINT', 'AUTH_CONFIDENCE_MEDIUM', 'the front end sends a bearer token', {
        signalType: 'SIGNAL_PATH_PATTERN',
        detail: `the front-end bundle sends Authorization: Bearer …${this.scripts.apiPaths.length ? ` to ${this.scripts.apiPaths.slice(0, 3).join(', ')}` : ''}`,
      });
  }

  /** What the target is: reachable, a single-page app, an API, with a login; and its classification. */
  private traits(markers: ProfileScanResult['authMarkers'], dynamicOrProtected: number) {
    const hasAuth = markers.some((m) => m.type !== 'AUTH_SESSION_COOKIE' || m.confidence !== 'AUTH_CONFIDENCE_LOW');
    const index = this.index;
    const reachable = Boolean(this.indexAnswer && this.indexAnswer.status < 500);
    const spa = Boolean(index && index.scripts.length && (index.mountPoint || index.textLength < 200));
    const indexJson = /json/i.test(header(this.indexAnswer ?? ({ headers: {} } as Answer), 'content-type'));
    const api = Boolean(this.description || this.graphql || indexJson);
    const hasForms = (index?.forms.length ?? 0) > 0 || Boolean(this.loginForm);

    let classification: Classification;
    if (!reachable) classification = 'APP_CLASSIFICATION_UNKNOWN';
    else if (spa && hasAuth) classification = 'APP_SPA_WITH_AUTH';
    else if (api && hasAuth) classification = 'APP_API_WITH_AUTH';
    else if (!dynamicOrProtected && !hasForms && !api) classification = 'APP_STATIC_SITE';
    else classification = 'APP_PUBLIC_WEBSITE';

    return { hasAuth, reachable, spa, api, index, classification };
  }

  /** Testability: what helps a scan reach the target's inputs, what stands in its way. */
  private testability(
    { reachable, api, spa, hasAuth, classification }: Traits,
    login: Login,
    suggestion: Suggestion,
    dynamicOrProtected: number,
  ) {
    const f = this.fetcher;
    const reasons: string[] = [];
    let points = 0;
    const add = (delta: number, reason: string) => {
      points += delta;
      reasons.push(reason);
    };
    if (!reachable)
      add(
        -3,
        `the target did not answer (${this.indexAnswer ? `status ${this.indexAnswer.status}` : 'no answer'}): nothing can be scanned until it does`,
      );
    if (this.description)
      add(
        2,
        `an ${this.description.facts.operations ? `API description with ${this.description.facts.operations} operations` : 'API description'} at ${this.description.path} lets the scan reach every operation`,
      );
    else if (api || spa) add(-1, 'no API description was found: the scan only reaches the operations its crawler sees');
    if (this.graphql)
      add(
        1,
        `a GraphQL endpoint at ${this.graphql.path}${this.graphql.introspection ? ' with introspection allowed' : ' (introspection refused)'}`,
      );
    if (login && login.type !== 'TOKEN' && suggestion.authComplete)
      add(2, `the login (${login.type} at ${login.loginPath}) can be configured from what was found`);
    else if (login?.type === 'TOKEN')
      add(0, 'the target takes bearer tokens but no login endpoint was found: supply a token (external TOKEN)');
    else if (hasAuth) add(-1, 'parts of the target need a session, but no login form or endpoint was found');
    if (suggestion.testPath) add(1, `${suggestion.testPath} shows whether the scan is logged in`);
    if (spa && !this.description)
      add(-1, "a single-page app's routes live in its scripts: a crawler without a browser sees few of them");
    if (classification === 'APP_STATIC_SITE')
      add(-1, 'a static site takes little input: a scan will find mostly header and configuration issues');
    if (dynamicOrProtected >= 3) add(1, `${dynamicOrProtected} dynamic or protected paths found`);
    if (f.stoppedBy)
      add(
        -1,
        `the profile stopped at its ${f.stoppedBy === 'REQUEST_BUDGET' ? `request budget (${f.requests} requests)` : `time budget (${Math.round((Date.now() - f.startedAt) / 1000)} s)`} with ${this.queue.length + this.droppedLinks} links not visited: the target is larger than what was seen`,
      );
    const score: Testability =
      points >= 3 ? 'TESTABILITY_HIGH' : points >= 1 ? 'TESTABILITY_MEDIUM' : 'TESTABILITY_LOW';

    return { reasons, score };
  }

  private recommendations({ api, spa, hasAuth }: Traits, login: Login, suggestion: Suggestion): string[] {
    const f = this.fetcher;
    const recommendations = [
      `Scan with this configuration (stackhawk.yml${suggestion.secrets.length ? `; set ${suggestion.secrets.join(' and ')} in the scanner's environment` : ''}), then check it with hawk-scanner validate:\n${suggestion.yaml}`,
    ];
    if (this.description)
      recommendations.push(
        `Make ${this.description.path} the application's hosted API description (the dashboard's "Use as hosted description", useDiscoveredOpenApiSpec, or uploadOASForApplication), or keep app.openApiConf.path pointing at it`,
      );
    else if (api || spa)
      recommendations.push(
        'Publish an OpenAPI description of the API (for example at /openapi.json) so that the scan reaches every operation',
      );
    for (const problem of this.descriptionProblems.slice(0, 3))
      recommendations.push(`The API description the target links could not be used: ${problem}`);
    if (this.graphql && !this.graphql.introspection)
      recommendations.push(
        `The GraphQL endpoint ${this.graphql.path} refuses introspection: provide its schema file to the scan (app.graphqlConf.filePath)`,
      );
    if (login?.type === 'TOKEN')
      recommendations.push(
        'Obtain a token for a test user and set it in HAWK_SCAN_AUTH_TOKEN, or add the login endpoint to the configuration (usernamePassword JSON with tokenExtraction)',
      );
    if (hasAuth && !login)
      recommendations.push(
        'Find how the target logs in (a form, a JSON endpoint or a token) and add app.authentication: the protected paths are not scanned without it',
      );
    recommendations.push(...this.cookieFlags);
    if (f.stoppedBy)
      recommendations.push(
        `Narrow the scan with app.includePaths / app.excludePaths: the profile stopped at its ${f.stoppedBy === 'REQUEST_BUDGET' ? 'request' : 'time'} budget before seeing the whole target`,
      );

    return recommendations;
  }

  private profileNotes(): string[] {
    const f = this.fetcher;
    const notes = [...f.notes];
    if (this.offOrigin.size)
      notes.push(
        `links to ${this.offOrigin.size} other origin(s) not followed (same origin only): ${[...this.offOrigin].slice(0, 5).join(', ')}`,
      );
    if (this.robotsRefused.size)
      notes.push(`${this.robotsRefused.size} paths not requested: robots.txt disallows them`);
    if (this.droppedLinks) notes.push(`${this.droppedLinks} links beyond the page's or the queue's bounds not kept`);
    if (f.stoppedBy)
      notes.push(
        `stopped by its ${f.stoppedBy === 'REQUEST_BUDGET' ? 'request' : 'time'} budget with ${this.queue.length} queued pages not visited`,
      );

    return notes;
  }

  result(options: ProfileOptions): ProfileScanResult {
    const f = this.fetcher;
    const observations = [...this.observations.values()];
    const of = (kind: Observation['kind']) => observations.filter((o) => o.kind === kind);
    const sample = (list: Observation[]) =>
      list
        .slice(0, SAMPLES)
        .map((o) => ({ method: o.method, url: o.url, ...(o.authEvidence ? { authEvidence: o.authEvidence } : {}) }));
    const staticPaths = of('static');
    const dynamicPaths = of('dynamic');
    const authPaths = of('auth');
    this.markFrontEndLogin();
    const markers = [...this.markers.values()];
    const traits = this.traits(markers, dynamicPaths.length + authPaths.length);
    const { classification, index } = traits;
    const login = this.login();
    const suggestion = suggestConfiguration({
      applicationId: options.applicationId,
      env: options.env,
      host: options.targetUrl.replace(/\/+$/, ''),
      login,
      protectedPath: this.protectedPath,
      openApiPath: this.description?.path,
      graphqlPath: this.graphql?.path,
      basePath: this.basePath,
    });
    const { reasons, score } = this.testability(traits, login, suggestion, dynamicPaths.length + authPaths.length);
    const recommendations = this.recommendations(traits, login, suggestion);
    const notes = this.profileNotes();
    const summary = assetSummary(observations);
    const build = buildStrategy(this.indexScripts, index);
    return {
      scanId: options.scanId,
      timestamp: Date.now(),
      classification,
      score,
      scoreReasons: reasons,
      recommendations,
      discoveredOpenapiSpecPath: this.description?.path ?? '',
      authConfigPresent: suggestion.authComplete,
      authMarkers: markers,
      paths: {
        total: observations.length,
        staticCount: staticPaths.length,
        dynamicCount: dynamicPaths.length,
        authProtectedCount: authPaths.length,
        samplesStatic: sample(staticPaths),
        samplesDynamic: sample(dynamicPaths),
        samplesAuthProtected: sample(authPaths),
      },
      assets: {
        buildStrategy: build.strategy,
        optimizationNotes: build.notes,
        totalAssets: summary.scripts.count + summary.staticMedia.count + summary.dynamicContent.count,
        totalSizeBytes:
          summary.scripts.totalSizeBytes + summary.staticMedia.totalSizeBytes + summary.dynamicContent.totalSizeBytes,
        assetSummary: summary,
      },
      suggestedScanConfig: suggestion.yaml,
      requestsSent: f.requests,
      durationMs: Date.now() - f.startedAt,
      stoppedBy: f.stoppedBy ?? '',
      notes: notes.slice(0, 50),
      ...(options.keepDescription && this.description ? { discoveredOpenapiSpec: this.description.text } : {}),
    };
  }
}

type Login = LoginFinding | undefined;
type Suggestion = ReturnType<typeof suggestConfiguration>;
/** What the profile found the target to be (the result's classification and testability). */
interface Traits {
  hasAuth: boolean;
  reachable: boolean;
  spa: boolean;
  api: boolean;
  index: Page | undefined;
  classification: Classification;
}

/** The observed assets by category, with their sizes and a few samples. */
function assetSummary(observations: Observation[]) {
  const counts = (category: Observation['category']): AssetCategoryCount => {
    const list = observations.filter((o) => o.category === category);
    return {
      count: list.length,
      totalSizeBytes: list.reduce((n, o) => n + o.bytes, 0),
      sampleUrls: list.slice(0, SAMPLES).map((o) => o.url),
    };
  };
  return {
    scripts: counts('scripts'),
    staticMedia: counts('staticMedia'),
    dynamicContent: counts('dynamicContent'),
  };
}

/** How the front end is built, from the index page's scripts. */
function buildStrategy(scripts: string[], index: Page | undefined): { strategy: BuildStrategy; notes: string[] } {
  if (!index || !scripts.length) return { strategy: 'BUILD_STRATEGY_UNKNOWN', notes: [] };
  const names = scripts.map((s) => s.split('?')[0].split('/').pop() ?? '');
  const hashed = names.filter((n) => /[.-][0-9a-f]{6,}\./i.test(n) || /[.-][A-Za-z0-9_]{8}\.js$/.test(n)).length;
  const vendor = names.some((n) => /vendor|chunk-vendors|framework|runtime|polyfills/i.test(n));
  const modules = index.scripts.some((s) => s.module);
  const notes: string[] = [];
  if (scripts.length > 1 && !hashed)
    notes.push('script names carry no content hash: browsers cannot cache them for long');
  if (scripts.length >= 4 || (modules && scripts.length >= 3))
    return {
      strategy: 'BUILD_CODE_SPLIT_OPTIMIZED',
      notes: [`${scripts.length} scripts loaded by the index page`, ...notes],
    };
  if (vendor && scripts.length >= 2) return { strategy: 'BUILD_VENDOR_APP_SPLIT', notes };
  if (scripts.length === 1) return { strategy: 'BUILD_SINGLE_BUNDLE', notes };
  return { strategy: 'BUILD_STRATEGY_UNKNOWN', notes };
}
