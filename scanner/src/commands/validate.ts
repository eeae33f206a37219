// `hawk-scanner validate [--json] <config.yml...>`: logs in to the target exactly as a scan would, runs testPath,
// and prints every step and a verdict. Exit codes: 0 authenticated, 1 authentication failed, 2 invalid config.
import {
  configAs,
  createSession,
  loadConfig,
  runTestPath,
  type AuthConfig,
  type ConfigError,
  type Step,
} from '../auth/index.ts';

export const VALIDATE_USAGE = `validate [--json] <config.yml...>
  Logs in to app.host as configured under app.authentication (files merged in order, later wins),
  then requests app.authentication.testPath; then the same as every other user of hawk.authorization.users.
  exit 0: authenticated, 1: authentication failed, 2: invalid config or usage`;

type Verdict =
  | { verdict: 'authenticated'; steps: Step[] }
  | { verdict: 'failed'; reason: string; steps: Step[] }
  | { verdict: 'invalid-config'; errors: ConfigError[] };

const EXIT_CODES = { authenticated: 0, failed: 1, 'invalid-config': 2 } as const;

/** Runs `validate` with the arguments after the command name; answers the exit code, or 'usage' for bad arguments. */
export async function validateCommand(args: string[]): Promise<number | 'usage'> {
  const json = args.includes('--json');
  const files = args.filter((arg) => arg !== '--json');
  if (!files.length || files.some((file) => file.startsWith('-'))) return 'usage';
  const result = await validate(files, json ? () => {} : printStep);
  if (json) console.log(JSON.stringify(result, null, 2));
  else printVerdict(result);
  return EXIT_CODES[result.verdict];
}

async function validate(files: string[], onStep: (step: Step) => void): Promise<Verdict> {
  const loaded = loadConfig(files);
  if (loaded.errors) return { verdict: 'invalid-config', errors: loaded.errors };
  const steps: Step[] = [];
  // The primary user, then every other user of hawk.authorization (docs/SCANNER-AUTH.md, Authorization testing):
  // a scan needs each of them logged in.
  const users = [
    { name: '', config: loaded.config },
    ...(loaded.config.hawk?.authorization?.users ?? []).map((user) => ({
      name: user.name,
      config: configAs(loaded.config, user),
    })),
  ];
  for (const user of users) {
    const record = (step: Step) => {
      const named = user.name ? { ...step, name: `${user.name}: ${step.name}` } : step;
      steps.push(named);
      onStep(named);
    };
    const reason = await logInAndVerify(user.config, record);
    if (reason) return { verdict: 'failed', reason: user.name ? `user ${user.name}: ${reason}` : reason, steps };
  }
  return { verdict: 'authenticated', steps };
}

/** One user's login and testPath; the reason it failed, if it did. */
async function logInAndVerify(config: AuthConfig, record: (step: Step) => void): Promise<string | undefined> {
  const session = createSession(config, { onStep: record });
  const testPath = config.app.authentication.testPath;
  try {
    await session.login();
    if (!testPath) {
      record({
        name: 'testPath',
        ok: true,
        detail: 'not configured, so the session was not verified; add app.authentication.testPath',
      });
      return undefined;
    }
    const verification = await runTestPath(session, testPath);
    record(verification);
    return verification.ok ? undefined : `testPath: ${verification.detail}`;
  } catch (err) {
    // Messages from the session are already redacted.
    return (err as Error).message;
  }
}

function printStep(step: Step): void {
  const exchange = step.request ? `${step.request}${step.status === undefined ? '' : ` -> ${step.status}`}: ` : '';
  console.log(`${step.ok ? 'ok  ' : 'FAIL'} ${step.name}: ${exchange}${step.detail}`);
}

function printVerdict(result: Verdict): void {
  if (result.verdict === 'invalid-config') {
    console.log(`Invalid config (${result.errors.length} ${result.errors.length === 1 ? 'error' : 'errors'}):`);
    for (const error of result.errors) console.log(`  ${error.path}: ${error.message}`);
  } else if (result.verdict === 'failed') {
    console.log(`Verdict: authentication failed: ${result.reason}`);
  } else {
    console.log('Verdict: authenticated');
  }
}
