// `npm start`: the whole service on one machine. DynamoDB Local and s3rver keep their data under DATA_DIR, the
// tables and bucket are created from the stack's own definitions, and the handlers are served over HTTP.
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir, startLocalStack, statePath } from './local/stack.ts';
import { ensureWebBuild } from './local/web.ts';
import { acquireStartLock, makePrivate } from './local/data-dir.ts';
import { portIsFree } from './local/ports.ts';
import { compactLogs } from './local/log-output.ts';

const port = Number(process.env.PORT ?? 3000);
const dynamodbPort = Number(process.env.DYNAMODB_PORT ?? port + 1);
const dir = dataDir();
const jsonLogs = process.argv.includes('--json-logs');

/** Refuses ports another program holds (another DynamoDB Local would silently receive this stack's data). */
async function requireFreePorts(): Promise<void> {
  for (const [what, candidate] of [
    ['the HTTP server (PORT)', port],
    ['DynamoDB Local (DYNAMODB_PORT, default PORT+1)', dynamodbPort],
  ] as const) {
    if (!(await portIsFree(candidate))) {
      throw new Error(
        `port ${candidate}, for ${what}, is already in use by another program. ` +
          `Choose other ports, e.g. PORT=${port + 10} npm start (DynamoDB Local then uses PORT+1), or set DYNAMODB_PORT.`,
      );
    }
  }
}

async function main(): Promise<void> {
  // DATA_DIR is private to its user (0700/0600, also what the engines write) and served by one npm start at a time.
  process.umask(0o077);
  makePrivate(dir);
  await acquireStartLock(dir);
  await requireFreePorts();

  console.log(
    `Starting DynamoDB Local (127.0.0.1:${dynamodbPort}) and s3rver (behind the HTTP server), data in ${dir} ...`,
  );
  // Until the bootstrap is written, API requests answer 503 and /health "starting" (scripts/local/readiness.ts).
  const stack = await startLocalStack({ dir, persistent: true, port, dynamodbPort, holdReadiness: true });
  try {
    await ensureWebBuild({ log: console.log });
    writeFileSync(
      statePath(dir),
      JSON.stringify(
        { pid: process.pid, port, dynamodbEndpoint: stack.dynamodbEndpoint, s3Endpoint: stack.s3Endpoint },
        null,
        2,
      ),
    );
    await bootstrap();
    if (!stack.loopbackOnly) {
      const ports = [
        dynamodbPort,
        ...(stack.rateLimitDynamodbEndpoint ? [new URL(stack.rateLimitDynamodbEndpoint).port] : []),
      ].join(' and ');
      console.warn(
        `Warning: DynamoDB Local listens on every network interface (port ${ports}): this Java runtime cannot run its loopback launcher (no jdk.compiler module). Install a full JDK (e.g. default-jdk-headless) or firewall the ports.`,
      );
    }
    const logFile = join(dir, 'logs', 'hawk-api.log');
    if (!jsonLogs) compactLogs(logFile);
    stack.markReady();
    console.log(
      `hawk-api is ready on http://127.0.0.1:${port}: the dashboard at /, the API at /api, health at /health, API docs at /docs (Ctrl-C stops it)`,
    );
    // The agent registers through the API, which answers 503 until ready. A failure leaves the service running: a
    // hosted scan then waits for an agent, and ends in ERROR at its deadline saying so.
    const agent = process.argv.includes('--no-agent')
      ? undefined
      : await startEmbeddedAgent().catch((error: Error) => {
          console.warn(
            `Warning: the embedded scanner agent did not start (${error.message}); hosted scans wait for an agent (hawk-scanner agent, docs/HOSTED-SCANS.md).`,
          );
          return undefined;
        });
    console.log(
      jsonLogs
        ? 'Request logs: JSON lines below.'
        : `Request logs: one line each below; full JSON lines in ${logFile} (npm start -- --json-logs prints them here).`,
    );

    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      console.log(`\n${signal}: stopping ...`);
      agent?.abort();
      await stack.stop();
      rmSync(statePath(dir), { force: true });
      console.log('stopped');
      process.exit(0);
    };
    process.on('SIGINT', () => void stop('SIGINT'));
    process.on('SIGTERM', () => void stop('SIGTERM'));
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

/** First start: an organization, an all-permission user and an API key, printed once (only ids are kept). */
async function bootstrap(): Promise<void> {
  const file = join(dir, 'bootstrap.json');
  if (existsSync(file)) {
    const ids = JSON.parse(readFileSync(file, 'utf8'));
    console.log(`Bootstrap organization ${ids.organizationId}, user ${ids.userId} (ids in ${file}).`);
    console.log(
      `Its API key was printed on first start; for a new one: npm run --silent admin -- create-api-key --user ${ids.userId}`,
    );
    return;
  }
  const admin = await import('../shared/identity/admin.ts');
  const { organizationId } = await admin.createOrganization({ name: 'Local Organization' });
  const { userId } = await admin.createUser({ email: 'admin@localhost.localdomain', fullName: 'Local Admin' });
  // The organization's owner: only an owner can make other owners (docs/IDENTITY.md "Members and roles").
  await admin.addMember({ organizationId, userId, roleName: 'OWNER' });
  const { apiKey } = await admin.createApiKey({ userId, name: 'bootstrap' });
  writeFileSync(file, JSON.stringify({ organizationId, userId }, null, 2));
  console.log('First start: created a bootstrap organization, user (all permissions) and API key.');
  console.log(
    `  organizationId: ${organizationId}\n  userId:         ${userId}\n  API key:        ${apiKey}   (shown once, stored only as a hash)`,
  );
  console.log(
    `Try it (README: "A walk-through with curl"):\n  export BASE=http://127.0.0.1:${port} API_KEY='${apiKey}'`,
  );
}

/**
 * The embedded scanner agent (docs/HOSTED-SCANS.md): the local equivalent of the hosted runner, a device of the
 * bootstrap organization that carries out its hosted scans with wapiti. It reaches private addresses only where
 * the organization allowlisted the host. Its access tokens are issued in process (no API key is stored); its
 * device id is kept in DATA_DIR/agent.json. `npm start -- --no-agent` runs without it.
 */
async function startEmbeddedAgent(): Promise<AbortController | undefined> {
  const file = join(dir, 'bootstrap.json');
  if (!existsSync(file)) return undefined;
  const { organizationId, userId } = JSON.parse(readFileSync(file, 'utf8'));
  const { issueAccessToken } = await import('../shared/auth/tokens.ts');
  const { startAgent } = await import('@hawk-api/scanner/agent');
  const stateFile = join(dir, 'agent.json');
  const known = existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, 'utf8')) : {};
  const abort = new AbortController();
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const logFile = join(dir, 'logs', 'agent.log');
  const agent = await startAgent({
    url: `http://127.0.0.1:${port}`,
    token: () => issueAccessToken(userId, 'embedded-agent'),
    orgId: organizationId,
    name: 'embedded agent (npm start)',
    deviceId: known.deviceId,
    signal: abort.signal,
    echo: (line) => appendFileSync(logFile, `${line}\n`),
  });
  writeFileSync(stateFile, JSON.stringify({ deviceId: agent.deviceId }, null, 2));
  console.log(`Embedded scanner agent: device ${agent.deviceId} of the bootstrap organization (log in ${logFile}).`);
  return abort;
}

main().catch((error) => {
  console.error(`npm start failed: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
