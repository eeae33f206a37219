// The run's login (docs/HOSTED-SCANS.md, Login): as the configuration's `app.authentication` says, with testPath
// checked, before any attack.
import {
  configAs,
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
  /** The other users of `hawk.authorization`, logged in too (the authorization phase replays as each). */
  users: { name: string; session: Session }[];
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
    return { startUrls: [], users: [] };
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
  try {
    const session = await logInAs(loaded.config, '', log, transport);
    const users: LoggedIn['users'] = [];
    for (const user of loaded.config.hawk?.authorization?.users ?? [])
      users.push({ name: user.name, session: await logInAs(configAs(loaded.config, user), user.name, log, transport) });
    const testPath = loaded.config.app.authentication.testPath;
    const headers = await session.headers();
    log.add(`session: ${Object.keys(headers).join(', ') || 'no headers'}, carried for the engine by the proxy`);
    // The logged-in page seeds the crawl: links from the public pages may not lead into the logged-in area.
    const seed = testPath && (testPath.requestMethod ?? 'GET') === 'GET' && new URL(testPath.path, command.targetUrl);
    const startUrls = seed && seed.origin === new URL(command.targetUrl).origin ? [seed.href] : [];
    return { startUrls, session: { session, config: loaded.config }, users };
  } catch (error) {
    if (error instanceof RunFailed) throw error;
    throw new RunFailed('AUTHENTICATION', `${(error as Error).message}; no attack was sent`);
  }
}

/**
 * One user's login and testPath: the primary's (`name` empty), or another user's of `hawk.authorization`
 * (docs/SCANNER-AUTH.md, Authorization testing), whose failure fails the run as the primary's does.
 */
async function logInAs(config: AuthConfig, name: string, log: RunLog, transport: Fetch): Promise<Session> {
  const who = name ? ` (user ${name})` : '';
  const session = createSession(config, {
    onStep: (step) =>
      log.add(
        `login${who} ${step.ok ? 'ok' : 'FAIL'} ${step.name}: ${step.request ?? ''} ${step.status ?? ''} ${step.detail}`,
      ),
    fetch: transport,
  });
  try {
    await session.login();
  } catch (error) {
    throw new RunFailed(
      'AUTHENTICATION',
      `${name ? `user ${name}: ` : ''}${(error as Error).message}; no attack was sent`,
    );
  }
  const testPath = config.app.authentication.testPath;
  if (!testPath) {
    log.add(`no testPath${who}: the session is not verified before the attack`);
    return session;
  }
  const verdict = await runTestPath(session, testPath);
  log.add(`testPath${who} ${verdict.ok ? 'ok' : 'FAIL'}: ${verdict.detail}`);
  if (!verdict.ok)
    throw new RunFailed(
      'AUTHENTICATION',
      `${name ? `user ${name}: ` : ''}testPath: ${verdict.detail}; check the login configuration and credentials`,
    );
  return session;
}
