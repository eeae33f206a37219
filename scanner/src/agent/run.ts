// Carries out one hosted scan (a SCAN_START command) from its acknowledgement to its end: announce the scan
// (recorded on the run in the same call), pin the target's address, log in and check testPath before any attack,
// run the engine, report the findings in batches, complete. Every failure ends the scan in ERROR with the reason
// (AUTHENTICATION, PROVISIONING, DEVICE or UNKNOWN) and the log says what to do: a failed scan is never a clean one.
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { isIP } from 'node:net';
import { checkServerIdentity, rootCertificates, type PeerCertificate } from 'node:tls';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import {
  agentVariables,
  createSession,
  loadConfigText,
  runTestPath,
  type AuthConfig,
  type Fetch,
  type Session,
  type VariableLookup,
} from '../auth/index.ts';
import { pinnedAddress, TargetRefused } from '../net/addresses.ts';
import { pinnedFetch } from '../net/pinned-fetch.ts';
import { reportBatches, type ReportedAlert } from '../zap/reported.ts';
import { EngineError, EngineStopped, type Engine } from '../engines/engine.ts';
import { startPinningProxy } from './pinning-proxy.ts';
import { sessionRelay, type SessionRelay } from './session-relay.ts';
import { ServiceError, type Service } from '../net/service.ts';

export interface StartCommand {
  commandId: string;
  scanKey: string;
  applicationId: string;
  env: string;
  config: string;
  targetUrl: string;
  allowPrivate: boolean;
  deadline: string | number;
}

type ErrorType = 'UNKNOWN' | 'AUTHENTICATION' | 'PROVISIONING' | 'DEVICE';

class RunFailed extends Error {
  constructor(
    readonly errorType: ErrorType,
    message: string,
  ) {
    super(message);
  }
}

/** The run's log: timestamped lines, kept whole up to a size, sent to the service at each phase and at the end. */
export class RunLog {
  private lines: string[] = [];
  private bytes = 0;
  private dropped = 0;
  constructor(private readonly echo?: (line: string) => void) {}
  add(line: string) {
    const stamped = `${new Date().toISOString()} ${line}`;
    this.echo?.(stamped);
    if (this.bytes + stamped.length > 900_000) {
      this.dropped++;
      return;
    }
    this.lines.push(stamped);
    this.bytes += stamped.length + 1;
  }
  text() {
    return `${this.lines.join('\n')}\n${this.dropped ? `(${this.dropped} further lines not kept)\n` : ''}`;
  }
}

export interface RunContext {
  api: Service;
  deviceId: string;
  engines: Engine[];
  /** The operator allows private addresses whatever the service says (an agent inside its own network). */
  allowPrivate: boolean;
  signal: AbortSignal;
  echo?: (line: string) => void;
  /**
   * Certificates (PEM) trusted for HTTPS targets besides Node's bundled authorities (and NODE_EXTRA_CA_CERTS):
   * a self-signed target's.
   */
  trustedCa?: string;
  /** The variables, besides HAWK_SCAN_*, that the operator lets scan configurations read (auth/variables.ts). */
  allowedVariables?: readonly string[];
  /** Called once the run's end is being reported: the agent may take its next command while this log is stored. */
  onEnd?: () => void;
}

/** Findings reports sent at once (each is stored in its own request; the service counts them apart). */
const REPORT_CONCURRENCY = 3;

