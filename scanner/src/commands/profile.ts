// `hawk-scanner profile <url>`: a profile scan of a target from the command line (docs/PROFILE-SCANS.md in the
// service's repository): what the target is, how it logs in, and a scan configuration to start from.
import { randomUUID } from 'node:crypto';
import { TargetRefused } from '../net/addresses.ts';
import { profileTarget } from '../profile/profile.ts';

export const PROFILE_USAGE = `profile <url> [--app <applicationId>] [--env <name>] [--max-requests <n>] [--max-seconds <s>] [--allow-private] [--json]
  Probes the target politely (same origin, robots.txt, at most 150 requests and 60 s unless told) and prints its
  classification, testability, login markers, API description and a suggested stackhawk.yml (--json: the whole
  result). Loopback and private addresses are refused unless --allow-private.`;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export async function profileCommand(args: string[]): Promise<number | 'usage'> {
  const flags: Record<string, string | true> = {};
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) positional.push(arg);
    else if (arg === '--allow-private' || arg === '--json') flags[arg.slice(2)] = true;
    else if (['--app', '--env', '--max-requests', '--max-seconds'].includes(arg) && i + 1 < args.length)
      flags[arg.slice(2)] = args[++i];
    else return 'usage';
  }
  const [url] = positional;
  if (positional.length !== 1 || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) return 'usage';
  const app = (flags.app as string | undefined) ?? '${APP_ID}';
  if (flags.app !== undefined && !UUID.test(app)) return 'usage';
  const number = (name: string, max: number) => {
    const value = flags[name];
    if (value === undefined) return undefined;
    return /^[1-9]\d{0,5}$/.test(String(value)) && Number(value) <= max ? Number(value) : NaN;
  };
  const maxRequests = number('max-requests', 10_000);
  const maxSeconds = number('max-seconds', 3600);
  if (Number.isNaN(maxRequests) || Number.isNaN(maxSeconds)) return 'usage';
  try {
    const result = await profileTarget({
      scanId: randomUUID(),
      targetUrl: url,
      applicationId: app,
      env: (flags.env as string | undefined) ?? 'Development',
      allowPrivate: flags['allow-private'] === true,
      budget: {
        ...(maxRequests ? { maxRequests } : {}),
        ...(maxSeconds ? { maxMs: maxSeconds * 1000 } : {}),
      },
      log: flags.json ? undefined : (line) => console.error(line),
    });
    if (flags.json) {
      console.log(JSON.stringify(result, null, 2));
      return 0;
    }
    const lines = [
      `classification: ${result.classification}`,
      `testability: ${result.score}`,
      ...result.scoreReasons.map((reason) => `  - ${reason}`),
      `API description: ${result.discoveredOpenapiSpecPath || 'none found'}`,
      `login markers: ${result.authMarkers.map((m) => `${m.type} (${m.confidence})`).join(', ') || 'none'}`,
      `paths: ${result.paths.staticCount} static, ${result.paths.dynamicCount} dynamic, ${result.paths.authProtectedCount} protected`,
      ...result.recommendations.slice(1).map((r) => `recommendation: ${r}`),
      ...result.notes.map((note) => `note: ${note}`),
      '',
      result.recommendations[0],
    ];
    console.log(lines.join('\n'));
    return 0;
  } catch (error) {
    console.error(
      `hawk-scanner profile: ${error instanceof TargetRefused ? error.message : `the profile failed: ${(error as Error).message}`}`,
    );
    return 1;
  }
}
