// Carries out one hosted scan (a SCAN_START command) from its acknowledgement to its end, as a state machine
// (docs/HOSTED-SCANS.md, The agent): acknowledged -> preparing (the engine, the scan's announcement, the target
// pinned and probed, the proxy) -> logged in (login and testPath before any attack) -> attacking (the engine) ->
// reporting (the findings in batches) -> ended (one endScanRun call: the scan's completion, the log and the run's
// end). Every failure ends the scan in ERROR with the reason (AUTHENTICATION, PROVISIONING, DEVICE or UNKNOWN) and
// the log says what to do: a failed scan is never a clean one.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { agentVariables, withScanSecrets } from '../auth/index.ts';
import { pinnedAddress, TargetRefused } from '../net/addresses.ts';
import { pinnedFetch } from '../net/pinned-fetch.ts';
import { reportBatches, type ReportedAlert } from '../zap/reported.ts';
import { EngineError, EngineStopped, type Engine } from '../engines/engine.ts';
import { ServiceError } from '../net/service.ts';
import { serviceCall } from '../api/call.ts';
import { startPinningProxy } from './pinning-proxy.ts';
import { sessionRelay } from './session-relay.ts';
import { watchSessionHealth } from './session-health.ts';
import {
  openRun,
  phase,
  report,
  reported,
  RunFailed,
  stillOn,
  stopEngine,
  type Run,
  type RunContext,
  type RunState,
  type StartCommand,
} from './run-context.ts';
import { authenticates, logIn } from './run-login.ts';
import { reachable } from './run-probe.ts';
import { coverageLine, runCoverage } from './run-coverage.ts';
import { AUTHORIZATION_PLUGINS, retestAuthorization, testAuthorization } from './authorization.ts';

export { RunLog } from './run-log.ts';
export type { RunContext, StartCommand } from './run-context.ts';

/** Findings reports sent at once (each is stored in its own request; the service counts them apart). */
const REPORT_CONCURRENCY = 3;

/** Each state's work, which answers the next state; `ended` is reached by `end`, on success or failure. */
export const transitions: Record<Exclude<RunState, 'ended'>, (run: Run) => Promise<RunState>> = {
  acknowledged: prepare,
  preparing: logInToTarget,
  'logged in': attack,
  attacking: authorize,
  authorizing: reportFindings,
  reporting: async (run) => end(run, { state: 'COMPLETED' }),
};

export async function carryOut(command: StartCommand, context: RunContext): Promise<'COMPLETED' | 'ERROR'> {
  const run = openRun(command, context, await mkdtemp(join(tmpdir(), 'hawk-agent-')));
  try {
    while (run.state !== 'ended') run.state = await transitions[run.state](run);
    return 'COMPLETED';
  } catch (error) {
    await end(run, { state: 'ERROR', error: failureOf(run, error) });
    return 'ERROR';
  } finally {
    stopEngine(run);
    await run.proxy?.close();
    if (run.uploads.behind()) await run.uploads.send(); // lines added since the end, or an end that failed
    await rm(run.workDir, { recursive: true, force: true });
  }
}

/**
 * acknowledged -> preparing: the first installed engine, the scan's announcement (on its way, recorded on the run
 * in the same call), the target's address pinned, its probe sent, the pinning proxy started.
 */
export async function prepare(run: Run): Promise<RunState> {
  const { command, context, log } = run;
  log.add(
    `scan ${command.scanKey} of application ${command.applicationId}, environment ${command.env}, target ${command.targetUrl}`,
  );
  if (command.configuration) log.add(`configuration: ${command.configuration}`);
  run.engine = await firstInstalled(context.engines, run);
  log.add('phase: started');
  // A retest reports no scan (docs/HOSTED-SCANS.md, Retests): its outcome goes with its end.
  if (command.retest) {
    log.add(`retest of finding ${command.retest.findingHash}: ${command.retest.method} ${command.retest.url}`);
    phase(run, 'retest');
  } else announce(run);
  if (!run.engine) {
    await reported(run);
    throw new RunFailed(
      'PROVISIONING',
      `no scan engine is installed on this agent: ${context.engines.map((e) => e.install).join('; or ')}; then start the scan again`,
    );
  }
  const target = new URL(command.targetUrl);
  let address: string;
  try {
    address = await pinnedAddress(target.hostname, { allowPrivate: command.allowPrivate || context.allowPrivate });
  } catch (error) {
    if (error instanceof TargetRefused) throw new RunFailed('UNKNOWN', error.message);
    throw new RunFailed('UNKNOWN', `${target.hostname} does not resolve: ${(error as Error).message}`);
  }
  run.address = address;
  log.add(`target ${target.host} pinned at ${address}`);
  // The probe goes alongside the proxy's start (and, without a login, the engine's own start-up): the engine's
  // requests wait for its answer, and a target that does not answer stops the engine and ends the run saying so.
  run.probe = reachable(target, address, context.trustedCa).then((answer) => log.add(`target answers: ${answer}`));
  run.probe.catch(() => stopEngine(run));
  run.proxy = await startPinningProxy(target, address, (line) => log.add(line), {
    notAfter: new Date(run.deadline + 3600_000),
    trustedCa: context.trustedCa,
  });
  return 'preparing';
}

