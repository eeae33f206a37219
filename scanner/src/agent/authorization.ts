// The authorization phase of a hosted run (docs/SCANNER-AUTH.md, Authorization testing): after the engine, the
// primary user's crawled requests that carry identifiers (the pinning proxy kept them) are replayed as every other
// user of `hawk.authorization` and without a session, through the same proxy (the target at its pinned address),
// and each answer is compared with the primary's (authorization-compare.ts). Unsafe methods only when the
// configuration allows them; the request budget and the run's deadline bound it; its figures go into the coverage.
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { fitBytes, type ReportedAlert, type ReportedUri } from '../zap/reported.ts';
import type { RecordedExchange, ReplayedRequest } from './pinning-proxy.ts';
import { RunFailed, type Run } from './run-context.ts';
import {
  BFLA,
  BOLA,
  candidatesOf,
  compare,
  judge,
  paramOf,
  type Answer,
  type Candidate,
  type Exchange,
  type Identity,
  type Replay,
  type Verdict,
} from './authorization-compare.ts';
import type { AuthorizationCoverage } from './coverage-record.ts';

type Sent = Replay & { request: ReplayedRequest };
type Found = { candidate: Candidate; verdict: Verdict<Sent> };

/** The phase's requests unless hawk.authorization.maxRequests says otherwise. */
export const DEFAULT_MAX_REQUESTS = 1000;
/** The longest a replay's answer is waited for. */
const REPLAY_TIMEOUT_MS = 30_000;
/** Time left before the run's deadline for its findings and its end. */
const DEADLINE_MARGIN_MS = 60_000;
/** Headers of the engine's requests that carry a session, never replayed as another identity. */
const SESSION_HEADERS = ['cookie', 'authorization', 'proxy-authorization', 'content-length', 'transfer-encoding'];

/**
 * Runs the phase when the configuration has other users; answers its findings. `only`: the exchanges to test in
 * place of the primary user's crawl (a retest's one request, retestAuthorization).
 */
export async function testAuthorization(run: Run, only?: RecordedExchange[]): Promise<ReportedAlert[]> {
  const primary = run.login?.session;
  const settings = primary?.config.hawk?.authorization;
  if (!primary || !settings || !run.proxy) return [];
  run.proxy.record(false);
  const startedAt = Date.now();
  const recorded = (only ?? run.proxy.recorded()).map(decoded);
  const { candidates, skippedUnsafe, excluded } = candidatesOf(recorded, {
    excludePaths: (settings.excludePaths ?? []).map((pattern) => new RegExp(pattern)),
    replayUnsafeMethods: settings.replayUnsafeMethods === true,
  });
  const users = run.login!.users;
  const figures: AuthorizationCoverage = {
    candidates: candidates.length,
    users: users.map((user) => ({ name: user.name, replayed: 0 })),
    unauthenticatedReplayed: 0,
    skippedUnsafe,
    excluded,
    findings: 0,
    cutBy: '',
    durationSeconds: 0,
  };
  run.coverage.authorization = figures;
  run.log.add(
    `authorization: ${recorded.length} requests of the primary user's crawl, ${candidates.length} carrying identifiers replayed as ${users.map((u) => u.name).join(', ')} and without a session` +
      (skippedUnsafe ? `; ${skippedUnsafe} of unsafe methods not replayed (replayUnsafeMethods is off)` : '') +
      (excluded ? `; ${excluded} left alone by excludePaths` : ''),
  );
  const primaryHeaders = Object.keys(await primary.session.headers()).map((name) => name.toLowerCase());
  const identities: { identity: Identity; headers: () => Promise<Record<string, string>> }[] = [
    ...users.map((user) => ({ identity: { user: user.name }, headers: () => user.session.headers() })),
    { identity: {}, headers: async () => ({}) },
  ];
  const privateValues = [primary.config.app.authentication.usernamePassword?.scanUsername ?? ''].filter(Boolean);
  const budget = { left: settings.maxRequests ?? DEFAULT_MAX_REQUESTS };
  const verdicts: Found[] = [];
  const failures = new Set<string>();
  for (const candidate of candidates) {
    const cut = budget.left < identities.length ? 'REQUEST_BUDGET' : Date.now() > phaseDeadline(run) ? 'DEADLINE' : '';
    if (cut || run.engineStop.signal.aborted) {
      figures.cutBy = cut || figures.cutBy;
      break;
    }
    const replays: Sent[] = [];
    for (const { identity, headers } of identities) {
      budget.left--;
      const request = replayed(candidate.exchange, primaryHeaders, await headers());
      const answer = await replayOnce(run, request, failures);
      if (!answer) break;
      const counted = figures.users.find((user) => user.name === identity.user);
      if (counted) counted.replayed++;
      else figures.unauthenticatedReplayed++;
      replays.push({ identity, request, answer, comparison: compare(candidate, answer, privateValues) });
    }
    // A candidate is judged on all its replays or not at all (one without an answer tells nothing).
    if (replays.length < identities.length) continue;
    const verdict = judge(candidate, replays, { reportUnauthenticated: settings.testUnauthenticated !== false });
    if (verdict) verdicts.push({ candidate, verdict });
  }
  figures.findings = verdicts.length;
  figures.durationSeconds = Math.round((Date.now() - startedAt) / 1000);
  if (figures.cutBy)
    run.log.add(
      `authorization: cut short by ${figures.cutBy === 'DEADLINE' ? "the run's deadline" : 'its request budget'}`,
    );
  run.log.add(`authorization: ${verdicts.length} findings`);
  const sessions = await Promise.all(identities.map((identity) => identity.headers()));
  const masked = new Set([...primaryHeaders, ...sessions.flatMap((h) => Object.keys(h).map((n) => n.toLowerCase()))]);
  return alertsOf(run, verdicts, masked);
}