export async function carryOut(command: StartCommand, context: RunContext): Promise<'COMPLETED' | 'ERROR'> {
  const { api, deviceId } = context;
  const log = new RunLog(context.echo);
  const runPath = `/api/v1/app/${command.applicationId}/perch/runs/${command.scanKey}`;
  // The log goes to the service in the background, one upload at a time, the newest text each time: no step of the
  // scan waits for it, and the last upload (in `finally`) carries the whole log.
  let logUpload: Promise<void> | undefined;
  let logAgain = false;
  let storedText = '';
  const sendLog = (): Promise<void> => {
    if (logUpload) {
      logAgain = true;
      return logUpload;
    }
    logUpload = (async () => {
      do {
        logAgain = false;
        const text = log.text();
        await api.call('PUT', `${runPath}/log?deviceId=${deviceId}`, undefined, { text }).then(
          () => (storedText = text),
          (error: Error) => context.echo?.(`could not store the log: ${error.message}`),
        );
      } while (logAgain);
    })().finally(() => {
      logUpload = undefined;
    });
    return logUpload;
  };
  // The engine stops when the scan is stopped (the poll's SCAN_STOP, or a report's answer), or when the session is
  // lost for good.
  const engineStop = new AbortController();
  const stopEngine = () => engineStop.abort();
  context.signal.addEventListener('abort', stopEngine, { once: true });
  if (context.signal.aborted) stopEngine();
  let stopped = false;
  /** Whether the service's answer shows the run still on; else the engine stops. */
  const stillOn = (answer: { device?: { status?: string } }) => {
    if (answer.device?.status === 'RUNNING') return true;
    stopped = true;
    stopEngine();
    return false;
  };
  const update = async (body: Record<string, unknown>) => {
    stillOn(await api.call<{ device?: { status?: string } }>('POST', runPath, { deviceId, ...body }));
  };
  // The scan's announcement and its phases reach the service in order, alongside the work: the target's pinning,
  // the login and the engine wait for none of them (the engine is stopped when one answers that the run was
  // stopped). `reported()` waits for them all and says whether they went through.
  let reports: Promise<void> = Promise.resolve();
  let reportFailure: unknown;
  const report = (send: () => Promise<unknown>) => {
    reports = reports.then(async () => {
      if (reportFailure !== undefined || stopped) return;
      try {
        await send();
      } catch (error) {
        reportFailure = error;
        stopEngine();
      }
    });
  };
  const reported = async () => {
    await reports;
    if (reportFailure !== undefined) throw reportFailure;
    if (stopped || context.signal.aborted) throw new EngineStopped('the scan was stopped');
  };
  // Each report tells the newest phase the run reached: phases reached while an earlier report was on its way (the
  // attack right after the announcement, without a login) go in one update.
  let reachedPhase = 'started';
  let reportedPhase: string | undefined;
  const updatePhase = async () => {
    if (reportedPhase === reachedPhase) return;
    reportedPhase = reachedPhase;
    await update({ phase: reachedPhase });
    void sendLog();
  };
  const phase = (name: string) => {
    log.add(`phase: ${name}`);
    reachedPhase = name;
    report(() => updatePhase());
  };

  let scanId: string | undefined;
  const workDir = await mkdtemp(join(tmpdir(), 'hawk-agent-'));
  const deadline = Number(command.deadline) || Date.now() + 3600_000;
  let proxy: Awaited<ReturnType<typeof startPinningProxy>> | undefined;
  /** The findings' upload, once under way. */
  let findingsSent: Promise<void> | undefined;
  try {
    log.add(
      `scan ${command.scanKey} of application ${command.applicationId}, environment ${command.env}, target ${command.targetUrl}`,
    );
    const engine = await firstInstalled(context.engines, log);
    log.add('phase: started');
    // One call announces the scan and records it on the run, with the phase reached meanwhile (reportScanRunStarted);
    // a run already stopped records no scan.
    report(async () => {
      reportedPhase = reachedPhase;
      const started = await api.call<{ scanId: string; device?: { status?: string } }>(
        'POST',
        `${runPath}/scan?deviceId=${deviceId}&phase=${encodeURIComponent(reportedPhase)}`,
        {
          env: command.env,
          config: command.config,
          hawkscanVersion: `hawk-scanner agent (${engine?.name ?? 'no engine'})`,
          host: command.targetUrl,
        },
      );
      if (stillOn(started)) scanId = started.scanId;
      void sendLog();
    });
    if (!engine) {
      await reported();
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
    log.add(`target ${target.host} pinned at ${address}`);
    // The probe goes alongside the proxy's start (and, without a login, the engine's own start-up): the engine's
    // requests wait for its answer, and a target that does not answer stops the engine and ends the run saying so.
    const probe = reachable(target, address, context.trustedCa).then((answer) => log.add(`target answers: ${answer}`));
    probe.catch(stopEngine);
    proxy = await startPinningProxy(target, address, (line) => log.add(line), {
      notAfter: new Date(deadline + 3600_000),
      trustedCa: context.trustedCa,
    });
    // A login waits for it: a target that does not answer is said so, not taken for a failed login.
    if (authenticates(command.config)) await probe;

    // The login's own requests reach the target at the pinned address too; another host (an identity provider)
    // is resolved once and checked like a target.
    const pinned = new Map<string, Promise<string>>([[target.hostname, Promise.resolve(address)]]);
    const addressOf = (hostname: string) => {
      if (!pinned.has(hostname)) pinned.set(hostname, pinnedAddress(hostname, { allowPrivate: context.allowPrivate }));
      return pinned.get(hostname)!;
    };
    const login = await logIn(
      command,
      log,
      phase,
      pinnedFetch(addressOf, { trustedCa: context.trustedCa }),
      agentVariables(context.allowedVariables),
    );
    if (engineStop.signal.aborted) {
      // stopped, a report failed, or the target did not answer, before the attack
      await probe;
      await reported();
    }
    // The engine starts now (its own start-up takes a while), but the proxy lets nothing of it reach the target
    // before the service has recorded the scan and its phases so far, and answered that the run is still on, and
    // the target answered the probe.
    const recorded = Promise.all([reports, probe]).then(
      () => reportFailure === undefined && !stopped,
      () => false,
    );
    proxy.holdUntil(recorded);
    void recorded.then(
      (go) =>
        go &&
        log.add("the service recorded the scan and the target answered: the proxy lets the engine's requests through"),
    );
    // The engine gets no session headers of its own: the proxy carries the session (HTTPS included, the proxy
    // terminating the engine's TLS with the run's certificate).
    let relay: SessionRelay | undefined;
    if (login.session) {
      relay = await sessionRelay({ ...login.session, log: (line) => log.add(line), onFailure: stopEngine });
      proxy.carry(relay);
      log.add(
        relay.watching
          ? 'the proxy carries the session for the engine and logs in again when an answer matches loggedOutIndicator'
          : 'the proxy carries the session for the engine (no loggedOutIndicator: a lost session is not noticed)',
      );
    }
    if (proxy.authority)
      log.add(
        "HTTPS target: the proxy shows the engine a certificate of the run's own authority and checks the target's",
      );
    phase('attack');
    const sendFindings = async (found: ReportedAlert[]) => {
      phase('reporting');
      const batches = reportBatches(found);
      const queue = [...batches.entries()];
      const sendBatches = async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const [i, batch] = next;
          const reportId = createHash('sha256').update(`${command.scanKey}:${i}`).digest('hex').slice(0, 32);
          await api.call('POST', `/api/v1/scan/${scanId}/alerts`, { alerts: batch, reportId });
        }
      };
      await Promise.all(Array.from({ length: Math.min(REPORT_CONCURRENCY, batches.length) }, sendBatches));
      log.add(
        `reported ${found.length} alerts, ${found.reduce((n, a) => n + a.uris.length, 0)} findings in ${batches.length} reports`,
      );
    };
    // The findings go up as soon as the engine wrote its report, while its process exits, unless the run is
    // already failing; should the engine then fail, the run still ends in ERROR.
    const onReport = (found: ReportedAlert[]) => {
      if (findingsSent || scanId === undefined || reportFailure !== undefined || stopped) return;
      if (engineStop.signal.aborted || relay?.failure()) return;
      findingsSent = sendFindings(found);
      findingsSent.catch(() => undefined); // awaited below, or before the scan is ended in ERROR
    };
    let alerts: Awaited<ReturnType<Engine['run']>> = [];
    let engineFailure: unknown;
    try {
      alerts = await engine.run({
        targetUrl: command.targetUrl,
        headers: {},
        startUrls: login.startUrls,
        proxyUrl: proxy.url,
        proxyAuthority: proxy.authority,
        deadline,
        signal: engineStop.signal,
        workDir,
        log: (line) => log.add(line),
        onReport,
      });
    } catch (error) {
      engineFailure = error;
    }
    // A target that did not answer the probe, a report that failed or answered that the run was stopped: each
    // stopped the engine, and is the run's end.
    await probe;
    await reported();
    const lost = relay?.failure();
    // Part of the attack went out without a session: never reported as a logged-in scan.
    if (lost) throw new RunFailed('AUTHENTICATION', `${lost}; the scan's findings are discarded`);
    if (engineFailure) throw engineFailure;
    if (relay?.relogins()) log.add(`the session was renewed ${relay.relogins()} times during the attack`);

    await (findingsSent ?? sendFindings(alerts));
    await reported();
    await api.call('POST', `/api/v1/scan/${scanId}/complete`, { status: 'COMPLETED', urlCount: 0 });
    log.add('completed');
    context.onEnd?.();
    // The whole log is stored before the run reads as ended: whoever sees the end and opens the log reads it all.
    await sendLog();
    await update({ state: 'COMPLETED', phase: 'completed' }).catch((error: Error) =>
      log.add(`final update: ${error.message}`),
    );
    return 'COMPLETED';
  } catch (error) {
    stopEngine();
    const failure =
      error instanceof RunFailed
        ? error
        : error instanceof EngineStopped || stopped || context.signal.aborted
          ? new RunFailed('UNKNOWN', 'stopped: the findings the engine had not reported yet are discarded')
          : error instanceof EngineError
            ? new RunFailed('UNKNOWN', error.message)
            : error instanceof ServiceError
              ? new RunFailed('DEVICE', `the service refused a report: ${error.message}`)
              : new RunFailed('UNKNOWN', `the agent failed: ${(error as Error).message}`);
    log.add(`ERROR (${failure.errorType}): ${failure.message}`);
    await reports; // the scan's announcement, if it is still on its way: its scan is ended below
    await findingsSent?.catch(() => undefined); // findings on their way go before the scan's end
    if (scanId)
      await api
        .call('POST', `/api/v1/scan/${scanId}/complete`, { status: 'ERROR', urlCount: 0 })
        .catch((e: Error) => log.add(`ending the scan: ${e.message}`));
    context.onEnd?.();
    await sendLog();
    await update({
      state: 'ERROR',
      phase: 'error',
      error: { errorType: failure.errorType, message: failure.message.slice(0, 2000) },
    }).catch((e: Error) => log.add(`final update: ${e.message}`));
    return 'ERROR';
  } finally {
    context.signal.removeEventListener('abort', stopEngine);
    await proxy?.close();
    if (log.text() !== storedText) await sendLog(); // lines added since, or an upload that failed
    await rm(workDir, { recursive: true, force: true });
  }
}

