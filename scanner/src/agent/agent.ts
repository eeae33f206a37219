// The scanner agent: a device of its organization that only makes outbound requests. It registers, then
// long-polls for its next command (each poll is also its heartbeat), acknowledges a command by id before acting
// on it (a command delivered twice runs once), carries out one scan at a time (run.ts) while it keeps polling, and
// stops the engine when the poll brings SCAN_STOP for its scan. A PROFILE_START command runs the prober instead of
// a scan (profile-run.ts); a RETEST_START runs a scan limited to one finding (run.ts).
import { hostname } from 'node:os';
import { wapitiEngine } from '../engines/wapiti.ts';
import { zapEngine } from '../engines/zap.ts';
import type { Engine } from '../engines/engine.ts';
import { carryOut } from './run.ts';
import type { StartCommand } from './run-command.ts';
import { carryOutProfile } from './profile-run.ts';
import { service, ServiceError, type Service, type ServiceOptions } from '../net/service.ts';
import { serviceCall } from '../api/call.ts';
import { openWakeChannel, type WakeChannel } from './wake-channel.ts';

export interface AgentOptions extends ServiceOptions {
  orgId: string;
  name?: string;
  /** Register as this device again (an agent restarting). */
  deviceId?: string;
  /** Where it runs (`key=value`): it takes the runs whose required labels it carries, and those requiring none. */
  labels?: readonly string[];
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

interface RegisteredDevice {
  deviceId: string;
  heartbeatSeconds: number;
  wakeUrl?: string;
  wakePollSeconds?: number;
}

/** The agent's loop: its device, the run it carries, and the commands it took. */
interface Agent {
  options: AgentOptions;
  api: Service;
  engines: Engine[];
  echo: (line: string) => void;
  device: RegisteredDevice;
  register: (deviceId?: string) => Promise<RegisteredDevice>;
  /** The device's wake channel, when the service has one (docs/HOSTED-SCANS.md, Idle agents). */
  wake?: WakeChannel;
  /**
   * When the next fallback poll is due (ms), wakes or not: the idle heartbeat is written by a poll once the stored
   * one is 5 minutes less 5 s old, so polls every wakePollSeconds keep it fresh only if a woken poll does not put
   * the next one off.
   */
  fallbackAt?: number;
  /**
   * The run being carried out; a run whose end is being reported is no longer current (its log may still be on its
   * way: `finishing` until it is).
   */
  current?: { command: Command; abort: AbortController; finished: Promise<unknown> };
  finishing: Set<Promise<unknown>>;
  /**
   * The poll in flight, ended when the current run ends, so the next one starts at once (idle: it takes the next
   * queued command without waiting out a poll that reports the run as running).
   */
  polling?: AbortController;
  /** The runs (by scanKey) this agent took. */
  handled: Set<string>;
  failures: number;
  since: number;
}

export async function startAgent(options: AgentOptions): Promise<RunningAgent> {
  const api = service(options);
  const engines = options.engines ?? defaultEngines();
  const echo = options.echo ?? (() => {});
  const installed = (await Promise.all(engines.map(async (e) => ((await e.version()) ? e.name : undefined)))).filter(
    (name): name is string => Boolean(name),
  );
  const register = (deviceId?: string) =>
    serviceCall(api, 'POST', '/api/v1/org/{orgId}/perch/devices', {
      path: { orgId: options.orgId },
      body: {
        name: options.name ?? `hawk-scanner@${hostname()}`.slice(0, 128),
        engines: installed,
        labels: [...(options.labels ?? [])],
        version: '1',
        ...(deviceId ? { deviceId } : {}),
      },
    });
  const device = await register(options.deviceId);
  echo(
    `registered as device ${device.deviceId}; engines: ${installed.join(', ') || 'none installed'}; labels: ${device.labels?.join(', ') || 'none'}`,
  );
  const agent: Agent = {
    options,
    api,
    engines,
    echo,
    device,
    register,
    finishing: new Set(),
    handled: new Set(),
    failures: 0,
    since: Date.now(),
  };
  openWake(agent);
  await agent.wake?.ready; // its first polls then find the channel open, or not there
  return { deviceId: device.deviceId, done: carryOutCommands(agent).finally(() => agent.wake?.close()) };
}

/** The registered device's wake channel, replacing the one of a device it was before (none: it long-polls). */
function openWake(agent: Agent): void {
  const { device, options, api, echo } = agent;
  agent.wake?.close();
  agent.wake =
    device.wakeUrl && device.wakePollSeconds
      ? openWakeChannel({
          url: device.wakeUrl,
          orgId: options.orgId,
          deviceId: device.deviceId,
          token: () => api.accessToken(),
          retryAfterMs: device.wakePollSeconds * 1000,
          echo,
        })
      : undefined;
}

/** Polls, and carries out each command taken, until the agent stops. */
async function carryOutCommands(agent: Agent): Promise<void> {
  const { options, echo } = agent;
  while (!options.signal?.aborted) {
    if (options.once && agent.handled.size && !agent.current) break; // its one scan is over (its log may be on its way)
    if (options.once && options.maxIdleMs && !agent.handled.size && Date.now() - agent.since > options.maxIdleMs) {
      echo(`no scan taken in ${Math.round(options.maxIdleMs / 1000)} s: stopping`);
      return;
    }
    const command = await polled(agent);
    if (!command) continue;
    if (command.command === 'SCAN_STOP') await stop(agent, command);
    else {
      const taken = await acknowledged(agent, command);
      if (taken) begin(agent, command, taken.secrets ?? {});
    }
  }
  agent.current?.abort.abort();
  await Promise.all(agent.finishing);
}

/** A one-shot agent waiting for its first scan waits no longer than its idle limit allows. */
function idleWait({ options, device, handled, since }: Agent) {
  return options.once && options.maxIdleMs && !handled.size
    ? Math.max(1, Math.min(25, device.heartbeatSeconds, Math.ceil((options.maxIdleMs - (Date.now() - since)) / 1000)))
    : Math.min(25, device.heartbeatSeconds);
}

/**
 * An idle agent with its wake channel open polls without waiting, then waits for a wake (or the channel's reopening)
 * until its fallback poll, every wakePollSeconds however many wakes came between (a one-shot agent no longer than
 * its idle limit).
 */
async function awaitWake(agent: Agent): Promise<void> {
  const { options, device, handled, since } = agent;
  const now = Date.now();
  if (agent.fallbackAt === undefined || agent.fallbackAt <= now)
    agent.fallbackAt = now + (device.wakePollSeconds ?? 0) * 1000;
  const fallbackMs = agent.fallbackAt - now;
  const ms =
    options.once && options.maxIdleMs && !handled.size
      ? Math.min(fallbackMs, Math.max(1, options.maxIdleMs - (now - since)))
      : fallbackMs;
  await agent.wake?.wait(ms, options.signal);
}

/** The state `polled`: the poll's command, if any (each poll is also the heartbeat). */
async function polled(agent: Agent): Promise<Command | undefined> {
  const { api, options, current } = agent;
  const woken = !current && agent.wake?.open;
  const polling = (agent.polling = new AbortController());
  try {
    const out = await serviceCall(
      api,
      'POST',
      '/api/v1/org/{orgId}/perch/devices/{deviceId}/poll',
      {
        path: { orgId: options.orgId, deviceId: agent.device.deviceId },
        body: {
          waitSeconds: woken ? 0 : idleWait(agent),
          ...(current
            ? { running: { applicationId: current.command.applicationId, scanKey: current.command.scanKey } }
            : {}),
        },
      },
      { timeoutMs: 40_000, signal: polling.signal },
    );
    agent.failures = 0;
    if (!out.command && woken) await awaitWake(agent);
    return out.command;
  } catch (error) {
    if (polling.signal.aborted) return undefined; // the run ended: poll again, idle
    if (error instanceof ServiceError && error.status === 404) {
      agent.device = await agent.register(); // the device was removed: become a new one
      openWake(agent);
      return undefined;
    }
    agent.echo(`poll failed: ${(error as Error).message}`);
    await sleep(Math.min(1000 * 2 ** agent.failures++, 15_000));
    return undefined;
  }
}

const ack = ({ api, options, device }: Agent, command: Command) =>
  serviceCall(api, 'POST', '/api/v1/org/{orgId}/perch/devices/{deviceId}/commands/{commandId}/ack', {
    path: { orgId: options.orgId, deviceId: device.deviceId, commandId: command.commandId },
    body: { applicationId: command.applicationId },
  });

/** SCAN_STOP: acknowledged, and the current run's engine stopped if it is that run. */
async function stop(agent: Agent, command: Command): Promise<void> {
  await ack(agent, command).catch(() => undefined);
  const { current } = agent;
  if (current?.command.scanKey !== command.scanKey) return;
  if (!current.abort.signal.aborted) {
    agent.echo(`stop: scan ${command.scanKey}`);
    current.abort.abort();
  }
  await current.finished;
}

/**
 * The state `acknowledged`: a start this agent may take, acknowledged by id before it acts on it (a command
 * delivered twice runs once). Taken: the acknowledgement's answer, with the scan secrets of the run.
 */
async function acknowledged(agent: Agent, command: Command) {
  const known = ['SCAN_START', 'PROFILE_START', 'RETEST_START'].includes(command.command);
  if (!known || agent.current || agent.handled.has(command.scanKey)) return undefined;
  try {
    const taken = await ack(agent, command);
    agent.handled.add(command.scanKey);
    return taken.alreadyAcknowledged ? undefined : taken;
  } catch (error) {
    agent.echo(`command ${command.commandId} not taken: ${(error as Error).message}`);
    return undefined;
  }
}

/** Carries the run out (run.ts, or profile-run.ts for a profile) while the agent keeps polling. */
function begin(agent: Agent, started: Command, secrets: Readonly<Record<string, string>>): void {
  const { echo } = agent;
  const profile = started.command === 'PROFILE_START';
  echo(`start: ${profile ? 'profile' : started.retest ? 'retest' : 'scan'} ${started.scanKey} of ${started.targetUrl}`);
  const abort = new AbortController();
  const context = {
    api: agent.api,
    deviceId: agent.device.deviceId,
    engines: agent.engines,
    allowPrivate: agent.options.allowPrivate ?? false,
    trustedCa: agent.options.trustedCa,
    allowedVariables: agent.options.allowedVariables,
    secrets,
    signal: abort.signal,
    echo: (line: string) => echo(`[${started.scanKey.slice(0, 8)}] ${line}`),
  };
  const ended = () => {
    if (agent.current?.command !== started) return;
    agent.current = undefined;
    agent.polling?.abort();
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
      agent.finishing.delete(finished);
    });
  agent.finishing.add(finished);
  agent.current = { command: started, abort, finished };
}
