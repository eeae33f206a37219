// Wapiti (Debian's `wapiti` 3.0.x) as a scan engine. Bounded: a scan time and an attack time per module
// (--max-scan-time, --max-attack-time, within the run's deadline), every module that needs no internet that the
// scan policy lets run (wapiti-modules.ts; never ssrf, xxe, wapp, nikto or takeover, which call out),
// --flush-session (every run starts clean), --no-bugreport. SIGINT opens Wapiti's interactive prompt, so a stop is
// SIGTERM, then SIGKILL after a grace period.
import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { parseWapitiReport } from '../reports/index.ts';
import { toReportedAlerts, type ReportedAlert } from '../zap/reported.ts';
import { EngineError, EngineStopped, type Engine, type EngineCoverage, type EngineRun } from './engine.ts';
import { runEngineProcess } from './process.ts';
import {
  INTERNET_MODULES,
  listedModules,
  modulesForPolicy,
  modulesOfPlugin,
  moduleOfFinding,
  WAPITI_ATTACK_MODULES,
} from './wapiti-modules.ts';

/** Every module a hosted scan may run, in wapiti's order. */
export const WAPITI_MODULES = WAPITI_ATTACK_MODULES.map((m) => m.name).join(',');

/**
 * Run by Python at wapiti's start (a `usercustomize` module on PYTHONPATH): TCP_NODELAY on each TCP connection.
 * urllib3 1.26 (Debian's, wapiti's HTTP library) turns Nagle's algorithm on for its connections to a proxy and
 * writes a request's headers and its body apart, so each POST through the agent's proxy waited for the proxy's
 * delayed ACK (about 40 ms) before its body went out.
 */
const NO_DELAY_MODULE = `# Written by the hawk-scanner agent for wapiti (scanner/src/engines/wapiti.ts).
import socket

_connect = socket.socket.connect


def _connect_without_delay(self, address):
    if self.type == socket.SOCK_STREAM and self.family in (socket.AF_INET, socket.AF_INET6):
        try:
            self.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
    return _connect(self, address)


socket.socket.connect = _connect_without_delay
`;

/** What wapiti prints once its report is written: all that follows is its exit. */
const REPORT_WRITTEN = /^A report has been generated in the file /;

/** The findings of wapiti's JSON report. */
async function readReport(report: string): Promise<ReportedAlert[]> {
  const text = await readFile(report, 'utf8').catch(() => undefined);
  if (text === undefined) throw new EngineError('wapiti exited without writing its report');
  try {
    // Read as an imported Wapiti report is (docs/IMPORTS.md): the same alerts, plugin ids and finding hashes.
    return toReportedAlerts(parseWapitiReport(text));
  } catch (error) {
    throw new EngineError(`wapiti's report cannot be read: ${(error as Error).message}`);
  }
}

