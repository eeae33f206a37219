// The profile's only way to the target: same origin only, at the address resolved once (scanner/src/net), within a
// request budget and a time budget, spaced by a minimum interval (or robots.txt's Crawl-delay), each answer cut at
// a size and a time, redirects followed by hand (same origin, a few hops). docs/PROFILE-SCANS.md, "Bounds".
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface Budget {
  /** Requests the whole profile may send (robots.txt included). */
  maxRequests: number;
  /** Wall time of the whole profile. */
  maxMs: number;
  /** Least time between two requests (robots.txt's Crawl-delay, up to MAX_CRAWL_DELAY_MS, raises it). */
  minIntervalMs: number;
  /** One answer's time, headers and body together (a slow drip is cut there). */
  requestTimeoutMs: number;
  /** The largest body read of a page or script; larger ones are cut (and said so). */
  maxBodyBytes: number;
  /** The largest body read of a candidate API description. */
  maxDescriptionBytes: number;
  maxRedirects: number;
}

export const DEFAULT_BUDGET: Budget = {
  maxRequests: 150,
  maxMs: 60_000,
  minIntervalMs: 50,
  requestTimeoutMs: 5_000,
  maxBodyBytes: 512 * 1024,
  maxDescriptionBytes: 2 * 1024 * 1024,
  maxRedirects: 5,
};

const MAX_CRAWL_DELAY_MS = 5_000;

export interface Answer {
  /** The URL asked for, and where the answer came from after redirects. */
  url: string;
  finalUrl: string;
  method: string;
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body was longer than the cap (or the answer ran past its time) and was cut. */
  truncated: boolean;
  /** The redirects followed, each `status location`. */
  redirects: { status: number; location: string }[];
}

export type StopReason = 'REQUEST_BUDGET' | 'TIME_BUDGET';

export class BudgetSpent extends Error {
  constructor(readonly reason: StopReason) {
    super(reason === 'REQUEST_BUDGET' ? 'request budget spent' : 'time budget spent');
  }
}

export interface Fetcher {
  get(path: string, options?: { description?: boolean; accept?: string }): Promise<Answer | undefined>;
  post(path: string, body: string, contentType: string): Promise<Answer | undefined>;
  /** Whether robots.txt lets us ask for the path. */
  allowed(path: string): boolean;
  applyRobots(rules: RobotsRules): void;
  readonly requests: number;
  readonly stoppedBy: StopReason | undefined;
  readonly startedAt: number;
  notes: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A fetcher of `origin`'s paths at `address`. Every request counts against the budget; once it is spent, get/post
 * throw BudgetSpent (the profile stops and says why). Transport failures answer undefined and leave a note.
 */
export function createFetcher(origin: URL, address: string, budget: Budget, signal?: AbortSignal): Fetcher {
  const https = origin.protocol === 'https:';
  const port = Number(origin.port || (https ? 443 : 80));
  const startedAt = Date.now();
  let requests = 0;
  let last = 0;
  let interval = budget.minIntervalMs;
  let stoppedBy: StopReason | undefined;
  let disallowed: RobotsRules = { disallow: [], allow: [] };
  const notes: string[] = [];
  const note = (text: string) => {
    if (notes.length < 50 && !notes.includes(text)) notes.push(text);
  };

  const spend = async () => {
    if (stoppedBy) throw new BudgetSpent(stoppedBy);
    if (requests >= budget.maxRequests) throw new BudgetSpent((stoppedBy = 'REQUEST_BUDGET'));
    const wait = last + interval - Date.now();
    if (Date.now() + Math.max(0, wait) - startedAt >= budget.maxMs) throw new BudgetSpent((stoppedBy = 'TIME_BUDGET'));
    if (wait > 0) await sleep(wait);
    if (signal?.aborted) throw new BudgetSpent((stoppedBy = 'TIME_BUDGET'));
    requests++;
    last = Date.now();
  };

  const once = (method: string, url: URL, headers: Record<string, string>, body: string | undefined, cap: number) => {
    const left = budget.maxMs - (Date.now() - startedAt);
    const timeoutMs = Math.max(1, Math.min(budget.requestTimeoutMs, left));
    return requestOnce({ origin, address, port, https, timeoutMs, note }, method, url, headers, body, cap);
  };

  const send = async (
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    cap: number,
  ): Promise<Answer | undefined> => {
    let url = new URL(path, origin);
    const redirects: Answer['redirects'] = [];
    const seen = new Set<string>([url.href]);
    for (;;) {
      await spend();
      const answer = await once(method, url, headers, body, cap);
      if (!answer) return undefined;
      const location = answer.headers.location;
      if (answer.status < 300 || answer.status >= 400 || !location || method !== 'GET')
        return { url: new URL(path, origin).href, finalUrl: url.href, method, redirects, ...answer };
      redirects.push({ status: answer.status, location });
      const next = URL.canParse(location, url) ? new URL(location, url) : undefined;
      const stop = (why: string) => {
        note(`GET ${new URL(path, origin).pathname}: ${why}`);
        return { url: new URL(path, origin).href, finalUrl: url.href, method, redirects, ...answer };
      };
      if (!next || next.origin !== origin.origin) return stop(`redirect to another origin not followed (${location})`);
      if (seen.has(next.href)) return stop('redirect loop');
      if (redirects.length > budget.maxRedirects) return stop(`more than ${budget.maxRedirects} redirects`);
      seen.add(next.href);
      url = next;
    }
  };

  return {
    get: (path, options = {}) =>
      send(
        'GET',
        path,
        { accept: options.accept ?? 'text/html,application/json;q=0.9,*/*;q=0.8' },
        undefined,
        options.description ? budget.maxDescriptionBytes : budget.maxBodyBytes,
      ),
    post: (path, body, contentType) =>
      send('POST', path, { 'content-type': contentType, accept: 'application/json' }, body, budget.maxDescriptionBytes),
    allowed: (path) => robotsAllow(disallowed, path),
    get requests() {
      return requests;
    },
    get stoppedBy() {
      return stoppedBy;
    },
    startedAt,
    notes,
    applyRobots(rules) {
      disallowed = rules;
      if (rules.crawlDelayMs !== undefined)
        interval = Math.max(budget.minIntervalMs, Math.min(rules.crawlDelayMs, MAX_CRAWL_DELAY_MS));
    },
  };
}

/** Where and how a fetcher sends one request: the target's origin at its pinned address, within a time. */
interface Exchange {
  origin: URL;
  address: string;
  port: number;
  https: boolean;
  timeoutMs: number;
  note: (text: string) => void;
}

/** One request, its answer's body kept up to `cap` bytes; undefined when no answer came (a note says why). */
function requestOnce(
  { origin, address, port, https, timeoutMs, note }: Exchange,
  method: string,
  url: URL,
  headers: Record<string, string>,
  body: string | undefined,
  cap: number,
): Promise<Omit<Answer, 'url' | 'finalUrl' | 'redirects' | 'method'> | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    const chunks: Buffer[] = [];
    let size = 0;
    let status = 0;
    let responseHeaders: IncomingHttpHeaders = {};
    const finish = (truncated: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      if (!status) return resolve(undefined);
      resolve({ status, headers: responseHeaders, body: Buffer.concat(chunks).toString('utf8'), truncated });
    };
    const req = (https ? httpsRequest : httpRequest)(
      {
        host: address,
        port,
        method,
        path: `${url.pathname}${url.search}`,
        headers: {
          host: origin.host,
          'user-agent': 'hawk-scanner profile (+https://github.com/hawk-api)',
          'accept-encoding': 'identity',
          ...headers,
          ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
        },
        ...(https ? { servername: origin.hostname } : {}),
      },
      (res) => {
        status = res.statusCode ?? 0;
        responseHeaders = res.headers;
        res.on('data', (chunk: Buffer) => {
          if (settled) return;
          const room = cap - size;
          if (chunk.length >= room) {
            chunks.push(chunk.subarray(0, room));
            size = cap;
            note(`${method} ${url.pathname}: answer cut at ${cap} bytes`);
            return finish(true);
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => finish(false));
        res.on('error', () => finish(true));
      },
    );
    const timer = setTimeout(() => {
      note(`${method} ${url.pathname}: no complete answer within ${timeoutMs} ms (cut)`);
      finish(true);
    }, timeoutMs);
    req.on('error', (error: Error & { code?: string }) => {
      note(`${method} ${url.pathname}: ${error.code ?? error.message}`);
      finish(true);
    });
    req.end(body);
  });
}

