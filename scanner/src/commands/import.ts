// `hawk-scanner import --app <appId> --env <name> [--format <tool>] [--url <url>] [--fail-on high|medium|low|overdue|new:<severity>]
// [--summary markdown] <report>`:
// reads a scanner's report (ZAP, Wapiti, Nuclei, Burp Suite, SARIF; docs/IMPORTS.md) locally and sends it through the scanner's three reporting operations (start, findings reports
// in batches, complete), so a report of any size is imported. Resumable: every findings report carries an id
// derived from the report, and a state file records the scan and the reports sent, so a run that failed on a
// network error is continued by running the same command again (the service counts a resent report once).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { service, ServiceError, type Service } from '../net/service.ts';
import { serviceCall, type Answer } from '../api/call.ts';
import { diffOfImport, markdownSummary, newAtOrAbove } from './import-diff.ts';
import {
  BATCH_LIMITS,
  importedScanConfig,
  importedScanLabels,
  parseReports,
  REPORT_TOOLS,
  ReportError,
  reportBatches,
  toReportedAlerts,
  urlCountOf,
  type ImportedReport,
  type ReportedAlert,
  type Severity,
} from '../reports/index.ts';

export const IMPORT_USAGE = `import --app <appId> --env <name> [--format <tool>] [--url <url>] [--fail-on high|medium|low|info|overdue|new:<severity>] [--summary markdown] [--batch-size <uris>] <report>
  Imports a scanner's report as a completed scan of environment <name> (created when new) of application <appId>:
  OWASP ZAP (XML, xml-plus, JSON, json-plus, SARIF), Wapiti (JSON, XML), Nuclei (JSON Lines, JSON), Burp Suite
  (XML issue export) or any tool's SARIF 2.1.0 (one scan per run), recognised from the content;
  --format ${REPORT_TOOLS.join('|')} names the tool when the content could be another's. API key: HAWK_API_KEY; service URL: --url or HAWK_API_URL.
  Sends the findings in batches (at most ${BATCH_LIMITS.maxUris} URIs each, --batch-size fewer) with retries; run the
  same command again to resume after a failure (state in HAWK_STATE_DIR, default ${join(tmpdir(), 'hawk-scanner')}).
  --fail-on: exit 3 when untriaged findings of that severity or higher remain (a CI gate); overdue: when findings of
  the scan are past their due date (the organization's SLA policy; the key then needs read:scan too). Both may be
  given, comma-separated: --fail-on high,overdue. new:<severity>: when the import brings a new or regressed finding
  of that severity or higher against the previous scan of its tool stream (combinable: --fail-on new:high,overdue).
  --summary markdown: prints on stdout a markdown summary of what the import changed (new, regressed and fixed
  findings, with links to the scans under the dashboard address HAWK_DASHBOARD_URL, default the service URL) for a CI
  step summary or a pull-request comment; the one-line summary then goes to stderr. new: and --summary need read:scan.
  exit 0: imported, 1: import failed, 2: bad usage or report, 3: --fail-on threshold reached`;

const THRESHOLDS = ['high', 'medium', 'low', 'info'] as const;
const ORDER: Severity[] = ['High', 'Medium', 'Low', 'Info'];
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

interface Options {
  app: string;
  env: string;
  url: string;
  apiKey: string;
  failOn?: Severity;
  failOnOverdue: boolean;
  failOnNew?: Severity;
  summary: boolean;
  format?: string;
  batchUris: number;
  file: string;
  stateDir: string;
  retries: number;
}

