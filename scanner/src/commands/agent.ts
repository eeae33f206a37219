// `hawk-scanner agent --org <orgId> [--name <name>] [--labels <k=v,...>] [--once [--max-idle <s>]] [--allow-private]
// [--allow-vars <names>]:
// runs the scanner agent: a device of the organization that takes its hosted scans (docs/HOSTED-SCANS.md in the service's
// repository). The service's hosted runner (an ECS Fargate task) starts it with --once and HAWK_ACCESS_TOKEN.
import { startAgent } from '../agent/agent.ts';
import { ALLOWED_VARIABLES_ENV, namesIn, namingProblem } from '../auth/variables.ts';

export const AGENT_USAGE = `agent --org <orgId> [--name <name>] [--device <deviceId>] [--once [--max-idle <seconds>]] [--allow-private]
      [--allow-vars <NAME1,NAME2>] [--labels <key=value,key=value>]
  Runs a scanner agent for the organization: registers as a device, polls the service (outbound only) and
  carries out its hosted scans with wapiti (sudo apt-get install -y wapiti) or OWASP ZAP where installed (zap.sh
  on PATH or HAWK_ZAP); HAWK_ENGINE=wapiti or zap runs only that one.
  API key: HAWK_API_KEY (a user with write:device and write:scan), or an access token the service issued for one
  run (HAWK_ACCESS_TOKEN, the hosted runner's); service URL: --url or HAWK_API_URL.
  Login secrets of scan configurations (\${VAR}) come from the application's scan secrets, then the
  organization's (the service gives them with the run), then this process's environment: HAWK_SCAN_* variables
  only, plus those --allow-vars or ${ALLOWED_VARIABLES_ENV} name (never the service's own credentials).
  --once: exit after one scan; --max-idle: then also exit when no scan was taken within that many seconds.
  --allow-private: reach private addresses (an agent inside your own network).
  --labels net=internal,region=eu: where this agent runs; it takes the scans of applications whose hosted settings
  require these labels (and of those requiring none).
  Ctrl-C stops it (a scan under way ends in ERROR).`;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** A label as the service takes it (registerDevice): the service names what is wrong with one it refuses. */
const LABEL = /^[^=\s,]+=[^=\s,]+$/;

export async function agentCommand(args: string[]): Promise<number | 'usage'> {
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) return 'usage';
    const name = arg.slice(2);
    if (name === 'once' || name === 'allow-private') flags[name] = true;
    else if (['org', 'name', 'device', 'url', 'max-idle', 'allow-vars', 'labels'].includes(name) && i + 1 < args.length)
      flags[name] = args[++i];
    else return 'usage';
  }
  const orgId = flags.org;
  if (typeof orgId !== 'string' || !UUID.test(orgId)) {
    console.error('hawk-scanner agent: --org must be the organization id (a UUID)');
    return 'usage';
  }
  const maxIdle = flags['max-idle'];
  if (maxIdle !== undefined && (flags.once !== true || !/^[1-9]\d{0,5}$/.test(String(maxIdle)))) {
    console.error('hawk-scanner agent: --max-idle takes a number of seconds, with --once');
    return 'usage';
  }
  const allowedVariables = [
    ...namesIn(process.env[ALLOWED_VARIABLES_ENV]),
    ...namesIn(flags['allow-vars'] as string | undefined),
  ];
  const refused = allowedVariables.map(namingProblem).filter(Boolean);
  if (refused.length) {
    console.error(`hawk-scanner agent: --allow-vars or ${ALLOWED_VARIABLES_ENV}: ${refused.join('; ')}`);
    return 'usage';
  }
  const labels = String(flags.labels ?? '')
    .split(',')
    .map((label) => label.trim())
    .filter(Boolean);
  const badLabel = labels.find((label) => !LABEL.test(label));
  if (badLabel !== undefined) {
    console.error(`hawk-scanner agent: --labels takes key=value pairs separated by commas, got "${badLabel}"`);
    return 'usage';
  }
  const url = (flags.url as string | undefined) ?? process.env.HAWK_API_URL ?? '';
  const apiKey = process.env.HAWK_API_KEY ?? '';
  const accessToken = process.env.HAWK_ACCESS_TOKEN ?? '';
  if (!/^https?:\/\/[^/]/.test(url) || !(apiKey || accessToken)) {
    console.error('hawk-scanner agent: set HAWK_API_KEY (or HAWK_ACCESS_TOKEN) and HAWK_API_URL (or --url)');
    return 2;
  }
  const abort = new AbortController();
  let interrupted = 0;
  const stop = () => {
    if (interrupted++) process.exit(130);
    console.error('hawk-scanner agent: stopping (again to exit at once)');
    abort.abort();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    const agent = await startAgent({
      url,
      ...(apiKey ? { apiKey } : { token: async () => accessToken }),
      orgId,
      name: flags.name as string | undefined,
      deviceId: flags.device as string | undefined,
      labels,
      once: flags.once === true,
      maxIdleMs: maxIdle === undefined ? undefined : Number(maxIdle) * 1000,
      allowPrivate: flags['allow-private'] === true,
      allowedVariables,
      signal: abort.signal,
      echo: (line) => console.error(`hawk-scanner agent: ${line}`),
    });
    await agent.done;
    return 0;
  } catch (error) {
    console.error(`hawk-scanner agent: ${(error as Error).message}`);
    return 1;
  }
}