const PROBE_TIMEOUT_MS = 10_000;
const CERTIFICATE_ERROR = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT_ALTNAME/;

/**
 * One GET of the target at its pinned address before anything else is sent: a target that does not answer ends the
 * run in ERROR saying so (an engine would report a clean scan of nothing). Any HTTP answer will do.
 */
function reachable(target: URL, address: string, trustedCa?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const https = target.protocol === 'https:';
    const req = (https ? httpsRequest : httpRequest)(
      {
        host: address,
        port: Number(target.port || (https ? 443 : 80)),
        path: `${target.pathname}${target.search}`,
        headers: { host: target.host, 'user-agent': 'hawk-scanner agent' },
        ...(https && !isIP(target.hostname) ? { servername: target.hostname } : {}),
        ...(https
          ? {
              checkServerIdentity: (_name: string, cert: PeerCertificate) => checkServerIdentity(target.hostname, cert),
            }
          : {}),
        ...(https && trustedCa ? { ca: [...rootCertificates, trustedCa] } : {}),
        timeout: PROBE_TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        resolve(`${res.statusCode} ${res.statusMessage ?? ''}`.trim());
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${PROBE_TIMEOUT_MS / 1000} s`)));
    req.on('error', (error: Error & { code?: string }) =>
      reject(
        new RunFailed(
          'UNKNOWN',
          CERTIFICATE_ERROR.test(`${error.code} ${error.message}`)
            ? `the target ${target.origin} (${address}) shows a certificate the agent does not trust: ${error.code ?? ''} ${error.message}; give it a certificate of a public authority, or give the agent its authority (NODE_EXTRA_CA_CERTS=<file> in the agent's environment), then start the scan again`
            : `the target ${target.origin} (${address}) cannot be reached from the agent: ${error.code ?? error.message}; check that app.host is up and reachable, then start the scan again`,
        ),
      ),
    );
    req.end();
  });
}