function parseArgs(args: string[]): Options | string {
  const flags: Record<string, string> = {};
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const eq = arg.match(/^--([a-z-]+)=(.*)$/s);
    if (eq) flags[eq[1]] = eq[2];
    else if (arg.startsWith('--')) {
      if (i + 1 >= args.length) return `${arg} needs a value`;
      flags[arg.slice(2)] = args[++i];
    } else files.push(arg);
  }
  const unknown = Object.keys(flags).filter(
    (f) => !['app', 'env', 'url', 'fail-on', 'batch-size', 'format', 'summary'].includes(f),
  );
  if (unknown.length) return `unknown option --${unknown[0]}`;
  if (files.length !== 1) return files.length ? 'give one report file' : 'no report file given';
  if (!flags.app || !UUID.test(flags.app)) return '--app must be the application id (a UUID)';
  if (!flags.env?.trim()) return '--env must name the environment';
  const url = flags.url ?? process.env.HAWK_API_URL ?? '';
  if (!/^https?:\/\/[^/]/.test(url)) return 'the service URL is missing: pass --url https://... or set HAWK_API_URL';
  const apiKey = process.env.HAWK_API_KEY ?? '';
  if (!apiKey) return 'the API key is missing: set HAWK_API_KEY (an API key of a user with write:scan)';
  const gates = flags['fail-on'] === undefined ? [] : flags['fail-on'].toLowerCase().split(',');
  const isSeverity = (g: string) => (THRESHOLDS as readonly string[]).includes(g);
  if (gates.some((g) => g !== 'overdue' && !isSeverity(g) && !isSeverity(g.replace(/^new:/, ''))))
    return `--fail-on must be one of ${[...THRESHOLDS, 'overdue'].join(', ')} or new:<severity>, several comma-separated`;
  const severities = gates.filter(isSeverity);
  if (severities.length > 1) return '--fail-on takes one severity (the lowest that fails the build)';
  const newGates = gates.filter((g) => g.startsWith('new:')).map((g) => g.slice('new:'.length));
  if (newGates.length > 1) return '--fail-on takes one new:<severity> (the lowest that fails the build)';
  if (flags.summary !== undefined && flags.summary.toLowerCase() !== 'markdown') return '--summary must be markdown';
  const failOn = severities[0];
  const toSeverity = (g: string | undefined) =>
    g ? ORDER[THRESHOLDS.indexOf(g as (typeof THRESHOLDS)[number])] : undefined;
  const format = flags.format?.toLowerCase();
  if (format !== undefined && !(REPORT_TOOLS as readonly string[]).includes(format))
    return `--format must be one of ${REPORT_TOOLS.join(', ')}`;
  const batchUris = flags['batch-size'] === undefined ? BATCH_LIMITS.maxUris : Number(flags['batch-size']);
  if (!Number.isInteger(batchUris) || batchUris < 1 || batchUris > BATCH_LIMITS.maxUris)
    return `--batch-size must be 1 to ${BATCH_LIMITS.maxUris}`;
  const retries = Number(process.env.HAWK_IMPORT_RETRIES ?? 5);
  return {
    app: flags.app,
    env: flags.env.trim(),
    url: url.replace(/\/+$/, ''),
    apiKey,
    failOn: toSeverity(failOn),
    failOnOverdue: gates.includes('overdue'),
    failOnNew: toSeverity(newGates[0]),
    summary: flags.summary !== undefined,
    format,
    batchUris,
    file: files[0],
    stateDir: process.env.HAWK_STATE_DIR || join(tmpdir(), 'hawk-scanner'),
    retries: Number.isInteger(retries) && retries >= 0 ? retries : 5,
  };
}

// ---- Progress on stderr: a bar on a terminal, a line per tenth otherwise (CI logs)

