// OWASP ZAP (2.14 or later, where installed) as a scan engine: `zap.sh -cmd -autorun <plan>` with an Automation
// Framework plan generated from the run (zapPlan below): the target's context, the session's headers through the
// replacer, the spider, the passive scan, the active scan and a traditional-json report, which is read as an
// imported ZAP report is (docs/IMPORTS.md). Bounded like wapiti: each job has a time limit within the run's deadline,
// ZAP's home directory is the run's own (-dir), it makes no unsolicited requests (-silent), all its traffic goes
// through the agent's pinning proxy, and a stop or the deadline ends it (SIGTERM, then SIGKILL).
import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseZapReport } from '../zap/index.ts';
import { toReportedAlerts, type ReportedAlert } from '../zap/reported.ts';
import { EngineError, EngineStopped, type Engine, type EngineRun } from './engine.ts';
import { runEngineProcess } from './process.ts';

export const ZAP_INSTALL =
  'install OWASP ZAP 2.14 or later (its Linux or cross-platform package, with Java 17 or later) and put zap.sh on PATH or name it in HAWK_ZAP';
const REPORT_FILE = 'zap-report';

/** Whole minutes left for ZAP's jobs before the deadline, less one for its start and its report. */
const planMinutes = (deadline: number, now: number) => Math.floor((deadline - now) / 60_000) - 1;

/** How the run's minutes are shared between ZAP's jobs (ZAP counts whole minutes). */
export function zapBudget(minutes: number) {
  const spider = Math.max(1, Math.floor(minutes / 4));
  const passive = Math.max(1, Math.floor(minutes / 10));
  return { spider, passive, active: Math.max(1, minutes - spider - passive) };
}

/** A regex matching the target's URLs and nothing else: its origin and path, literally, then anything. */
const scopeOf = (targetUrl: string) => {
  const url = new URL(targetUrl);
  const base = `${url.origin}${url.pathname.replace(/[^/]*$/, '')}`;
  return `${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*`;
};

/** The Automation Framework plan of a run (YAML): written to the run's directory, read by `zap.sh -autorun`. */
export function zapPlan(
  run: Pick<EngineRun, 'targetUrl' | 'headers' | 'startUrls' | 'deadline' | 'workDir' | 'excludedPluginIds'>,
  now = Date.now(),
) {
  const minutes = planMinutes(run.deadline, now);
  if (minutes < 3) throw new EngineError('no time left before the scan deadline to run ZAP (it needs 3 minutes)');
  const budget = zapBudget(minutes);
  const jobs: Record<string, unknown>[] = [];
  const headers = Object.entries(run.headers);
  if (headers.length)
    jobs.push({
      type: 'replacer',
      name: 'session',
      parameters: { deleteAllRules: true },
      rules: headers.map(([name, value]) => ({
        description: `session ${name}`,
        url: scopeOf(run.targetUrl),
        matchType: 'req_header',
        matchString: name,
        matchRegex: false,
        replacementString: value,
        tokenProcessing: false,
      })),
    });
  // The scan policy's disabled plugins are ZAP's own scan rules (docs/SCAN-POLICIES.md): off in the passive
  // scanner before any request, and off in the active scan's policy. A plugin id is a rule's number; ZAP warns of an
  // id its scanner of that kind does not have (an active rule's among the passive ones), which fails nothing.
  const off = (run.excludedPluginIds ?? []).filter((id) => /^\d+$/.test(id)).map((id) => ({ id: Number(id) }));
  if (off.length)
    jobs.push({
      type: 'passiveScan-config',
      name: 'policy',
      rules: off.map((rule) => ({ ...rule, threshold: 'off' })),
    });
  if (run.startUrls?.length)
    jobs.push({ type: 'requestor', name: 'seeds', requests: run.startUrls.map((url) => ({ url, method: 'GET' })) });
  jobs.push(
    {
      type: 'spider',
      name: 'spider',
      parameters: { context: 'hawk', url: run.targetUrl, maxDuration: budget.spider },
    },
    { type: 'passiveScan-wait', name: 'passive', parameters: { maxDuration: budget.passive } },
    {
      type: 'activeScan',
      name: 'active',
      parameters: { context: 'hawk', maxScanDurationInMins: budget.active, maxRuleDurationInMins: budget.active },
      ...(off.length
        ? { policyDefinition: { rules: off.map((rule) => ({ ...rule, strength: 'medium', threshold: 'off' })) } }
        : {}),
    },
    {
      type: 'report',
      name: 'report',
      parameters: { template: 'traditional-json', reportDir: run.workDir, reportFile: REPORT_FILE },
    },
  );
  return stringify({
    env: {
      contexts: [{ name: 'hawk', urls: [run.targetUrl], includePaths: [scopeOf(run.targetUrl)] }],
      parameters: { failOnError: true, failOnWarning: false, progressToStdout: true },
    },
    jobs,
  });
}

