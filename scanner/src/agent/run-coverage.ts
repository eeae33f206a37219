// A hosted run's coverage record (docs/HOSTED-SCANS.md, Coverage), sent with its end: what the engine crawled (its
// own count), what it sent through the agent's proxy (the proxy's count, module by module as the engine started
// each), the session's renewals, and the verdict with its reasons.
import type { Run } from './run-context.ts';
import type { RunCoverage } from './coverage-record.ts';

export type { RunCoverage } from './coverage-record.ts';

export type Verdict = RunCoverage['verdict'];

/** Fewer pages crawled than this reads LOW_COVERAGE (HAWK_MIN_PAGES; 1 by default: a crawl that found nothing). */
const minPages = () => Number(process.env.HAWK_MIN_PAGES ?? 1);

/** The run's coverage record, once the engine told what it covered; undefined before (no attack ran). */
export function runCoverage(run: Run): RunCoverage | undefined {
  const engine = run.coverage.engine;
  if (!engine || !run.proxy) return undefined;
  const sent = run.proxy.sent();
  const starts = run.coverage.moduleStarts;
  const modules = engine.modules.map((module) => {
    const at = starts.findIndex((start) => start.name === module.name);
    const requests = at < 0 ? 0 : (starts[at + 1]?.sent ?? sent.requests) - starts[at].sent;
    return { ...module, requests };
  });
  const reasons: { verdict: Verdict; reason: string }[] = [];
  // Every request of a logged-in scan carries the session the agent holds: those that did not went out logged out,
  // and so did those sent while a failed testPath check found the session lost (session-health.ts).
  const lost = Math.min(run.relay?.unauthenticated() ?? 0, sent.authenticated);
  const authenticated = sent.authenticated - lost;
  const unauthenticated = run.login?.session ? sent.requests - authenticated : 0;
  if (unauthenticated > 0)
    reasons.push({
      verdict: 'AUTH_DEGRADED',
      reason:
        `${unauthenticated} of ${sent.requests} requests (${Math.round((100 * unauthenticated) / sent.requests)}%) went out without a valid session` +
        (run.relay?.relogins() ? `; the agent logged in again ${run.relay.relogins()} times` : ''),
    });
  for (const module of modules.filter((m) => m.cutAtTimeLimit))
    reasons.push({ verdict: 'PARTIAL', reason: `module ${module.name} was cut at its attack time` });
  const authorization = run.coverage.authorization;
  if (authorization?.cutBy)
    reasons.push({
      verdict: 'PARTIAL',
      reason: `the authorization phase was cut by ${authorization.cutBy === 'DEADLINE' ? "the run's deadline" : 'its request budget (hawk.authorization.maxRequests)'}`,
    });
  if (engine.pages < minPages())
    reasons.push({
      verdict: 'LOW_COVERAGE',
      reason: `${engine.pages} pages crawled, fewer than the minimum of ${minPages()} (HAWK_MIN_PAGES)`,
    });
  const order: Verdict[] = ['AUTH_DEGRADED', 'PARTIAL', 'LOW_COVERAGE'];
  const verdict = order.find((v) => reasons.some((r) => r.verdict === v)) ?? 'COMPLETE';
  return {
    pages: engine.pages,
    forms: engine.forms,
    requests: sent.requests,
    authenticatedRequests: authenticated,
    relogins: run.relay?.relogins() ?? 0,
    modules,
    durationSeconds: Math.round((Date.now() - run.openedAt) / 1000),
    deadlineSeconds: Math.max(0, Math.round((run.deadline - run.openedAt) / 1000)),
    verdict,
    reasons: reasons.map((r) => r.reason),
    ...(authorization ? { authorization } : {}),
  };
}

/** The record in one line of the run's log. */
export const coverageLine = (c: RunCoverage) =>
  `coverage: ${c.verdict}${c.reasons.length ? ` (${c.reasons.join('; ')})` : ''}: ${c.pages} pages, ${c.forms} forms, ` +
  `${c.requests} requests (${c.authenticatedRequests} with the session), ${c.relogins} re-logins; modules: ` +
  c.modules
    .map((m) => `${m.name} ${m.requests} requests, ${m.findings} findings${m.cutAtTimeLimit ? ', cut' : ''}`)
    .join('; ') +
  (c.authorization
    ? `; authorization: ${c.authorization.users.map((u) => `${u.name} ${u.replayed}`).join(', ')}, no session ${c.authorization.unauthenticatedReplayed} replayed, ${c.authorization.findings} findings`
    : '');