function progress(total: number, unit: string) {
  const tty = process.stderr.isTTY;
  let lastTenth = -1;
  return (done: number, note = '') => {
    const share = total ? done / total : 1;
    if (tty) {
      const width = 30;
      const filled = Math.round(share * width);
      process.stderr.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${unit} ${note}`.padEnd(80),
      );
      if (done === total) process.stderr.write('\n');
    } else {
      const tenth = Math.floor(share * 10);
      if (tenth !== lastTenth || note)
        process.stderr.write(`${Math.round(share * 100)}% (${done}/${total} ${unit})${note ? ` ${note}` : ''}\n`);
      lastTenth = tenth;
    }
  };
}

// ---- Resume state

interface State {
  scanId: string;
  /** Findings reports acknowledged so far (in order). */
  sent: number;
}

function stateStore(options: Options, reportHash: string) {
  const key = createHash('sha256')
    .update(JSON.stringify([reportHash, options.url, options.app, options.env, options.batchUris]))
    .digest('hex')
    .slice(0, 32);
  const file = join(options.stateDir, `import-${key}.json`);
  return {
    key,
    file,
    read(): State | undefined {
      try {
        const state = JSON.parse(readFileSync(file, 'utf8')) as State;
        return typeof state.scanId === 'string' && Number.isInteger(state.sent) ? state : undefined;
      } catch {
        return undefined;
      }
    },
    write(state: State) {
      mkdirSync(options.stateDir, { recursive: true });
      writeFileSync(file, JSON.stringify(state));
    },
    remove: () => rmSync(file, { force: true }),
  };
}

// ---- The command

/** What POST /api/v1/scan/{scanId}/complete answers (reportScanCompleted): the scan's result. */
type ScanResult = Answer<'POST', '/api/v1/scan/{scanId}/complete'>;

/** Untriaged findings by severity from the completed scan (triage rules of earlier scans applied). */
function untriagedBySeverity(result: ScanResult | undefined, alerts: ReportedAlert[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { High: 0, Medium: 0, Low: 0, Info: 0 };
  if (!result?.alertStats) {
    for (const alert of alerts) counts[alert.severity] += alert.uris.length;
    return counts;
  }
  for (const stats of result.alertStats.alertStatusStats ?? []) {
    if (stats.alertStatus !== 'UNKNOWN' && stats.alertStatus !== 'ADD_COMMENT') continue;
    for (const severity of ORDER) counts[severity] += stats.severityStats?.[severity] ?? 0;
  }
  return counts;
}

async function importReport(options: Options): Promise<number> {
  let text: Buffer;
  try {
    text = readFileSync(options.file);
  } catch (error) {
    console.error(`hawk-scanner import: cannot read ${options.file}: ${(error as Error).message}`);
    return 2;
  }
  let reports: ImportedReport[];
  try {
    reports = parseReports(text, options.format);
  } catch (error) {
    if (!(error instanceof ReportError)) throw error;
    console.error(`hawk-scanner import: ${options.file} is not an importable report: ${error.message}`);
    return 2;
  }
  const reportHash = createHash('sha256').update(text).digest('hex');
  // 409: a concurrent change, 413: storing took too long on a busy service; both pass, as 429 and 5xx do.
  const api = service({
    url: options.url,
    apiKey: options.apiKey,
    keyName: 'HAWK_API_KEY',
    retries: options.retries,
    retryStatuses: [409, 413],
  });
  // A SARIF log of several runs is one scan per run, imported in order (each resumable on its own).
  let code = 0;
  for (const [r, report] of reports.entries()) {
    const run = reports.length > 1 ? ` (run ${r + 1} of ${reports.length})` : '';
    code = Math.max(
      code,
      await importOne(options, report, reports.length > 1 ? `${reportHash}#${r}` : reportHash, api, run),
    );
  }
  return code;
}

/** Imports one scan's report: start (or resume), findings reports, complete; 3 when --fail-on is reached. */
async function importOne(options: Options, report: ImportedReport, reportHash: string, api: Service, run: string) {
  const alerts = toReportedAlerts(report);
  const batches = reportBatches(alerts, { ...BATCH_LIMITS, maxUris: options.batchUris });
  const store = stateStore(options, reportHash);

  let state = store.read();
  if (state) {
    console.error(
      `hawk-scanner import: resuming scan ${state.scanId} at findings report ${state.sent + 1} of ${batches.length} (${store.file})`,
    );
  } else {
    const labels = importedScanLabels(report);
    const started = await serviceCall(api, 'POST', '/api/v1/app/{appId}/scan', {
      path: { appId: options.app },
      body: {
        env: options.env,
        config: importedScanConfig(options.app, options.env, report),
        hawkscanVersion: labels.hawkscanVersion,
        host: report.host.slice(0, 2048),
        tags: labels.tags,
      },
    });
    state = { scanId: started.scanId, sent: 0 };
    store.write(state);
  }
  const total = report.uriCount;
  const show = progress(total, 'findings');
  const sentUris = () =>
    batches.slice(0, state!.sent).reduce((n, b) => n + b.reduce((m, a) => m + a.uris.length, 0), 0);
  show(sentUris());
  for (let i = state.sent; i < batches.length; i++) {
    try {
      await serviceCall(
        api,
        'POST',
        '/api/v1/scan/{scanId}/alerts',
        { path: { scanId: state.scanId }, body: { alerts: batches[i], reportId: `${store.key}-${i}` } },
        { onRetry: () => show(sentUris(), '(retrying)') },
      );
    } catch (error) {
      // The scan ended or was deleted meanwhile: a later run starts afresh.
      if (error instanceof ServiceError && (error.status === 400 || error.status === 404)) store.remove();
      throw error;
    }
    state.sent = i + 1;
    store.write(state);
    show(sentUris());
  }
  let result: ScanResult | undefined;
  try {
    result = await serviceCall(api, 'POST', '/api/v1/scan/{scanId}/complete', {
      path: { scanId: state.scanId },
      body: { status: 'COMPLETED', urlCount: urlCountOf(report) },
    });
  } catch (error) {
    // A completion whose answer was lost ends the scan: the resent one finds it ended.
    if (!(error instanceof ServiceError && /already ended \(COMPLETED\)/.test(error.message))) throw error;
  }
  store.remove();

  const untriaged = untriagedBySeverity(result, alerts);
  const counts = ORDER.map((s) => `${s} ${untriaged[s]}`).join(', ');
  const skipped = report.skipped.length
    ? `; ${report.skipped.length} items skipped or cut (${report.skipped[0].where}: ${report.skipped[0].reason}${report.skipped.length > 1 ? ', ...' : ''})`
    : '';
  // With --summary markdown, stdout is the markdown alone (appended to a step summary file as it is).
  (options.summary ? console.error : console.log)(
    `hawk-scanner import: ${options.file}${run} (${report.toolName} ${report.format} ${report.toolVersion || 'unknown version'}) imported as scan ${state.scanId} of environment ${options.env}: ` +
      `${alerts.length} alerts, ${report.uriCount} findings; untriaged ${counts}${skipped}`,
  );
  return gateImport(options, api, state.scanId, untriaged, `${report.toolName} import${run}`);
}