/**
 * The retest of an authorization finding (docs/HOSTED-SCANS.md, Retests): its one request sent as the primary user
 * through the proxy, then replayed as every other user and without a session and compared as in the phase. Answers
 * what it found again (nothing: fixed). A request the primary user no longer gets (not 2xx), or that carries no
 * identifier, cannot be compared: the retest fails saying so rather than reading FIXED. Unsafe methods are not
 * retested: the finding does not keep its request's body.
 */
export async function retestAuthorization(run: Run): Promise<ReportedAlert[]> {
  const focus = run.command.retest!;
  const primary = run.login?.session;
  if (!primary?.config.hawk?.authorization || !run.login?.users.length)
    throw new RunFailed(
      'UNKNOWN',
      'an authorization finding is retested as the users of hawk.authorization: the configuration names none',
    );
  const method = focus.method.toUpperCase();
  if (UNSAFE.has(method))
    throw new RunFailed(
      'UNKNOWN',
      `a ${method} authorization finding cannot be retested: its request body is not kept`,
    );
  const url = new URL(focus.url);
  const path = `${url.pathname}${url.search}`;
  const engineHeaders = { accept: '*/*' };
  run.log.add(`authorization retest: ${method} ${path} as the primary user, then as the other users`);
  const answer = await run.proxy!.replay({
    method,
    path,
    headers: { ...engineHeaders, ...(await primary.session.headers()) },
    body: Buffer.alloc(0),
    timeoutMs: Math.max(1, Math.min(REPLAY_TIMEOUT_MS, phaseDeadline(run) - Date.now())),
  });
  const exchange: RecordedExchange = {
    method,
    path,
    requestHeaders: engineHeaders,
    requestBody: Buffer.alloc(0),
    status: answer.status,
    responseHeaders: answer.headers,
    responseBody: answer.body,
  };
  const ok = answer.status >= 200 && answer.status <= 299;
  if (!ok || !candidatesOf([decoded(exchange)], COMPARED).candidates.length)
    throw new RunFailed(
      'UNKNOWN',
      `the primary user's request ${method} ${path} answers ${answer.status}${ok ? ' with no identifier' : ''}: there is nothing to compare the other users' answers with`,
    );
  return testAuthorization(run, [exchange]);
}

/** The plugins of the phase's findings: a retest of one of them is an authorization retest. */
export const AUTHORIZATION_PLUGINS: string[] = [BOLA.pluginId, BFLA.pluginId];

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const COMPARED = { excludePaths: [], replayUnsafeMethods: false };

const phaseDeadline = (run: Run) => run.deadline - DEADLINE_MARGIN_MS;

/**
 * One replay through the proxy, waiting at most REPLAY_TIMEOUT_MS (and not past the phase's deadline); a failure is
 * logged (each kind once) and answers undefined.
 */
async function replayOnce(run: Run, request: ReplayedRequest, failures: Set<string>): Promise<Answer | undefined> {
  const timeoutMs = Math.max(1, Math.min(REPLAY_TIMEOUT_MS, phaseDeadline(run) - Date.now()));
  try {
    return textOf(await run.proxy!.replay({ ...request, timeoutMs }));
  } catch (error) {
    const message = (error as Error).message;
    if (!failures.has(message) && failures.size < 20) {
      failures.add(message);
      run.log.add(`authorization: the replay of ${request.method} ${request.path} failed: ${message}`);
    }
    return undefined;
  }
}

/** The primary's request as another identity: the engine's headers without any session, with the identity's. */
function replayed(exchange: Exchange, primaryHeaders: string[], sessionHeaders: Record<string, string>) {
  const headers: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(exchange.requestHeaders))
    if (!SESSION_HEADERS.includes(name) && !primaryHeaders.includes(name)) headers[name] = value;
  for (const [name, value] of Object.entries(sessionHeaders)) headers[name.toLowerCase()] = value;
  return { method: exchange.method, path: exchange.path, headers, body: Buffer.from(exchange.requestBody) };
}