/**
 * One call announces the scan and records it on the run, with the phase reached meanwhile (reportScanRunStarted);
 * a run already stopped records no scan.
 */
function announce(run: Run): void {
  const { command, context } = run;
  report(run, async () => {
    run.reports.reported = run.reports.reached;
    const started = await serviceCall(context.api, 'POST', '/api/v1/app/{appId}/perch/runs/{scanKey}/scan', {
      path: run.path,
      query: { deviceId: context.deviceId, phase: run.reports.reported },
      body: {
        env: command.env,
        config: command.config,
        hawkscanVersion: `hawk-scanner agent (${run.engine?.name ?? 'no engine'})`,
        host: command.targetUrl,
      },
    });
    if (stillOn(run, started)) run.scanId = started.scanId;
    void run.uploads.send();
  });
}

/**
 * preparing -> logged in: a login waits for the probe (a target that does not answer is said so, not taken for a
 * failed login); its own requests reach the target at the pinned address too, and another host (an identity
 * provider) is resolved once and checked like a target. Without authentication: no session.
 */
export async function logInToTarget(run: Run): Promise<RunState> {
  const { command, context } = run;
  if (authenticates(command.config)) await run.probe;
  const target = new URL(command.targetUrl);
  const pinned = new Map<string, Promise<string>>([[target.hostname, Promise.resolve(run.address!)]]);
  const addressOf = (hostname: string) => {
    if (!pinned.has(hostname)) pinned.set(hostname, pinnedAddress(hostname, { allowPrivate: context.allowPrivate }));
    return pinned.get(hostname)!;
  };
  const transport = pinnedFetch(addressOf, { trustedCa: context.trustedCa });
  run.login = await logIn(
    command,
    run.log,
    (name) => phase(run, name),
    transport,
    withScanSecrets(context.secrets ?? {}, agentVariables(context.allowedVariables)),
  );
  if (run.engineStop.signal.aborted) {
    // stopped, a report failed, or the target did not answer, before the attack
    await run.probe;
    await reported(run);
  }
  return 'logged in';
}

/**
 * logged in -> attacking: the engine starts now (its own start-up takes a while), but the proxy lets nothing of it
 * reach the target before the service has recorded the scan and its phases so far, and answered that the run is
 * still on, and the target answered the probe. The engine gets no session headers of its own: the proxy carries the
 * session (HTTPS included, the proxy terminating the engine's TLS with the run's certificate).
 */
