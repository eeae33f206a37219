// `hawk-scanner hosted`: a hosted scan from a CI job (docs/HOSTED-SCANS.md, Coverage in the service's repository):
// it starts the scan (startScan), waits for its end, and gates on the run's coverage verdict, so a scan that was
// logged out for part of its attack fails the build rather than reading clean. `--scan <scanId>` gates a scan that
// another startScan caller started (hawkop, the dashboard, a schedule).
import { readFileSync } from 'node:fs';
import { service, ServiceError, type Service } from '../net/service.ts';
import { serviceCall } from '../api/call.ts';

export const HOSTED_USAGE = `hosted --app <appId> --env <name> [--config <stackhawk.yml>] [--url <url>] [--fail-on <verdicts>] [--wait-seconds <s>]
       hosted --scan <scanId> [--url <url>] [--fail-on <verdicts>]
  Starts a hosted scan of the CLOUD application <appId> (environment <name>, with that configuration), waits for its
  end and prints its coverage record; --scan reads a hosted scan started otherwise, once it ended. API key:
  HAWK_API_KEY (write:scan and read:scan); service URL: --url or HAWK_API_URL.
  --fail-on: exit 3 when the scan's verdict is one of these, comma-separated: auth-degraded (part of the attack went
  out logged out), partial (a module cut at its time), low-coverage (too few pages), or incomplete (any of them).
  exit 0: completed, 1: the scan failed or has no coverage record, 2: bad usage, 3: --fail-on verdict reached`;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const GATES: Record<string, string[]> = {
  'auth-degraded': ['AUTH_DEGRADED'],
  partial: ['PARTIAL'],
  'low-coverage': ['LOW_COVERAGE'],
  incomplete: ['AUTH_DEGRADED', 'PARTIAL', 'LOW_COVERAGE'],
};
const POLL_MS = 2000;

interface Options {
  api: Service;
  app?: string;
  env?: string;
  config?: string;
  scan?: string;
  failOn: Set<string>;
  waitMs: number;
}

function parseArgs(args: string[]): Options | string {
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const name = args[i].match(/^--([a-z-]+)$/)?.[1];
    if (!name || !['app', 'env', 'config', 'scan', 'url', 'fail-on', 'wait-seconds'].includes(name))
      return `unknown argument ${args[i]}`;
    if (i + 1 >= args.length) return `${args[i]} needs a value`;
    flags[name] = args[++i];
  }
  if (flags.scan !== undefined ? !UUID.test(flags.scan) || flags.app || flags.env || flags.config : false)
    return '--scan takes a scan id (a UUID), without --app, --env or --config';
  if (flags.scan === undefined && (!flags.app || !UUID.test(flags.app)))
    return '--app must be the application id (a UUID), or --scan a scan id';
  if (flags.scan === undefined && !flags.env?.trim()) return '--env must name the environment';
  const gates = flags['fail-on'] === undefined ? [] : flags['fail-on'].toLowerCase().split(',');
  const unknown = gates.find((gate) => !GATES[gate]);
  if (unknown !== undefined) return `--fail-on must be among ${Object.keys(GATES).join(', ')}, comma-separated`;
  const waitSeconds = Number(flags['wait-seconds'] ?? 3600);
  if (!Number.isInteger(waitSeconds) || waitSeconds < 1 || waitSeconds > 86_400)
    return '--wait-seconds must be 1 to 86400';
  const url = flags.url ?? process.env.HAWK_API_URL ?? '';
  if (!/^https?:\/\/[^/]/.test(url)) return 'the service URL is missing: pass --url https://... or set HAWK_API_URL';
  const apiKey = process.env.HAWK_API_KEY ?? '';
  if (!apiKey) return 'the API key is missing: set HAWK_API_KEY (an API key of a user with write:scan and read:scan)';
  let config: string | undefined;
  try {
    config = flags.config === undefined ? undefined : readFileSync(flags.config, 'utf8');
  } catch (error) {
    return `--config: ${(error as Error).message}`;
  }
  return {
    api: service({ url, apiKey }),
    app: flags.app,
    env: flags.env?.trim(),
    config,
    scan: flags.scan,
    failOn: new Set(gates.flatMap((gate) => GATES[gate])),
    waitMs: waitSeconds * 1000,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the scan and waits for its end: its scan id, or the reason it failed. */
async function startAndWait(options: Options): Promise<{ scanId: string } | { failed: string }> {
  const { api, app } = options;
  const started = await serviceCall(api, 'POST', '/api/v1/app/{appId}/perch/start', {
    path: { appId: app! },
    body: { command: { command: 'START', ...(options.config ? { config: options.config } : {}) }, env: options.env },
  });
  console.error(`hawk-scanner hosted: scan ${started.scanKey ?? ''} of application ${app} queued`);
  for (const until = Date.now() + options.waitMs; ; await sleep(POLL_MS)) {
    const { device } = await serviceCall(api, 'GET', '/api/v1/app/{appId}/perch/status', { path: { appId: app! } });
    if (device?.status !== 'RUNNING') {
      const errors = (device?.command?.errors ?? []).map((e) => `${e.errorType}: ${e.message}`);
      if (device?.status === 'HOSTED_SCANNER_ERRORED' || !device?.scanId)
        return { failed: errors.join('; ') || `the scan ended ${device?.status ?? 'without a status'}` };
      return { scanId: device.scanId };
    }
    if (Date.now() > until) return { failed: `the scan did not end within --wait-seconds ${options.waitMs / 1000}` };
  }
}

/** A scan started otherwise: its id once it completed, or why it cannot be gated. */
async function endedScan(api: Service, scanId: string): Promise<{ scanId: string } | { failed: string }> {
  const read = await serviceCall(api, 'GET', '/api/v1/scan/{scanId}/alerts', {
    path: { scanId },
    query: { pageSize: '1' },
  });
  const status = read.applicationScanResults?.[0]?.scan?.status;
  if (status === 'COMPLETED') return { scanId };
  return { failed: status === 'STARTED' ? 'it has not ended yet' : `it ended ${status ?? 'without a status'}` };
}

async function gate(options: Options): Promise<number> {
  const ended = options.scan ? await endedScan(options.api, options.scan) : await startAndWait(options);
  if ('failed' in ended) {
    console.error(`hawk-scanner hosted: the scan failed: ${ended.failed}`);
    return 1;
  }
  const coverage = await serviceCall(options.api, 'GET', '/api/v1/scan/{scanId}/coverage', {
    path: { scanId: ended.scanId },
  });
  const reasons = coverage.reasons?.length ? ` (${coverage.reasons.join('; ')})` : '';
  console.log(
    `hawk-scanner hosted: scan ${ended.scanId}: ${coverage.verdict}${reasons}: ${coverage.pages} pages, ` +
      `${coverage.requests} requests (${coverage.authenticatedRequests} with the session), ${coverage.relogins} re-logins`,
  );
  if (!options.failOn.has(coverage.verdict ?? '')) return 0;
  console.error(`hawk-scanner hosted: the scan's verdict is ${coverage.verdict} (--fail-on)`);
  return 3;
}

/** Runs `hosted` with the arguments after the command name; answers the exit code, or 'usage' for bad arguments. */
export async function hostedCommand(args: string[]): Promise<number | 'usage'> {
  const options = parseArgs(args);
  if (typeof options === 'string') {
    console.error(`hawk-scanner hosted: ${options}`);
    return 'usage';
  }
  try {
    return await gate(options);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    console.error(`hawk-scanner hosted: ${error.message}`);
    return 1;
  }
}
