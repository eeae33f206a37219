// The run's login (docs/HOSTED-SCANS.md, Login): as the configuration's `app.authentication` says, with testPath
// checked, before any attack.
import {
  createSession,
  loadConfigText,
  runTestPath,
  type AuthConfig,
  type Fetch,
  type Session,
  type VariableLookup,
} from '../auth/index.ts';
import { RunFailed, type StartCommand } from './run-command.ts';
import type { RunLog } from './run-log.ts';

/**
 * Whether the configuration has an `authentication` block (the run logs in): a YAML key, or a JSON one (an
 * environment's default configuration is stored as JSON, which is YAML too), on its own line or in a flow mapping.
 */
export const authenticates = (config: string) => /(?:^|[{,])\s*["']?authentication["']?\s*:/m.test(config);

/** The login's outcome: the crawl's seeds, and the session. */
export interface LoggedIn {
  startUrls: string[];
  /** The logged-in session, for the proxy to carry and renew; none without authentication. */
  session?: { session: Session; config: AuthConfig };
}

/**
 * Logs in as the configuration's `app.authentication` says (secrets from the agent's environment, only the
 * variables the operator allows) and checks
 * testPath, before any attack: the session the proxy carries for the engine. Without authentication: none.
 */
export async function logIn(
  command: StartCommand,
  log: RunLog,
  phase: (name: string) => void,
  transport: Fetch,
  variables: VariableLookup,
): Promise<LoggedIn> {
  if (!authenticates(command.config)) {
    log.add('no app.authentication: scanning without logging in');
    return { startUrls: [] };
  }
  phase('login');
  const loaded = loadConfigText(
    command.config,
    { app: { host: command.targetUrl, applicationId: command.applicationId, env: command.env } },
    variables,
  );
  if (loaded.errors)
    throw new RunFailed(
      'AUTHENTICATION',
      `the authentication configuration is invalid: ${loaded.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    );
  const session = createSession(loaded.config, {
    onStep: (step) =>
      log.add(
        `login ${step.ok ? 'ok' : 'FAIL'} ${step.name}: ${step.request ?? ''} ${step.status ?? ''} ${step.detail}`,
      ),
    fetch: transport,
  });
  try {
    await session.login();
    const testPath = loaded.config.app.authentication.testPath;
    if (testPath) {
      const verdict = await runTestPath(session, testPath);
      log.add(`testPath ${verdict.ok ? 'ok' : 'FAIL'}: ${verdict.detail}`);
      if (!verdict.ok)
        throw new RunFailed(
          'AUTHENTICATION',
          `testPath: ${verdict.detail}; check the login configuration and credentials`,
        );
    } else log.add('no testPath: the session is not verified before the attack');
    const headers = await session.headers();
    log.add(`session: ${Object.keys(headers).join(', ') || 'no headers'}, carried for the engine by the proxy`);
    // The logged-in page seeds the crawl: links from the public pages may not lead into the logged-in area.
    const seed = testPath && (testPath.requestMethod ?? 'GET') === 'GET' && new URL(testPath.path, command.targetUrl);
    const startUrls = seed && seed.origin === new URL(command.targetUrl).origin ? [seed.href] : [];
    return { startUrls, session: { session, config: loaded.config } };
  } catch (error) {
    if (error instanceof RunFailed) throw error;
    throw new RunFailed('AUTHENTICATION', `${(error as Error).message}; no attack was sent`);
  }
}