/** The --fail-on gates and the --summary of a completed import: 3 when a gate is reached, else 0. */
async function gateImport(
  options: Options,
  api: Service,
  scanId: string,
  untriaged: Record<Severity, number>,
  heading: string,
): Promise<number> {
  let code = 0;
  if (options.failOn) {
    const over = ORDER.slice(0, ORDER.indexOf(options.failOn) + 1).reduce((n, s) => n + untriaged[s], 0);
    if (over > 0) {
      console.error(
        `hawk-scanner import: ${over} untriaged findings of severity ${options.failOn} or higher (--fail-on ${options.failOn.toLowerCase()})`,
      );
      code = 3;
    }
  }
  if (options.failOnOverdue) {
    // The service judges due dates (the organization's SLA policy and each finding's triage history).
    const sla = await serviceCall(api, 'GET', '/api/v1/scan/{scanId}/sla', { path: { scanId } });
    if (sla.overdueCount > 0) {
      const { High, Medium, Low } = sla.overdueBySeverity ?? { High: 0, Medium: 0, Low: 0 }; // a sub-message: optional in the schema
      console.error(
        `hawk-scanner import: ${sla.overdueCount} findings past their due date (High ${High}, Medium ${Medium}, Low ${Low}; --fail-on overdue)`,
      );
      for (const f of sla.overdue.slice(0, 10))
        console.error(
          `  ${f.severity} ${f.pluginId} ${f.requestMethod} ${f.url}: due ${f.dueDate} (${-f.daysLeft} days late)`,
        );
      code = 3;
    }
  }
  if (!options.failOnNew && !options.summary) return code;
  const diff = await diffOfImport(api, scanId);
  if (options.failOnNew) {
    const added = newAtOrAbove(diff, options.failOnNew);
    if (added.length > 0) {
      console.error(
        `hawk-scanner import: ${added.length} new or regressed findings of severity ${options.failOnNew} or higher (--fail-on new:${options.failOnNew.toLowerCase()})`,
      );
      for (const f of added.slice(0, 10)) console.error(`  ${f.severity} ${f.pluginId} ${f.method} ${f.uri}`);
      code = 3;
    }
  }
  if (options.summary) {
    // The dashboard's scan page (web/src/App.tsx routes) under the organization the application belongs to.
    const app = await serviceCall(api, 'GET', '/api/v1/app/{appId}', { path: { appId: options.app } });
    const base = `${(process.env.HAWK_DASHBOARD_URL || options.url).replace(/\/+$/, '')}/org/${app.organizationId}/scan/`;
    console.log(markdownSummary(diff, heading, base + scanId, base + (diff.againstScanId ?? '')));
  }
  return code;
}

/** Runs `import` with the arguments after the command name; answers the exit code, or 'usage' for bad arguments. */
export async function importCommand(args: string[]): Promise<number | 'usage'> {
  const options = parseArgs(args);
  if (typeof options === 'string') {
    console.error(`hawk-scanner import: ${options}`);
    return 'usage';
  }
  try {
    return await importReport(options);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    console.error(`hawk-scanner import: ${error.message}`);
    console.error('Run the same command again to continue: findings reports already counted are not sent twice.');
    return 1;
  }
}