export function zapEngine(options: { command?: string } = {}): Engine {
  const command = options.command ?? process.env.HAWK_ZAP ?? 'zap.sh';
  let installed: Promise<string | undefined> | undefined;
  return {
    name: 'zap',
    install: ZAP_INSTALL,
    version: () =>
      (installed ??= new Promise((resolve) => {
        const child = spawn(command, ['-cmd', '-version'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (chunk) => (out += chunk));
        child.stderr.on('data', (chunk) => (out += chunk));
        child.on('error', () => resolve(undefined));
        child.on('close', (code) => resolve(code === 0 ? (out.match(/(\d+\.\d+\.\d+)/)?.[1] ?? 'unknown') : undefined));
      })),
    async run(run: EngineRun) {
      const now = Date.now();
      const plan = zapPlan(run, now);
      await mkdir(run.workDir, { recursive: true });
      const report = join(run.workDir, `${REPORT_FILE}.json`);
      await rm(report, { force: true });
      const planFile = join(run.workDir, 'zap-plan.yaml');
      // It holds the session's headers: readable by this user only.
      await writeFile(planFile, plan, { mode: 0o600 });
      const proxy = run.proxyUrl ? new URL(run.proxyUrl) : undefined;
      const args = [
        '-cmd',
        '-silent',
        '-dir',
        join(run.workDir, 'zap-home'),
        '-autorun',
        planFile,
        ...(proxy
          ? [
              '-config',
              'network.connection.httpProxy.enabled=true',
              '-config',
              `network.connection.httpProxy.host=${proxy.hostname}`,
              '-config',
              `network.connection.httpProxy.port=${proxy.port}`,
            ]
          : []),
      ];
      if (run.signal.aborted) throw new EngineStopped('the scan was stopped');
      run.log(`zap ${args.join(' ')}`);
      const budget = zapBudget(planMinutes(run.deadline, now));
      run.log(
        `zap plan: spider ${budget.spider} min, passive scan ${budget.passive} min, active scan ${budget.active} min; session headers ${Object.keys(run.headers).join(', ') || 'none'} (values not logged)`,
      );
      const { code, tail } = await runEngineProcess(run, {
        name: 'zap',
        command,
        args,
        env: { ...process.env, HOME: run.workDir },
        startError: (message) => new EngineError(`ZAP could not start (${command}: ${message}): ${ZAP_INSTALL}`),
      });
      if (run.signal.aborted) throw new EngineStopped('the scan was stopped');
      if (Date.now() > run.deadline) throw new EngineError('ZAP did not finish before the scan deadline');
      // -autorun exits 1 on a plan error, 2 on warnings only (a job's time limit, say).
      if (code !== 0 && code !== 2)
        throw new EngineError(`ZAP exited with ${code}; its last lines: ${tail.slice(-5).join(' | ').slice(0, 1500)}`);
      const text = await readFile(report, 'utf8').catch(() => undefined);
      if (text === undefined) throw new EngineError('ZAP exited without writing its report');
      let alerts: ReportedAlert[];
      try {
        alerts = toReportedAlerts(parseZapReport(text));
      } catch (error) {
        throw new EngineError(`ZAP's report cannot be read: ${(error as Error).message}`);
      }
      run.log(`zap: ${alerts.length} alerts, ${alerts.reduce((n, a) => n + a.uris.length, 0)} findings`);
      return alerts;
    },
  };
}