export function wapitiEngine(options: { command?: string; modules?: string; maxAttackSeconds?: number } = {}): Engine {
  const command = options.command ?? process.env.HAWK_WAPITI ?? 'wapiti';
  // The operator's own choice (HAWK_WAPITI_MODULES), within which the scan policy decides.
  const allowed = (options.modules ?? process.env.HAWK_WAPITI_MODULES)
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const callingOut = allowed?.filter((name) => (INTERNET_MODULES as readonly string[]).includes(name)) ?? [];
  if (callingOut.length)
    throw new Error(`the wapiti modules ${callingOut.join(', ')} need the internet: leave them out`);
  // Asked once per engine (each run asks again otherwise: a Python start-up, seconds on a busy machine); a missing
  // wapiti found later still fails its run with the install hint. The module list is asked alongside the version:
  // the agent asks the version at its start, so its first scan no longer waits for a second start-up in sequence
  // (0.8-1 s of the bench's first hosted scan of the small site, between its pinning and wapiti's start).
  let installed: Promise<string | undefined> | undefined;
  let listed: Promise<Set<string> | undefined> | undefined;
  return {
    name: 'wapiti',
    install: 'install wapiti (sudo apt-get install -y wapiti)',
    version: () => {
      listed ??= installedModules(command);
      return (installed ??= installedVersion(command));
    },
    async run(run: EngineRun) {
      const seconds = Math.floor((run.deadline - Date.now()) / 1000) - 10;
      if (seconds < 5) throw new EngineError('no time left before the scan deadline to run wapiti');
      const attack = Math.max(
        5,
        Math.min(options.maxAttackSeconds ?? Number(process.env.HAWK_WAPITI_ATTACK_SECONDS ?? 60), seconds),
      );
      const modules = chosenModules(run, allowed, await (listed ??= installedModules(command)));
      const files = await workFiles(run);
      const args = wapitiArgs(run, { ...files, modules, seconds, attack });
      if (run.signal.aborted) throw new EngineStopped('the scan was stopped');
      run.log(`wapiti ${args.map((a, i) => (args[i - 1] === '-H' ? `${a.split(':')[0]}: ***` : a)).join(' ')}`);
      const progress = await runWapiti(run, command, args, files, attack >= seconds);
      // The findings told early, if they could be read then (the same file: wapiti wrote it before saying so).
      const alerts = (await progress.early?.catch(() => undefined)) ?? (await readReport(files.report));
      run.onCoverage?.(await coverageOf(run, files, progress));
      run.log(`wapiti: ${alerts.length} alerts, ${alerts.reduce((n, a) => n + a.uris.length, 0)} findings`);
      return alerts;
    },
  };
}

/**
 * The modules this run runs: the scan policy's (a retest: its finding's), within the operator's choice, that this
 * wapiti has.
 */
function chosenModules(run: EngineRun, allowed: string[] | undefined, installed: Set<string> | undefined): string[] {
  const byPolicy = run.focus ? modulesOfPlugin(run.focus.pluginId) : modulesForPolicy(run.excludedPluginIds);
  if (run.focus && !byPolicy.length)
    throw new EngineError(
      `no wapiti module checks for findings of plugin ${run.focus.pluginId}: it cannot be retested`,
    );
  const skipped = WAPITI_MODULES.split(',').filter((name) => !byPolicy.includes(name));
  if (skipped.length && !run.focus) run.log(`wapiti: the scan policy leaves out the modules ${skipped.join(',')}`);
  const chosen = byPolicy.filter((name) => !allowed || allowed.includes(name));
  // Module names differ between wapiti versions: one this wapiti does not list is left out, saying so.
  const missing = installed ? chosen.filter((name) => !installed.has(name)) : [];
  if (missing.length) run.log(`wapiti: this wapiti has no module ${missing.join(',')}: left out`);
  return chosen.filter((name) => !missing.includes(name));
}

type WorkFiles = Awaited<ReturnType<typeof workFiles>>;

/**
 * Where wapiti crawls: the target's folder; a retest, its finding's URL alone (a GET's other query parameters
 * skipped), or for another method the page whose form sends it.
 */
function scopeArgs(run: EngineRun): string[] {
  const focus = run.focus;
  if (!focus) return ['-u', run.targetUrl, '--scope', 'folder'];
  if (focus.method.toUpperCase() !== 'GET') return ['-u', focus.url, '--scope', 'page'];
  const others = [...new URL(focus.url).searchParams.keys()].filter((name) => name !== focus.param);
  return ['-u', focus.url, '--scope', 'url', ...[...new Set(others)].flatMap((name) => ['--skip', name])];
}