export async function attack(run: Run): Promise<RunState> {
  const { log, proxy } = run;
  const recorded = Promise.all([run.reports.queue, run.probe]).then(
    () => run.reports.failure === undefined && !run.reports.stopped,
    () => false,
  );
  proxy!.holdUntil(recorded);
  void recorded.then(
    (go) =>
      go &&
      log.add("the service recorded the scan and the target answered: the proxy lets the engine's requests through"),
  );
  if (run.login?.session) {
    const relay = await sessionRelay({
      ...run.login.session,
      log: (line) => log.add(line),
      onFailure: () => stopEngine(run),
    });
    run.relay = relay;
    proxy!.carry(relay);
    if (!relay.watching)
      run.health = watchSessionHealth(
        relay,
        () => proxy!.sent().requests,
        (line) => log.add(line),
      );
    log.add(
      relay.watching
        ? 'the proxy carries the session for the engine and logs in again when an answer matches loggedOutIndicator'
        : run.health
          ? 'the proxy carries the session for the engine (no loggedOutIndicator: testPath is checked every few requests and at the end)'
          : 'the proxy carries the session for the engine (no loggedOutIndicator and no testPath: a lost session is not noticed)',
    );
  }
  if (proxy!.authority)
    log.add(
      "HTTPS target: the proxy shows the engine a certificate of the run's own authority and checks the target's",
    );
  // The primary user's crawl, kept for the authorization phase (until the engine's first attack module).
  if (run.login?.users.length) proxy!.record(true);
  phase(run, 'attack');
  let engineFailure: unknown;
  try {
    // An authorization finding's retest replays its request as the users instead of running the engine.
    run.alerts = isAuthorizationRetest(run) ? await retestAuthorization(run) : await runEngine(run);
  } catch (error) {
    engineFailure = error;
  }
  await run.health?.finish();
  // A target that did not answer the probe, a report that failed or answered that the run was stopped: each
  // stopped the engine, and is the run's end.
  await run.probe;
  await reported(run);
  const lost = run.relay?.failure();
  // Part of the attack went out without a session: never reported as a logged-in scan.
  if (lost) throw new RunFailed('AUTHENTICATION', `${lost}; the scan's findings are discarded`);
  if (engineFailure) throw engineFailure;
  if (run.relay?.relogins()) log.add(`the session was renewed ${run.relay.relogins()} times during the attack`);
  return 'attacking';
}

/**
 * The engine's run through the proxy. The findings go up as soon as the engine wrote its report, while its process
 * exits, unless the run is already failing; should the engine then fail, the run still ends in ERROR.
 */
function runEngine(run: Run) {
  const onReport = (found: ReportedAlert[]) => {
    if (run.findingsSent || run.scanId === undefined || run.reports.failure !== undefined) return;
    if (run.reports.stopped || run.engineStop.signal.aborted || run.relay?.failure()) return;
    run.findingsSent = sendFindings(run, found);
    run.findingsSent.catch(() => undefined); // awaited when reporting, or before the scan is ended in ERROR
  };
  return run.engine!.run({
    targetUrl: run.command.targetUrl,
    headers: {},
    startUrls: run.command.retest ? [] : (run.login?.startUrls ?? []),
    proxyUrl: run.proxy!.url,
    proxyAuthority: run.proxy!.authority,
    deadline: run.deadline,
    signal: run.engineStop.signal,
    workDir: run.workDir,
    log: (line) => run.log.add(line),
    onReport,
    excludedPluginIds: run.command.scanPolicy?.excludePluginIds ?? [],
    ...(run.command.retest ? { focus: run.command.retest } : {}),
    onModule: (name) => {
      run.proxy!.record(false);
      run.coverage.moduleStarts.push({ name, sent: run.proxy!.sent().requests });
    },
    onCoverage: (coverage) => (run.coverage.engine = coverage),
  });
}

const isAuthorizationRetest = (run: Run) =>
  run.command.retest !== undefined && AUTHORIZATION_PLUGINS.includes(run.command.retest.pluginId);

/**
 * attacking -> authorizing: with other users in `hawk.authorization`, the primary user's crawled requests replayed as
 * each of them and without a session (authorization.ts); its findings reported apart from the engine's.
 */
export async function authorize(run: Run): Promise<RunState> {
  if (!run.login?.users.length || run.command.retest) return 'authorizing'; // a retest reports no scan
  phase(run, 'authorization');
  const found = await testAuthorization(run);
  await reported(run);
  if (found.length) await sendFindings(run, found, 'authorization');
  return 'authorizing';
}

/** authorizing -> reporting: the findings (unless already on their way) in batches, then every report answered. */
export async function reportFindings(run: Run): Promise<RunState> {
  if (!run.command.retest) await (run.findingsSent ?? sendFindings(run, run.alerts ?? []));
  await reported(run);
  return 'reporting';
}