/** A recorded exchange with its bodies as text (the engine may have asked for a compressed answer). */
function decoded(recorded: RecordedExchange): Exchange {
  return {
    method: recorded.method,
    path: recorded.path,
    requestHeaders: recorded.requestHeaders,
    requestBody: recorded.requestBody.toString('utf8'),
    status: recorded.status,
    responseHeaders: recorded.responseHeaders,
    responseBody: textOf({ status: recorded.status, headers: recorded.responseHeaders, body: recorded.responseBody })
      .body,
  };
}

function textOf(answer: { status: number; headers: Answer['headers']; body: Buffer }): Answer {
  const encoding = String(answer.headers['content-encoding'] ?? '').toLowerCase();
  let body = answer.body;
  try {
    if (encoding === 'gzip') body = gunzipSync(body);
    else if (encoding === 'deflate') body = inflateSync(body);
    else if (encoding === 'br') body = brotliDecompressSync(body);
  } catch {
    // a body cut at the recorded size does not inflate: compared as it is
  }
  return { status: answer.status, headers: answer.headers, body: body.toString('utf8') };
}

/** The verdicts as the reporting operations take them: one finding per request, its evidence the first break. */
function alertsOf(run: Run, verdicts: Found[], masked: Set<string>): ReportedAlert[] {
  const alerts = new Map<string, ReportedAlert>();
  for (const { candidate, verdict } of verdicts) {
    const { kind } = verdict;
    const bola = kind === BOLA;
    const alert = alerts.get(kind.pluginId) ?? {
      ...kind,
      severity: 'High' as const,
      description: bola ? BOLA_DESCRIPTION : BFLA_DESCRIPTION,
      references: [
        `https://owasp.org/API-Security/editions/2023/en/${bola ? '0xa1-broken-object-level-authorization' : '0xa5-broken-function-level-authorization'}/`,
        `https://cwe.mitre.org/data/definitions/${kind.cweId}.html`,
      ],
      uris: [],
    };
    alerts.set(kind.pluginId, alert);
    alert.uris.push(findingOf(run, candidate, verdict, masked));
  }
  return [...alerts.values()];
}

const BOLA_DESCRIPTION =
  "Another user, or a request without a session, got the primary user's object by its identifier: the target does " +
  'not check that the object belongs to the caller (OWASP API1:2023).\n\nSolution:\nCheck on every request that ' +
  "the caller may access the object the identifier names, on the server, from the caller's session.";
const BFLA_DESCRIPTION =
  'Another user, or a request without a session, got the same answer as the primary user from a function only the ' +
  "primary user's session reached: the target does not check the caller's role (OWASP API5:2023).\n\nSolution:\n" +
  "Check on every request that the caller's role may use the function, on the server.";

/** What a finding's message may hold besides its bodies, and the most of the primary's exchange in otherInfo. */
const MESSAGE_BYTES = 280_000;
const OTHER_INFO_CHARACTERS = 16_000;

/** One finding: the other identity's request and answer as the message, the primary's in otherInfo. */
function findingOf(run: Run, candidate: Candidate, verdict: Verdict<Sent>, masked: Set<string>): ReportedUri {
  const primary = candidate.exchange;
  const first = verdict.broken[0];
  const who = (identity: Identity) => (identity.user ? `user ${identity.user}` : 'no session');
  const url = new URL(primary.path, run.command.targetUrl).href;
  const headers = (list: Answer['headers']) => headerText(list, masked);
  const message = {
    evidence: verdict.broken
      .map((b) => `${who(b.identity)}: ${b.comparison.detail}`)
      .join('\n')
      .slice(0, 4096),
    otherInfo:
      `Replayed as ${verdict.broken.map((b) => who(b.identity)).join(', ')}. The primary user's request and answer:\n\n` +
      `${primary.method} ${primary.path}\n${headers(primary.requestHeaders)}\n\n${primary.requestBody}\n\n` +
      `HTTP/1.1 ${primary.status}\n${headers(primary.responseHeaders)}\n\n${primary.responseBody}`,
    requestHeader: `${primary.method} ${url} HTTP/1.1\n${headers(first.request.headers)}`,
    responseHeader: `HTTP/1.1 ${first.answer.status}\n${headers(first.answer.headers)}`,
  };
  message.otherInfo = fitBytes(message.otherInfo.slice(0, OTHER_INFO_CHARACTERS), OTHER_INFO_CHARACTERS);
  const room = MESSAGE_BYTES - Buffer.byteLength(Object.values(message).join(''));
  const requestBody = fitBytes(first.request.body.toString('utf8'), Math.floor(room / 4));
  return {
    uri: url,
    requestMethod: primary.method,
    param: paramOf(candidate),
    ...message,
    requestBody,
    responseBody: fitBytes(first.answer.body, room - Buffer.byteLength(requestBody)),
  };
}

/** Headers as lines, the values of those carrying a session shown as *** (secrets are never reported). */
const headerText = (headers: Answer['headers'], masked: Set<string>) =>
  Object.entries(headers)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) =>
      masked.has(name.toLowerCase()) || /^(cookie|set-cookie|authorization|proxy-authorization)$/i.test(name)
        ? `${name}: ***`
        : `${name}: ${[value].flat().join(', ')}`,
    )
    .join('\n');
