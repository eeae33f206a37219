// `hawk-scanner sarif --app <appId> --env <name> [--scan <scanId>] [--out <file>]`: writes a scan's findings as a
// SARIF 2.1.0 log for GitHub code scanning (docs/SARIF-EXPORT.md), from the service's GET /api/v1/scan/{scanId}/sarif.
// Without --scan, the environment's last scan: its latest findings. A log beyond GitHub's limits comes in parts, and
// every part is written to a file of its own (results.sarif, results-2.sarif, ...), each one upload.
import { writeFileSync } from 'node:fs';
import { service, ServiceError, type Service } from '../net/service.ts';
import { serviceFetch } from '../api/call.ts';

export const SARIF_USAGE = `sarif --app <appId> --env <name> [--scan <scanId>] [--out <file>] [--oas-path <path>] [--config-path <path>] [--url <url>]
  Writes the findings of a scan of environment <name> of application <appId> (default: the environment's last scan)
  as a SARIF 2.1.0 log for GitHub code scanning, to stdout or --out <file>. A log past GitHub's limits (25,000
  results, 10 MB gzipped per upload) comes in parts: each goes to a file of its own (<file>, <file>-2, ...; --out is
  then required). --oas-path / --config-path: where the application's OpenAPI description and scan configuration
  are in the repository (alerts point at their lines). API key: HAWK_API_KEY; service URL: --url or HAWK_API_URL.
  exit 0: written, 1: the service refused or failed, 2: bad usage`;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const FLAGS = ['app', 'env', 'scan', 'out', 'oas-path', 'config-path', 'url'];

interface Options {
  app: string;
  env: string;
  scan?: string;
  out?: string;
  oasPath?: string;
  configPath?: string;
  url: string;
  apiKey: string;
}

class SarifFailed extends Error {}

function parseArgs(args: string[]): Options | string {
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const eq = arg.match(/^--([a-z-]+)=(.*)$/s);
    if (eq) flags[eq[1]] = eq[2];
    else if (arg.startsWith('--')) {
      if (i + 1 >= args.length) return `${arg} needs a value`;
      flags[arg.slice(2)] = args[++i];
    } else return `unexpected argument ${arg}`;
  }
  const unknown = Object.keys(flags).filter((f) => !FLAGS.includes(f));
  if (unknown.length) return `unknown option --${unknown[0]}`;
  if (!flags.app || !UUID.test(flags.app)) return '--app must be the application id (a UUID)';
  if (!flags.env?.trim()) return '--env must name the environment';
  if (flags.scan !== undefined && !UUID.test(flags.scan)) return '--scan must be a scan id (a UUID)';
  const url = flags.url ?? process.env.HAWK_API_URL ?? '';
  if (!/^https?:\/\/[^/]/.test(url)) return 'the service URL is missing: pass --url https://... or set HAWK_API_URL';
  const apiKey = process.env.HAWK_API_KEY ?? '';
  if (!apiKey) return 'the API key is missing: set HAWK_API_KEY (an API key of a user with read:scan)';
  return {
    app: flags.app,
    env: flags.env.trim(),
    scan: flags.scan,
    out: flags.out,
    oasPath: flags['oas-path'],
    configPath: flags['config-path'],
    url: url.replace(/\/+$/, ''),
    apiKey,
  };
}

/** The environment's last scan: the application's organization, then its environments view. */
async function lastScanOf(api: Service, options: Options): Promise<string> {
  const app = await (await serviceFetch(api, 'GET', '/api/v1/app/{appId}', { path: { appId: options.app } })).json();
  // The view lists STANDARD applications unless told otherwise (listEnvironmentsV2's applicationTypes).
  const query = {
    appIds: options.app,
    envs: options.env,
    applicationTypes: app.applicationType ?? 'STANDARD',
    pageSize: '100',
  };
  const envs = await serviceFetch(api, 'GET', '/api/v2/org/{orgId}/envs', {
    path: { orgId: app.organizationId },
    query,
  });
  const view = await envs.json();
  const env = (view.environments ?? []).find(
    (e) => e.applicationId === options.app && e.environmentName.toLowerCase() === options.env.toLowerCase(),
  );
  if (!env) throw new SarifFailed(`application ${options.app} has no environment ${options.env}`);
  if (!env.lastScanId) throw new SarifFailed(`environment ${options.env} has no scan yet`);
  return env.lastScanId;
}

/** `results.sarif` -> `results-2.sarif` for part 2. */
const partFile = (file: string, part: number) =>
  part === 1 ? file : file.replace(/(\.sarif(\.json)?|\.json)?$/i, (ext) => `-${part}${ext}`);

async function writeSarif(options: Options): Promise<number> {
  const api = service({ url: options.url, apiKey: options.apiKey, keyName: 'HAWK_API_KEY', retries: 4 });
  const scanId = options.scan ?? (await lastScanOf(api, options));
  const sarif = (part: number) =>
    serviceFetch(
      api,
      'GET',
      '/api/v1/scan/{scanId}/sarif',
      {
        path: { scanId },
        query: {
          part: String(part),
          ...(options.oasPath ? { oasPath: options.oasPath } : {}),
          ...(options.configPath ? { configPath: options.configPath } : {}),
        },
      },
      { accept: 'application/sarif+json' },
    );
  const first = await sarif(1);
  const parts = Number(first.headers.get('x-sarif-parts') ?? 1);
  if (parts > 1 && !options.out) {
    console.error(
      `hawk-scanner sarif: scan ${scanId}'s log comes in ${parts} parts (GitHub's limits): pass --out <file> to write each to a file`,
    );
    return 2;
  }
  const texts = [await first.text()];
  for (let part = 2; part <= parts; part++) texts.push(await (await sarif(part)).text());
  if (!options.out) {
    process.stdout.write(`${texts[0]}\n`);
    return 0;
  }
  const files = texts.map((text, i) => {
    const file = partFile(options.out!, i + 1);
    writeFileSync(file, `${text}\n`);
    return file;
  });
  const total = first.headers.get('x-total-count') ?? '?';
  console.error(
    `hawk-scanner sarif: scan ${scanId} of environment ${options.env}: ${total} findings written to ${files.join(', ')}` +
      (parts > 1 ? ` (${parts} parts within GitHub's limits: upload each)` : ''),
  );
  return 0;
}

/** Runs `sarif` with the arguments after the command name; answers the exit code, or 'usage' for bad arguments. */
export async function sarifCommand(args: string[]): Promise<number | 'usage'> {
  const options = parseArgs(args);
  if (typeof options === 'string') {
    console.error(`hawk-scanner sarif: ${options}`);
    return 'usage';
  }
  try {
    return await writeSarif(options);
  } catch (error) {
    if (!(error instanceof SarifFailed || error instanceof ServiceError)) throw error;
    console.error(`hawk-scanner sarif: ${error.message}`);
    return 1;
  }
}
