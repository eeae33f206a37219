import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseReports, toReportedAlerts } from '@hawk-api/scanner/reports';

// A child process of the `imports` bench section (scripts/bench/imports.ts), so that its peak memory is one
// report's alone: reads the report file, then reads it as the import does (recognition, parse and mapping to the
// tool-independent shape: parseReports, then toReportedAlerts) `runs` times. Prints one JSON line: what was read,
// each run's wall time, the RSS before the first read and the process's peak RSS after it (getrusage maxrss).
// Run with `node --expose-gc --import tsx`.
const [file, runsArg] = process.argv.slice(2);
const runs = Math.max(1, Number(runsArg ?? 1));
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const body = readFileSync(file);
gc();
const rssBefore = process.memoryUsage().rss;

const readOnce = () => {
  const reports = parseReports(body);
  const alerts = reports.map((report) => toReportedAlerts(report));
  return { reports, alerts };
};

const ms: number[] = [];
let first: ReturnType<typeof readOnce> | undefined;
let peakAfterFirst = 0;
for (let i = 0; i < runs; i++) {
  const start = performance.now();
  const read = readOnce();
  ms.push(performance.now() - start);
  if (i === 0) {
    first = read;
    peakAfterFirst = process.resourceUsage().maxRSS * 1024;
  }
  gc();
}

const reports = first!.reports;
process.stdout.write(
  JSON.stringify({
    bytes: body.length,
    runsRead: reports.length,
    tool: reports[0].tool,
    format: reports[0].format,
    toolName: reports[0].toolName,
    alerts: reports.reduce((n, r) => n + r.alerts.length, 0),
    findings: reports.reduce((n, r) => n + r.uriCount, 0),
    reportedAlerts: first!.alerts.reduce((n, a) => n + a.length, 0),
    ms,
    rssBefore,
    peakRss: peakAfterFirst,
  }) + '\n',
);