function wapitiArgs(run: EngineRun, a: WorkFiles & { modules: string[]; seconds: number; attack: number }) {
  return [
    ...scopeArgs(run),
    // No module: the crawl alone (wapiti reads "-all" as every module off).
    ...(a.modules.length ? ['-m', a.modules.join(',')] : ['--module=-all']),
    '--flush-session',
    '--no-bugreport',
    '--max-scan-time',
    String(a.seconds),
    '--max-attack-time',
    String(a.attack),
    '--store-session',
    a.sessionDir,
    '--store-config',
    a.configDir,
    '-f',
    'json',
    '-o',
    a.report,
    '-v',
    '1',
    ...(run.startUrls ?? []).flatMap((url) => ['-s', url]),
    ...Object.entries(run.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    ...(run.proxyUrl ? ['-p', run.proxyUrl] : []),
    ...(a.authority ? ['--verify-ssl', '1'] : []),
  ];
}

/** Runs wapiti to its end, reading its progress from its output; fails unless it crawled and finished in time. */
async function runWapiti(
  run: EngineRun,
  command: string,
  args: string[],
  files: WorkFiles,
  attackBoundByDeadline: boolean,
) {
  const { report, authority, pythonDir } = files;
  // Wapiti exits 0 when it reached nothing: the crawl's count tells an empty scan from a clean one.
  let crawled: number | undefined;
  // Wapiti ends a scan at --max-scan-time (the deadline less a margin) by itself, exiting 0 with what it found so
  // far: an unfinished scan, never reported as a clean one.
  let cutByScanTime = false;
  // The modules cut at their attack time (the scan goes on with the next).
  const cut = new Set<string>();
  const launched: string[] = [];
  // The report read while wapiti exits, when it said it wrote one after a whole scan.
  let early: Promise<ReportedAlert[]> | undefined;
  const { code, tail } = await runEngineProcess(run, {
    name: 'wapiti',
    command,
    args,
    // English messages: the lines below are read for the crawl's count, the modules and the time limit.
    env: {
      ...process.env,
      HOME: run.workDir,
      LANGUAGE: 'en',
      // Each line as it is printed, not when a pipe's buffer fills: the run's log shows the scan's progress
      // with its real times, the crawl's count the moment it is known, each module as it starts.
      PYTHONUNBUFFERED: '1',
      PYTHONPATH: [pythonDir, process.env.PYTHONPATH].filter(Boolean).join(delimiter),
      ...(authority ? { REQUESTS_CA_BUNDLE: authority } : {}),
    },
    // eslint-disable-next-line no-control-regex -- removing the terminal's colour codes is the point
    clean: (line) => line.replace(/\x1b\[[0-9;]*m/g, ''),
    onLine: (line) => {
      const found = line.match(/Wapiti found (\d+) URLs and forms/);
      if (found) crawled = Number(found[1]);
      const module = line.match(/^\[\*\] Launching module (\w+)/)?.[1];
      if (module) {
        launched.push(module);
        run.onModule?.(module);
      }
      const timedOut = line.match(/Max attack time was reached for module (\w+)/)?.[1];
      if (timedOut) cut.add(timedOut);
      // A module cut by its attack time is cut by the deadline too when that time is all the deadline leaves.
      if (/Max scan time was reached/.test(line) || (attackBoundByDeadline && timedOut)) cutByScanTime = true;
      if (run.onReport && !early && crawled && !cutByScanTime && REPORT_WRITTEN.test(line)) {
        early = readReport(report);
        early.then(run.onReport).catch(() => undefined);
      }
    },
    startError: (message) =>
      new EngineError(`wapiti could not start: ${message}; install it (sudo apt-get install -y wapiti)`),
  });
  if (run.signal.aborted) throw new EngineStopped('the scan was stopped');
  if (cutByScanTime || Date.now() > run.deadline)
    throw new EngineError(
      `wapiti did not finish before the scan deadline${cutByScanTime ? ' (it stopped at the time the deadline leaves it)' : ''}`,
    );
  const last = () => tail.slice(-5).join(' | ').slice(0, 1500);
  if (code !== 0) throw new EngineError(`wapiti exited with ${code}; its last lines: ${last()}`);
  if (crawled === undefined) throw new EngineError(`wapiti did not crawl ${run.targetUrl}; its last lines: ${last()}`);
  if (crawled === 0)
    throw new EngineError(
      `wapiti found no page to attack at ${run.targetUrl}: check that app.host answers from the agent and is not behind a login the configuration does not describe`,
    );
  return { crawled, cut, launched, early };
}

/**
 * Reads wapiti's crawl from its session (paths not made by an attack: GET ones are the pages, POST ones the forms;
 * the Python that runs wapiti reads it) and each launched module's findings from its report.
 */
const COUNT_CRAWLED = `import glob, json, sqlite3, sys
counts = {}
for db in glob.glob(sys.argv[1] + "/*.db"):
    for method, n in sqlite3.connect(db).execute("SELECT method, COUNT(*) FROM paths WHERE evil = 0 GROUP BY method"):
        counts[method] = counts.get(method, 0) + n
print(json.dumps(counts))
`;

async function coverageOf(
  run: EngineRun,
  files: WorkFiles,
  progress: { crawled: number; cut: Set<string>; launched: string[] },
): Promise<EngineCoverage> {
  const counted = await pythonOutput(['-c', COUNT_CRAWLED, files.sessionDir]);
  let crawl = { pages: progress.crawled, forms: 0 };
  try {
    const byMethod = JSON.parse(counted ?? '') as Record<string, number>;
    const forms = byMethod.POST ?? 0;
    crawl = { pages: Object.values(byMethod).reduce((a, b) => a + b, 0) - forms, forms };
  } catch {
    run.log(`wapiti: its session could not be read for the crawl's pages and forms: ${progress.crawled} counted`);
  }
  const findings = new Map<string, number>();
  const report = JSON.parse(await readFile(files.report, 'utf8')) as {
    vulnerabilities?: Record<string, { info?: string }[]>;
  };
  for (const [category, entries] of Object.entries(report.vulnerabilities ?? {}))
    for (const entry of entries) {
      const module = moduleOfFinding(category, entry.info ?? '');
      if (module) findings.set(module, (findings.get(module) ?? 0) + 1);
    }
  return {
    ...crawl,
    modules: progress.launched.map((name) => ({
      name,
      findings: findings.get(name) ?? 0,
      cutAtTimeLimit: progress.cut.has(name),
    })),
  };
}

/** The installed wapiti's version, or undefined when it does not run. */
async function installedVersion(command: string): Promise<string | undefined> {
  const output = await commandOutput(command, ['--version']);
  return output === undefined ? undefined : (output.match(/Wapiti[- ]?(\d[\w.]*)/i)?.[1] ?? 'unknown');
}

/** The modules the installed wapiti lists, or undefined when it does not run. */
async function installedModules(command: string): Promise<Set<string> | undefined> {
  const output = await commandOutput(command, ['--list-modules']);
  return output === undefined ? undefined : listedModules(output);
}

const pythonOutput = (args: string[]) => commandOutput('python3', args);

/** A command's output (stdout and stderr), or undefined when it does not run or fails. */
function commandOutput(command: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => resolve(code === 0 ? out : undefined));
  });
}

