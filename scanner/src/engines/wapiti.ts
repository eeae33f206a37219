// Wapiti (Debian's `wapiti` 3.0.x) as a scan engine. Bounded: a scan time and an attack time per module
// (--max-scan-time, --max-attack-time, within the run's deadline), a few modules that need no internet (never
// ssrf, which calls an external endpoint, nor wapp, which downloads its database), --flush-session (every run
// starts clean), --no-bugreport. SIGINT opens Wapiti's interactive prompt, so a stop is SIGTERM, then SIGKILL
// after a grace period.
import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { parseWapitiReport } from '../reports/index.ts';
import { toReportedAlerts, type ReportedAlert } from '../zap/reported.ts';
import { EngineError, EngineStopped, type Engine, type EngineRun } from './engine.ts';
import { runEngineProcess } from './process.ts';

export const WAPITI_MODULES = 'xss,cookieflags,http_headers,csp,redirect';

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
  const modules = options.modules ?? process.env.HAWK_WAPITI_MODULES ?? WAPITI_MODULES;
  if (/(^|,)\s*(ssrf|wapp)\s*(,|$)/.test(modules))
    throw new Error('the wapiti modules ssrf and wapp need the internet: leave them out');
  // Asked once per engine (each run asks again otherwise: a Python start-up, seconds on a busy machine); a missing
  // wapiti found later still fails its run with the install hint.
  let installed: Promise<string | undefined> | undefined;
  return {
    name: 'wapiti',
    install: 'install wapiti (sudo apt-get install -y wapiti)',
    version: () => (installed ??= installedVersion(command)),
    async run(run: EngineRun) {
      const seconds = Math.floor((run.deadline - Date.now()) / 1000) - 10;
      if (seconds < 5) throw new EngineError('no time left before the scan deadline to run wapiti');
      const attack = Math.max(
        5,
        Math.min(options.maxAttackSeconds ?? Number(process.env.HAWK_WAPITI_ATTACK_SECONDS ?? 60), seconds),
      );
      const attackBoundByDeadline = attack >= seconds;
      const { report, authority, configDir, pythonDir } = await workFiles(run);
      const args = [
        '-u',
        run.targetUrl,
        '--scope',
        'folder',
        '-m',
        modules,
        '--flush-session',
        '--no-bugreport',
        '--max-scan-time',
        String(seconds),
        '--max-attack-time',
        String(attack),
        '--store-session',
        join(run.workDir, 'session'),
        '--store-config',
        configDir,
        '-f',
        'json',
        '-o',
        report,
        '-v',
        '1',
        ...(run.startUrls ?? []).flatMap((url) => ['-s', url]),
        ...Object.entries(run.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
        ...(run.proxyUrl ? ['-p', run.proxyUrl] : []),
        ...(authority ? ['--verify-ssl', '1'] : []),
      ];
      if (run.signal.aborted) throw new EngineStopped('the scan was stopped');
      run.log(`wapiti ${args.map((a, i) => (args[i - 1] === '-H' ? `${a.split(':')[0]}: ***` : a)).join(' ')}`);
      // Wapiti exits 0 when it reached nothing: the crawl's count tells an empty scan from a clean one.
      let crawled: number | undefined;
      // Wapiti ends a scan at --max-scan-time (the deadline less a margin) by itself, exiting 0 with what it found so
      // far: an unfinished scan, never reported as a clean one.
      let cutByScanTime = false;
      // The report read while wapiti exits, when it said it wrote one after a whole scan.
      let early: Promise<ReportedAlert[]> | undefined;
      const { code, tail } = await runEngineProcess(run, {
        name: 'wapiti',
        command,
        args,
        // English messages: the lines below are read for the crawl's count and the time limit.
        env: {
          ...process.env,
          HOME: run.workDir,
          LANGUAGE: 'en',
          // Each line as it is printed, not when a pipe's buffer fills: the run's log shows the scan's progress
          // with its real times, and the crawl's count the moment it is known.
          PYTHONUNBUFFERED: '1',
          PYTHONPATH: [pythonDir, process.env.PYTHONPATH].filter(Boolean).join(delimiter),
          ...(authority ? { REQUESTS_CA_BUNDLE: authority } : {}),
        },
        // eslint-disable-next-line no-control-regex -- removing the terminal's colour codes is the point
        clean: (line) => line.replace(/\x1b\[[0-9;]*m/g, ''),
        onLine: (line) => {
          const found = line.match(/Wapiti found (\d+) URLs and forms/);
          if (found) crawled = Number(found[1]);
          // A module cut by its attack time is cut by the deadline too when that time is all the deadline leaves.
          if (
            /Max scan time was reached/.test(line) ||
            (attackBoundByDeadline && /Max attack time was reached/.test(line))
          )
            cutByScanTime = true;
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
      if (code !== 0)
        throw new EngineError(
          `wapiti exited with ${code}; its last lines: ${tail.slice(-5).join(' | ').slice(0, 1500)}`,
        );
      if (crawled === undefined)
        throw new EngineError(
          `wapiti did not crawl ${run.targetUrl}; its last lines: ${tail.slice(-5).join(' | ').slice(0, 1500)}`,
        );
      if (crawled === 0)
        throw new EngineError(
          `wapiti found no page to attack at ${run.targetUrl}: check that app.host answers from the agent and is not behind a login the configuration does not describe`,
        );
      // The findings told early, if they could be read then (the same file: wapiti wrote it before saying so).
      const alerts = (await early?.catch(() => undefined)) ?? (await readReport(report));
      run.log(`wapiti: ${alerts.length} alerts, ${alerts.reduce((n, a) => n + a.uris.length, 0)} findings`);
      return alerts;
    },
  };
}

/** The installed wapiti's version, or undefined when it does not run. */
function installedVersion(command: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(command, ['--version'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('error', () => resolve(undefined));
    child.on('close', (code) =>
      resolve(code === 0 ? (out.match(/Wapiti[- ]?(\d[\w.]*)/i)?.[1] ?? 'unknown') : undefined),
    );
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
  return { report, authority, configDir, pythonDir };
}