/** The findings in reports; `series` names the reports of a phase after the engine's (their reportIds apart). */
async function sendFindings(run: Run, found: ReportedAlert[], series = ''): Promise<void> {
  phase(run, 'reporting');
  const batches = reportBatches(found);
  const queue = [...batches.entries()];
  const sendBatches = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [i, batch] = next;
      const reportId = createHash('sha256')
        .update(`${run.command.scanKey}:${series ? `${series}:` : ''}${i}`)
        .digest('hex')
        .slice(0, 32);
      await serviceCall(run.context.api, 'POST', '/api/v1/scan/{scanId}/alerts', {
        path: { scanId: run.scanId! },
        body: { alerts: batch, reportId },
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(REPORT_CONCURRENCY, batches.length) }, sendBatches));
  run.log.add(
    `reported ${found.length} alerts, ${found.reduce((n, a) => n + a.uris.length, 0)} findings in ${batches.length} reports`,
  );
}

type Outcome = { state: 'COMPLETED' } | { state: 'ERROR'; error: RunFailed };

/**
 * -> ended: one call (endScanRun) completes the scan, stores the whole log and ends the run: whoever sees the end
 * and opens the log reads it all. A COMPLETED end the service refuses fails the run (ended again in ERROR); an
 * ERROR end it refuses is logged (the run is then ended for the agent by the service's deadline).
 */
export async function end(run: Run, outcome: Outcome): Promise<RunState> {
  const { api, deviceId } = run.context;
  if (outcome.state === 'ERROR') {
    stopEngine(run);
    run.log.add(`ERROR (${outcome.error.errorType}): ${outcome.error.message}`);
    await run.reports.queue; // the scan's announcement, if it is still on its way: its scan is ended below
    await run.findingsSent?.catch(() => undefined); // findings on their way go before the scan's end
  } else run.log.add('completed');
  const coverage = runCoverage(run);
  if (coverage) run.log.add(coverageLine(coverage));
  run.context.onEnd?.();
  await run.uploads.idle(); // an upload on its way lands before the end's log, never after it
  const log = run.log.text();
  const body = {
    state: outcome.state,
    // The scan's urlCount is the pages crawled (the service takes them from the coverage record).
    urlCount: coverage?.pages ?? 0,
    ...(coverage && !run.command.retest ? { coverage } : {}),
    ...(run.command.retest && outcome.state === 'COMPLETED' ? { retest: { found: retestFound(run) } } : {}),
    log,
    ...(outcome.state === 'ERROR'
      ? { error: { errorType: outcome.error.errorType, message: run.log.redact(outcome.error.message).slice(0, 2000) } }
      : {}),
  };
  const ending = serviceCall(api, 'POST', '/api/v1/app/{appId}/perch/runs/{scanKey}/end', {
    path: run.path,
    query: { deviceId },
    body,
  }).then(() => {
    run.uploads.stored = log;
  });
  if (outcome.state === 'COMPLETED') await ending;
  else await ending.catch((error: Error) => run.log.add(`final update: ${error.message}`));
  return 'ended';
}

/**
 * What a retest's engine found (it ran only its finding's checks, on its finding's request): the service tells its
 * finding among them by the finding's identity.
 */
function retestFound(run: Run) {
  return (run.alerts ?? [])
    .flatMap((alert) =>
      alert.uris.map((uri) => ({
        pluginId: alert.pluginId,
        method: uri.requestMethod,
        uri: uri.uri,
        param: uri.param,
        evidence: (uri.evidence || uri.otherInfo).slice(0, 4000),
      })),
    )
    .slice(0, 100);
}

/** The reason a run failed, and what to do. */
function failureOf(run: Run, error: unknown): RunFailed {
  if (error instanceof RunFailed) return error;
  if (error instanceof EngineStopped || run.reports.stopped || run.context.signal.aborted)
    return new RunFailed('UNKNOWN', 'stopped: the findings the engine had not reported yet are discarded');
  if (error instanceof EngineError) return new RunFailed('UNKNOWN', error.message);
  if (error instanceof ServiceError) return new RunFailed('DEVICE', `the service refused a report: ${error.message}`);
  return new RunFailed('UNKNOWN', `the agent failed: ${(error as Error).message}`);
}

async function firstInstalled(engines: Engine[], run: Run): Promise<Engine | undefined> {
  for (const engine of engines) {
    const version = await engine.version();
    if (version) {
      run.log.add(`engine: ${engine.name} ${version}`);
      return engine;
    }
    run.log.add(`engine ${engine.name}: not installed`);
  }
  return undefined;
}
