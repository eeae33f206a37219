// The scanner agent: a device of its organization that only makes outbound requests. It registers, then
// long-polls for its next command (each poll is also its heartbeat), acknowledges a command by id before acting
// on it (a command delivered twice runs once), carries out one scan at a time (run.ts) while it keeps polling, and
// stops the engine when the poll brings SCAN_STOP for its scan. A PROFILE_START command runs the prober instead of
// a scan (profile-run.ts).
import { hostname } from 'node:os';
import { wapitiEngine } from '../engines/wapiti.ts';
import { zapEngine } from '../engines/zap.ts';
import type { Engine } from '../engines/engine.ts';
import { carryOut, type StartCommand } from './run.ts';
import { carryOutProfile } from './profile-run.ts';
import { service, ServiceError, type ServiceOptions } from '../net/service.ts';

export interface AgentOptions extends ServiceOptions {
  orgId: string;
  name?: string;
  /** Register as this device again (an agent restarting). */
  deviceId?: string;
  engines?: Engine[];
  allowPrivate?: boolean;
  /**
   * Certificates (PEM) trusted for HTTPS targets besides Node's bundled authorities; the command line's agent
   * takes them from NODE_EXTRA_CA_CERTS instead.
   */
  trustedCa?: string;
  /**
   * The variables, besides HAWK_SCAN_*, that scan configurations may read from this process's environment
   * (auth/variables.ts; default: those HAWK_SCAN_ALLOWED_VARS names).
   */
  allowedVariables?: readonly string[];
  /** Stop after one scan (a one-shot agent). */
  once?: boolean;
  /** With `once`: stop when no scan was taken within this time (another agent took the run it was started for). */
  maxIdleMs?: number;
  signal?: AbortSignal;
  echo?: (line: string) => void;
}

interface Command extends Partial<StartCommand> {
  commandId: string;
  command: string;
  scanKey: string;
  applicationId: string;
}

export { carryOut } from './run.ts';
export { service } from '../net/service.ts';
export { wapitiEngine } from '../engines/wapiti.ts';
export { zapEngine } from '../engines/zap.ts';