async function firstInstalled(engines: Engine[], log: RunLog): Promise<Engine | undefined> {
  for (const engine of engines) {
    const version = await engine.version();
    if (version) {
      log.add(`engine: ${engine.name} ${version}`);
      return engine;
    }
    log.add(`engine ${engine.name}: not installed`);
  }
  return undefined;
}

/** Whether the configuration has an `authentication` block (the run logs in). */
const authenticates = (config: string) => /^\s*authentication\s*:/m.test(config);

/**
 * Logs in as the configuration's `app.authentication` says (secrets from the agent's environment, only the
 * variables the operator allows) and checks
 * testPath, before any attack: the session the proxy carries for the engine. Without authentication: none.
 */
interface LoggedIn {
  startUrls: string[];
  /** The logged-in session, for the proxy to carry and renew; none without authentication. */
  session?: { session: Session; config: AuthConfig };
}

async function logIn(
  command: StartCommand,
  log: RunLog,
  phase: (name: string) => void,
  transport: Fetch,
  variables: VariableLookup,
): Promise<LoggedIn> {
  if (!authenticates(command.config)) {
    log.add('no app.authentication: scanning without logging in');
    return { startUrls: [] };
  }
  phase('login');
  const loaded = loadConfigText(
    command.config,
    { app: { host: command.targetUrl, applicationId: command.applicationId, env: command.env } },
    variables,
  );
  if (loaded.errors)
    throw new RunFailed(
      'AUTHENTICATION',
      `the authentication configuration is invalid: ${loaded.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    );
  const session = createSession(loaded.config, {
    onStep: (step) =>
      log.add(
        `login ${step.ok ? 'ok' : 'FAIL'} ${step.name}: ${step.request ?? ''} ${step.status ?? ''} ${step.detail}`,
      ),
    fetch: transport,
  });
  try {
    await session.login();
    const testPath = loaded.config.app.authentication.testPath;
    if (testPath) {
      const verdict = await runTestPath(session, testPath);
      log.add(`testPath ${verdict.ok ? 'ok' : 'FAIL'}: ${verdict.detail}`);
      if (!verdict.ok)
        throw new RunFailed(
          'AUTHENTICATION',
          `testPath: ${verdict.detail}; check the login configuration and credentials`,
        );
    } else log.add('no testPath: the session is not verified before the attack');
    const headers = await session.headers();
    log.add(`session: ${Object.keys(headers).join(', ') || 'no headers'}, carried for the engine by the proxy`);
    // The logged-in page seeds the crawl: links from the public pages may not lead into the logged-in area.
    const seed = testPath && (testPath.requestMethod ?? 'GET') === 'GET' && new URL(testPath.path, command.targetUrl);
    const startUrls = seed && seed.origin === new URL(command.targetUrl).origin ? [seed.href] : [];
    return { startUrls, session: { session, config: loaded.config } };
  } catch (error) {
    if (error instanceof RunFailed) throw error;
    throw new RunFailed('AUTHENTICATION', `${(error as Error).message}; no attack was sent`);
  }
}
