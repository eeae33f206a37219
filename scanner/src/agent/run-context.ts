// A hosted run's context (run.ts): the command, the agent's settings, and what the run's states hand on to the
// next (its log, the service reports on their way, the engine's stop, the target, the proxy, the session), with the
// reports to the service that go alongside the work.
import type { Engine, EngineCoverage } from '../engines/engine.ts';
import { EngineStopped } from '../engines/engine.ts';
import type { Service } from '../net/service.ts';
import { serviceCall } from '../api/call.ts';
import type { startPinningProxy } from './pinning-proxy.ts';
import type { SessionRelay } from './session-relay.ts';
import type { SessionHealth } from './session-health.ts';
import type { LoggedIn } from './run-login.ts';
import type { AuthorizationCoverage } from './coverage-record.ts';
import { LogUploads, RunLog } from './run-log.ts';
import type { StartCommand } from './run-command.ts';

export { RunFailed, type ErrorType, type StartCommand } from './run-command.ts';

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
  /**
   * The values of the scan secrets the run's configuration references, given by the service with the run's
   * acknowledgement (docs/HOSTED-SCANS.md, "Scan secrets"): read before the agent's environment, never logged.
   */
  secrets?: Readonly<Record<string, string>>;
  /** Called once the run's end is being reported: the agent may take its next command while this log is stored. */
  onEnd?: () => void;
}

/** The states of a run (the agent's poll and acknowledgement before it, agent.ts; docs/HOSTED-SCANS.md, The agent). */
export type RunState = 'acknowledged' | 'preparing' | 'logged in' | 'attacking' | 'authorizing' | 'reporting' | 'ended';

/** A run being carried out: set up at its acknowledgement, filled in by its states. */
export interface Run {
  state: RunState;
  command: StartCommand;
  context: RunContext;
  /** The run's path parameters in the service (updateScanRun; its log, scan and end below it). */
  path: RunPath;
  log: RunLog;
  uploads: LogUploads;
  /** Stops the engine: the scan was stopped (SCAN_STOP, or a report's answer), or the session is lost for good. */
  engineStop: AbortController;
  workDir: string;
  deadline: number;
  /** The reported scan (reportScanRunStarted), once the service recorded it. */
  scanId?: string;
  engine?: Engine;
  /** The target's address, resolved once and pinned. */
  address?: string;
  /** The target's answer to the probe: a target that does not answer rejects it, and the run ends saying so. */
  probe?: Promise<void>;
  proxy?: Awaited<ReturnType<typeof startPinningProxy>>;
  login?: LoggedIn;
  relay?: SessionRelay;
  /** The checks of testPath during the attack when nothing watches the answers (session-health.ts). */
  health?: SessionHealth;
  /** What the engine found, and the findings' upload once under way. */
  alerts?: Awaited<ReturnType<Engine['run']>>;
  findingsSent?: Promise<void>;
  /** When the run was acknowledged (epoch ms). */
  openedAt: number;
  /** What the engine covered (told at its end), and the proxy's count of requests sent when each module started. */
  coverage: {
    engine?: EngineCoverage;
    moduleStarts: { name: string; sent: number }[];
    /** The authorization phase's figures, once it ran (authorization.ts). */
    authorization?: AuthorizationCoverage;
  };
  /** The announcement and the phase updates, in order, and what came of them. */
  reports: { queue: Promise<void>; failure?: unknown; stopped: boolean; reached: string; reported?: string };
}

export interface RunPath {
  appId: string;
  scanKey: string;
}

/** The run's path parameters: its application and its key. */
export const runPath = (command: StartCommand): RunPath => ({ appId: command.applicationId, scanKey: command.scanKey });

/** The run's log stored as it is now (uploadScanRunLog). */
export const storeLog = (api: Service, path: RunPath, deviceId: string, text: string) =>
  serviceCall(api, 'PUT', '/api/v1/app/{appId}/perch/runs/{scanKey}/log', { path, query: { deviceId } }, { text });

/** A run's context at its acknowledgement (the work directory made by the caller). */
export function openRun(command: StartCommand, context: RunContext, workDir: string): Run {
  const path = runPath(command);
  const log = new RunLog(context.echo, Object.values(context.secrets ?? {}));
  const run: Run = {
    state: 'acknowledged',
    command,
    context,
    path,
    log,
    uploads: new LogUploads((text) => storeLog(context.api, path, context.deviceId, text), log, context.echo),
    engineStop: new AbortController(),
    workDir,
    deadline: Number(command.deadline) || Date.now() + 3600_000,
    openedAt: Date.now(),
    coverage: { moduleStarts: [] },
    reports: { queue: Promise.resolve(), stopped: false, reached: 'started' },
  };
  context.signal.addEventListener('abort', () => stopEngine(run), { once: true, signal: run.engineStop.signal });
  if (context.signal.aborted) stopEngine(run);
  return run;
}

export const stopEngine = (run: Run) => run.engineStop.abort();

/** Whether the service's answer shows the run still on; else the engine stops. */
export function stillOn(run: Run, answer: { device?: { status?: string } }): boolean {
  if (answer.device?.status === 'RUNNING') return true;
  run.reports.stopped = true;
  stopEngine(run);
  return false;
}

/**
 * The scan's announcement and its phases reach the service in order, alongside the work: the target's pinning, the
 * login and the engine wait for none of them (the engine is stopped when one answers that the run was stopped).
 */
export function report(run: Run, send: () => Promise<unknown>): void {
  const reports = run.reports;
  reports.queue = reports.queue.then(async () => {
    if (reports.failure !== undefined || reports.stopped) return;
    try {
      await send();
    } catch (error) {
      reports.failure = error;
      stopEngine(run);
    }
  });
}

/** Waits for the reports on their way; throws when one failed or the run was stopped. */
export async function reported(run: Run): Promise<void> {
  await run.reports.queue;
  if (run.reports.failure !== undefined) throw run.reports.failure;
  if (run.reports.stopped || run.context.signal.aborted) throw new EngineStopped('the scan was stopped');
}

/**
 * The run reached phase `name` (logged at once). Each update tells the newest phase the run reached: phases
 * reached while an earlier report was on its way (the attack right after the announcement, without a login) go in
 * one update.
 */
export function phase(run: Run, name: string): void {
  run.log.add(`phase: ${name}`);
  run.reports.reached = name;
  report(run, async () => {
    if (run.reports.reported === run.reports.reached) return;
    run.reports.reported = run.reports.reached;
    const { api, deviceId } = run.context;
    const answer = await serviceCall(api, 'POST', '/api/v1/app/{appId}/perch/runs/{scanKey}', {
      path: run.path,
      body: { deviceId, phase: run.reports.reached },
    });
    stillOn(run, answer);
    void run.uploads.send();
  });
}
