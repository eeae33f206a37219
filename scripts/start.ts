// `npm start`: the whole service on one machine. DynamoDB Local and s3rver keep their data under DATA_DIR, the
// tables and bucket are created from the stack's own definitions, and the handlers are served over HTTP.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configureEnvironment, dataDir, ensureSigningKey, startEngines, statePath } from './local/stack.ts';
import { ensureWebBuild } from './local/web.ts';
import { acquireStartLock, makePrivate } from './local/data-dir.ts';

const port = Number(process.env.PORT ?? 3000);
const dynamodbPort = Number(process.env.DYNAMODB_PORT ?? port + 1);
const s3Port = Number(process.env.S3_PORT ?? port + 2);
const dir = dataDir();

async function main(): Promise<void> {
  // DATA_DIR is private to its user (0700/0600, also what the engines write) and served by one npm start at a time.
  process.umask(0o077);
  makePrivate(dir);
  await acquireStartLock(dir);

  console.log(`Starting DynamoDB Local (port ${dynamodbPort}) and s3rver (port ${s3Port}), data in ${dir} ...`);
  const engines = await startEngines({ dir, dynamodbPort, s3Port });
  const stopEngines = () => Promise.all(engines.map((e) => e.stop()));
  try {
    configureEnvironment({ dynamodbEndpoint: engines[0].url, s3Endpoint: engines[1].url, signingKeyFile: ensureSigningKey(dir) });
    const { provision } = await import('./local/provision.ts');
    await provision();
    await ensureWebBuild({ log: console.log });
    const { startLocalServer } = await import('./local/server.ts');
    const server = await startLocalServer(port);
    writeFileSync(statePath(dir), JSON.stringify({ pid: process.pid, port, dynamodbEndpoint: engines[0].url, s3Endpoint: engines[1].url }, null, 2));
    await bootstrap();
    console.log(`hawk-api is ready on http://127.0.0.1:${port}: the dashboard at /, the API at /api (Ctrl-C stops it)`);

    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      console.log(`\n${signal}: stopping ...`);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await stopEngines();
      rmSync(statePath(dir), { force: true });
      console.log('stopped');
      process.exit(0);
    };
    process.on('SIGINT', () => void stop('SIGINT'));
    process.on('SIGTERM', () => void stop('SIGTERM'));
  } catch (error) {
    await stopEngines();
    throw error;
  }
}

/** First start: an organization, an all-permission user and an API key, printed once (only ids are kept). */
async function bootstrap(): Promise<void> {
  const file = join(dir, 'bootstrap.json');
  if (existsSync(file)) {
    const ids = JSON.parse(readFileSync(file, 'utf8'));
    console.log(`Bootstrap organization ${ids.organizationId}, user ${ids.userId} (ids in ${file}).`);
    console.log(`Its API key was printed on first start; for a new one: npm run --silent admin -- create-api-key --user ${ids.userId}`);
    return;
  }
  const admin = await import('../shared/identity/admin.ts');
  const { organizationId } = await admin.createOrganization({ name: 'Local Organization' });
  const { userId } = await admin.createUser({ email: 'admin@localhost.localdomain', fullName: 'Local Admin' });
  await admin.addMember({ organizationId, userId });
  const { apiKey } = await admin.createApiKey({ userId });
  writeFileSync(file, JSON.stringify({ organizationId, userId }, null, 2));
  console.log('First start: created a bootstrap organization, user (all permissions) and API key.');
  console.log(`  organizationId: ${organizationId}\n  userId:         ${userId}\n  API key:        ${apiKey}   (shown once, stored only as a hash)`);
  console.log(`Try it:\n  TOKEN=$(curl -s -H 'X-ApiKey: ${apiKey}' http://127.0.0.1:${port}/api/v1/auth/login | sed -E 's/.*"token":"([^"]+)".*/\\1/') && curl -s -H "Authorization: Bearer $TOKEN" http://127.0.0.1:${port}/api/v1/user`);
}

main().catch((error) => {
  console.error(`npm start failed: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