/** The run's files in its work directory: the report's place (emptied), the proxy's authority, wapiti's folders. */
async function workFiles(run: EngineRun) {
  const report = join(run.workDir, 'wapiti.json');
  await mkdir(run.workDir, { recursive: true });
  await rm(report, { force: true }); // a report is this run's or none
  // Wapiti checks no certificate by default (--verify-ssl 0): given the proxy's authority, it checks the proxy's
  // (requests reads the trusted authorities from REQUESTS_CA_BUNDLE).
  const authority = run.proxyAuthority ? join(run.workDir, 'proxy-authority.pem') : undefined;
  if (authority) await writeFile(authority, run.proxyAuthority!, { mode: 0o600 });
  // Wapiti loads every module at start, and its wapp module, finding no fingerprint database in the config
  // folder, tries to download one from GitHub even though it never runs: an empty database there keeps the
  // engine from reaching for the internet (the proxy would refuse it; without one it would go out).
  const configDir = join(run.workDir, 'config');
  await mkdir(configDir, { recursive: true });
  await writeFile(join(configDir, 'apps.json'), '{}');
  const pythonDir = join(run.workDir, 'python');
  await mkdir(pythonDir, { recursive: true });
  await writeFile(join(pythonDir, 'usercustomize.py'), NO_DELAY_MODULE);
  return { report, authority, configDir, pythonDir, sessionDir: join(run.workDir, 'session') };
}