/** The engines an agent runs: wapiti, else ZAP (the first installed), or only the one HAWK_ENGINE names. */
export function defaultEngines(only = process.env.HAWK_ENGINE): Engine[] {
  const all = [wapitiEngine(), zapEngine()];
  if (!only) return all;
  const chosen = all.filter((engine) => engine.name === only);
  if (!chosen.length) throw new Error(`HAWK_ENGINE must be wapiti or zap, got "${only}"`);
  return chosen;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RunningAgent {
  deviceId: string;
  /** Resolves when the agent stopped (its signal aborted, or after its one scan with `once`). */
  done: Promise<void>;
}

export async function startAgent(options: AgentOptions): Promise<RunningAgent> {
  const api = service(options);
  const engines = options.engines ?? defaultEngines();
  const echo = options.echo ?? (() => {});
  const installed = (await Promise.all(engines.map(async (e) => ((await e.version()) ? e.name : undefined)))).filter(
    (name): name is string => Boolean(name),
  );
  const register = (deviceId?: string) =>
    api.call<{ deviceId: string; heartbeatSeconds: number }>('POST', `/api/v1/org/${options.orgId}/perch/devices`, {
      name: options.name ?? `hawk-scanner@${hostname()}`.slice(0, 128),
      engines: installed,
      version: '1',
      ...(deviceId ? { deviceId } : {}),
    });
  let device = await register(options.deviceId);
  echo(`registered as device ${device.deviceId}; engines: ${installed.join(', ') || 'none installed'}`);

  const done = (async () => {
    // The run being carried out; a run whose end is being reported is no longer current (its log may still be
    // on its way: `finishing` until it is).
    let current: { command: Command; abort: AbortController; finished: Promise<unknown> } | undefined;
    const finishing = new Set<Promise<unknown>>();
    // The poll in flight, ended when the current run ends, so the next one starts at once (idle: it takes the next
    // queued command without waiting out a poll that reports the run as running).
    let polling: AbortController | undefined;
    const handled = new Set<string>();
    let failures = 0;
    const since = Date.now();
    // A one-shot agent waiting for its first scan waits no longer than its idle limit allows.
    const idleWait = () =>
      options.once && options.maxIdleMs && !handled.size
        ? Math.max(
            1,
            Math.min(25, device.heartbeatSeconds, Math.ceil((options.maxIdleMs - (Date.now() - since)) / 1000)),
          )
        : Math.min(25, device.heartbeatSeconds);
    while (!options.signal?.aborted) {
      if (options.once && handled.size && !current) break; // its one scan is over (its log may still be on its way)
      if (options.once && options.maxIdleMs && !handled.size && Date.now() - since > options.maxIdleMs) {
        echo(`no scan taken in ${Math.round(options.maxIdleMs / 1000)} s: stopping`);
        return;
      }
      let command: Command | undefined;
      polling = new AbortController();
      try {
        const out = await api.call<{ command?: Command }>(
          'POST',
          `/api/v1/org/${options.orgId}/perch/devices/${device.deviceId}/poll`,
          {
            waitSeconds: idleWait(),
            ...(current
              ? { running: { applicationId: current.command.applicationId, scanKey: current.command.scanKey } }
              : {}),
          },
          { timeoutMs: 40_000, signal: polling.signal },
        );
        command = out.command;
        failures = 0;
      } catch (error) {
        if (polling.signal.aborted) continue; // the run ended: poll again, idle
        if (error instanceof ServiceError && error.status === 404) {
          device = await register(); // the device was removed: become a new one
          continue;
        }
        echo(`poll failed: ${(error as Error).message}`);
        await sleep(Math.min(1000 * 2 ** failures++, 15_000));
        continue;
      }
      if (!command) continue;
      const ack = async () =>
        api.call<{ acknowledged: boolean; alreadyAcknowledged: boolean }>(
          'POST',
          `/api/v1/org/${options.orgId}/perch/devices/${device.deviceId}/commands/${command.commandId}/ack`,
          { applicationId: command.applicationId },
        );
      if (command.command === 'SCAN_STOP') {
        await ack().catch(() => undefined);
        if (current?.command.scanKey === command.scanKey && !current.abort.signal.aborted) {
          echo(`stop: scan ${command.scanKey}`);
          current.abort.abort();
        }
        if (current?.command.scanKey === command.scanKey) await current.finished;
        continue;
      }
      const profile = command.command === 'PROFILE_START';
      if ((command.command !== 'SCAN_START' && !profile) || current || handled.has(command.commandId)) continue;
      try {
        const taken = await ack();
        handled.add(command.commandId);
        if (taken.alreadyAcknowledged) continue; // delivered twice: it runs once
      } catch (error) {
        echo(`command ${command.commandId} not taken: ${(error as Error).message}`);
        continue;
      }
      echo(`start: ${profile ? 'profile' : 'scan'} ${command.scanKey} of ${command.targetUrl}`);
      const abort = new AbortController();
      const started = command;
      const context = {
        api,
        deviceId: device.deviceId,
        engines,
        allowPrivate: options.allowPrivate ?? false,
        trustedCa: options.trustedCa,
        allowedVariables: options.allowedVariables,
        signal: abort.signal,
        echo: (line: string) => echo(`[${started.scanKey.slice(0, 8)}] ${line}`),
      };
      const ended = () => {
        if (current?.command !== started) return;
        current = undefined;
        polling?.abort();
      };
      const finished = (
        profile
          ? carryOutProfile(started as StartCommand, context)
          : carryOut(started as StartCommand, { ...context, onEnd: ended })
      )
        .then((result) => echo(`scan ${started.scanKey}: ${result}`))
        .catch((error: Error) => echo(`scan ${started.scanKey} failed: ${error.message}`))
        .finally(() => {
          ended();
          finishing.delete(finished);
        });
      finishing.add(finished);
      current = { command: started, abort, finished };
    }
    current?.abort.abort();
    await Promise.all(finishing);
  })();
  return { deviceId: device.deviceId, done };
}
