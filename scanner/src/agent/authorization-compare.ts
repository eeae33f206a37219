// The authorization phase's judgement (docs/SCANNER-AUTH.md, Authorization testing), free of I/O: which of the
// primary user's crawled requests are replayed, and what a replay's answer means. A request is a candidate when the
// primary user got a 2xx for it and it carries identifiers (id-like path segments, query or body values, or ids in
// its JSON answer). A replay gets "the same object" when it is a 2xx of the same structure that holds the primary's
// identifiers. An endpoint that gives the same object without a session and none of the primary's private values is
// public (no finding); otherwise another user's (or no session's) same object is broken object level authorization
// when the request names the object by an identifier, and broken function level authorization when it names none
// (a function whose answer only the primary's session should reach).

/** A request and its answer as the proxy saw them (bodies as text, decoded). */
export interface Exchange {
  method: string;
  /** The path with its query string. */
  path: string;
  requestHeaders: Record<string, string | string[] | undefined>;
  requestBody: string;
  status: number;
  responseHeaders: Record<string, string | string[] | undefined>;
  responseBody: string;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An identifier in a request: where it is, its name (a path segment's is `{id}`), its value. */
export interface Identifier {
  where: 'path' | 'query' | 'body';
  name: string;
  value: string;
}

export interface Candidate {
  exchange: Exchange;
  /** The identifiers the request names the object by (none: a function). */
  requestIds: Identifier[];
  /** The ids of the primary's answer (values of id-like keys of its JSON). */
  responseIds: string[];
}

export const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const NUMBER = /^\d+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX_ID = /^(?=[a-f]*\d)[0-9a-f]{16,}$/i;
const TOKEN = /^(?=[^a-z]*[a-z])(?=\D*\d)[\w-]{20,}$/i;
/** Keys whose values identify an object or a person: id, userId, order_id, uuid, email, owner. */
const ID_KEY = /^(id|uuid|guid|email|owner|.*[a-z]Id|.*_id|.*Uuid)$/;
/** Shorter values match by chance (a 1 or a 42 is in most answers). */
const MIN_ID_LENGTH = 3;

export const idLike = (value: string) =>
  value.length >= MIN_ID_LENGTH && (NUMBER.test(value) || UUID.test(value) || HEX_ID.test(value) || TOKEN.test(value));

const header = (headers: Exchange['requestHeaders'], name: string) => [headers[name] ?? ''].flat().join(', ');

/** The identifiers a request names its object by. */
export function requestIdentifiers(exchange: Exchange): Identifier[] {
  const url = new URL(exchange.path, 'http://target');
  const ids: Identifier[] = url.pathname
    .split('/')
    .filter((segment) => idLike(decodeURIComponent(segment)))
    .map((segment) => ({ where: 'path', name: '{id}', value: decodeURIComponent(segment) }));
  for (const [name, value] of url.searchParams)
    if (idLike(value) || ID_KEY.test(name)) ids.push({ where: 'query', name, value });
  const type = header(exchange.requestHeaders, 'content-type');
  let fields: [string, unknown][] = [];
  if (/json/i.test(type)) fields = jsonFields(parseJson(exchange.requestBody));
  else if (/x-www-form-urlencoded/i.test(type)) fields = [...new URLSearchParams(exchange.requestBody)];
  for (const [name, value] of fields)
    if (typeof value === 'string' || typeof value === 'number')
      if (idLike(String(value)) || (ID_KEY.test(name) && String(value).length >= MIN_ID_LENGTH))
        ids.push({ where: 'body', name, value: String(value) });
  return ids;
}

/** The ids of a JSON answer: values of id-like keys, anywhere in it. */
export function responseIdentifiers(body: string): string[] {
  const ids = new Set<string>();
  for (const [name, value] of jsonFields(parseJson(body)))
    if ((typeof value === 'string' || typeof value === 'number') && ID_KEY.test(name)) {
      const text = String(value);
      if (text.length >= MIN_ID_LENGTH) ids.add(text);
    }
  return [...ids];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Every [key, value] of a JSON value, nested ones included (at most the first 10000). */
function jsonFields(value: unknown, out: [string, unknown][] = []): [string, unknown][] {
  if (out.length >= 10_000 || typeof value !== 'object' || value === null) return out;
  for (const [key, item] of Object.entries(value)) {
    out.push([key, item]);
    jsonFields(item, out);
  }
  return out;
}

/** The candidates among the primary's exchanges, and what was left out and why. */
export function candidatesOf(
  exchanges: readonly Exchange[],
  options: { excludePaths: readonly RegExp[]; replayUnsafeMethods: boolean },
): { candidates: Candidate[]; skippedUnsafe: number; excluded: number } {
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  let skippedUnsafe = 0;
  let excluded = 0;
  for (const exchange of exchanges) {
    const key = `${exchange.method} ${exchange.path} ${exchange.requestBody}`;
    if (exchange.status < 200 || exchange.status > 299 || seen.has(key)) continue;
    seen.add(key);
    const requestIds = requestIdentifiers(exchange);
    const responseIds = responseIdentifiers(exchange.responseBody);
    if (!requestIds.length && !responseIds.length) continue;
    if (options.excludePaths.some((pattern) => pattern.test(new URL(exchange.path, 'http://target').pathname)))
      excluded++;
    else if (UNSAFE_METHODS.has(exchange.method.toUpperCase()) && !options.replayUnsafeMethods) skippedUnsafe++;
    else candidates.push({ exchange, requestIds, responseIds });
  }
  return { candidates, skippedUnsafe, excluded };
}

/** How a replay's answer compares with the primary's. */
export interface Comparison {
  sameObject: boolean;
  /** The primary's identifiers found in the answer. */
  idsPresent: string[];
  /** The primary's private values (its user name, ...) found in the answer. */
  privatePresent: string[];
  /** Why, in words, for the evidence. */
  detail: string;
}

/** The set of key paths of a JSON value (array items share their path), or undefined for another body. */
function shapeOf(body: string): Set<string> | undefined {
  const value = parseJson(body);
  if (typeof value !== 'object' || value === null) return undefined;
  const paths = new Set<string>();
  const walk = (node: unknown, at: string) => {
    if (paths.size >= 10_000 || typeof node !== 'object' || node === null) return;
    for (const [key, item] of Object.entries(node)) {
      const path = Array.isArray(node) ? `${at}[]` : `${at}.${key}`;
      paths.add(path);
      walk(item, path);
    }
  };
  walk(value, '');
  return paths;
}

/** Whether two bodies have the same structure: most JSON key paths shared, else sizes within a fifth. */
export function sameStructure(a: string, b: string): boolean {
  const [left, right] = [shapeOf(a), shapeOf(b)];
  if (left && right) {
    const shared = [...left].filter((path) => right.has(path)).length;
    const all = new Set([...left, ...right]).size;
    return all === 0 || shared / all >= 0.8;
  }
  if (left || right) return false;
  const [small, large] = [a.length, b.length].sort((x, y) => x - y);
  return large === 0 || small / large >= 0.8;
}

const contains = (body: string, value: string) =>
  new RegExp(`(^|[^A-Za-z0-9])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9])`).test(body);

/** Compares a replay's answer with the primary's answer to the same request. */
export function compare(candidate: Candidate, answer: Answer, privateValues: readonly string[]): Comparison {
  const primary = candidate.exchange;
  const ids = candidate.responseIds.length
    ? candidate.responseIds
    : candidate.requestIds.map((id) => id.value).filter((value) => contains(primary.responseBody, value));
  const idsPresent = ids.filter((id) => contains(answer.body, id));
  const privatePresent = privateValues.filter((value) => value.length >= MIN_ID_LENGTH && answer.body.includes(value));
  const ok = answer.status >= 200 && answer.status <= 299;
  const structure = ok && sameStructure(primary.responseBody, answer.body);
  const sameObject = structure && ids.length > 0 && idsPresent.length * 2 >= ids.length;
  const detail =
    `status ${answer.status} (the primary's ${primary.status}), ${answer.body.length} bytes (the primary's ` +
    `${primary.responseBody.length}), ${structure ? 'the same' : 'another'} structure, ${idsPresent.length} of the ` +
    `primary's ${ids.length} identifiers` +
    (privatePresent.length ? `, ${privatePresent.length} of its private values` : '');
  return { sameObject, idsPresent, privatePresent, detail };
}

export const BOLA = { pluginId: 'hawk.authz.bola', name: 'Broken object level authorization', cweId: '639' } as const;
export const BFLA = { pluginId: 'hawk.authz.bfla', name: 'Broken function level authorization', cweId: '285' } as const;

/** Who a replay was sent as: another user (by name), or nobody (no session). */
export type Identity = { user: string } | { user?: undefined };

/** One replay of a candidate: as whom, and how its answer compares. */
export interface Replay {
  identity: Identity;
  answer: Answer;
  comparison: Comparison;
}

export interface Verdict<R extends Replay = Replay> {
  kind: typeof BOLA | typeof BFLA;
  /** The replays that got the primary's object or function. */
  broken: R[];
}

/**
 * What a candidate's replays show: undefined when access is controlled, or public (the same object without a
 * session and none of the primary's private values).
 */
export function judge<R extends Replay>(
  candidate: Candidate,
  replays: readonly R[],
  options: { reportUnauthenticated: boolean },
): Verdict<R> | undefined {
  const anonymous = replays.find((replay) => replay.identity.user === undefined);
  if (anonymous?.comparison.sameObject && !anonymous.comparison.privatePresent.length) return undefined;
  const broken = replays.filter(
    (replay) => replay.comparison.sameObject && (replay.identity.user !== undefined || options.reportUnauthenticated),
  );
  if (!broken.length) return undefined;
  return { kind: candidate.requestIds.length ? BOLA : BFLA, broken };
}

/** The parameter a finding is about (its findingHash's): the first identifier's name, '' for a function. */
export const paramOf = (candidate: Candidate) => {
  const id = candidate.requestIds[0];
  return id ? (id.where === 'path' ? `path:${id.name}` : id.name) : '';
};