export interface RobotsRules {
  disallow: string[];
  allow: string[];
  crawlDelayMs?: number;
}

/**
 * The rules of robots.txt for any agent (`*`) or ours (`hawk-scanner`), read line by line without building a regular
 * expression from its text: `*` and a trailing `$` are matched by robotsMatch.
 */
export function parseRobots(text: string): RobotsRules {
  const groups: { agents: string[]; rules: RobotsRules }[] = [];
  let current: { agents: string[]; rules: RobotsRules } | undefined;
  let lastWasAgent = false;
  for (const raw of text.split('\n').slice(0, 2000)) {
    const line = raw.split('#', 1)[0].trim();
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === 'user-agent') {
      if (!current || !lastWasAgent) groups.push((current = { agents: [], rules: { disallow: [], allow: [] } }));
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (!current) continue;
    if (field === 'disallow' && value) current.rules.disallow.push(value.slice(0, 512));
    else if (field === 'allow' && value) current.rules.allow.push(value.slice(0, 512));
    else if (field === 'crawl-delay' && Number.isFinite(Number(value)))
      current.rules.crawlDelayMs = Number(value) * 1000;
  }
  const ours = groups.find((g) => g.agents.some((a) => a !== '*' && 'hawk-scanner'.includes(a)));
  return ours?.rules ?? groups.find((g) => g.agents.includes('*'))?.rules ?? { disallow: [], allow: [] };
}

/** Whether `path` matches a robots.txt pattern: a prefix, with `*` for any run of characters and `$` for the end. */
export function robotsMatch(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const parts = (anchored ? pattern.slice(0, -1) : pattern).split('*');
  if (!path.startsWith(parts[0])) return false;
  let at = parts[0].length;
  for (let i = 1; i < parts.length; i++) {
    const found = i === parts.length - 1 && anchored ? path.lastIndexOf(parts[i]) : path.indexOf(parts[i], at);
    if (found < at) return false;
    at = found + parts[i].length;
  }
  return !anchored || at === path.length;
}

/** The longest matching rule wins; Allow wins a tie (as the robots.txt standard, RFC 9309, says). */
export function robotsAllow(rules: RobotsRules, path: string): boolean {
  let best = -1;
  let allow = true;
  for (const pattern of rules.disallow)
    if (pattern.length > best && robotsMatch(pattern, path)) [best, allow] = [pattern.length, false];
  for (const pattern of rules.allow)
    if (pattern.length >= best && robotsMatch(pattern, path)) [best, allow] = [pattern.length, true];
  return allow;
}

/** Reads robots.txt (one request) and applies its rules and Crawl-delay to the fetcher. */
export async function readRobots(fetcher: Fetcher): Promise<RobotsRules | undefined> {
  const answer = await fetcher.get('/robots.txt', { accept: 'text/plain' });
  if (!answer || answer.status !== 200) return undefined;
  const rules = parseRobots(answer.body);
  fetcher.applyRobots(rules);
  return rules;
}
