import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { configureEnvironment, ensureSigningKey, startEngines } from '../../scripts/local/stack.ts';
import { freePort } from '../../scripts/local/ports.ts';

// Starts the real local engines (DynamoDB Local in memory, s3rver in a temp dir) and the local HTTP server once
// for all integration tests, on free ports. Test workers get the same environment through `inject('env')`.

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    env: Record<string, string>;
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'hawk-test-'));
  const [dynamodbPort, s3Port, httpPort] = [await freePort(), await freePort(), await freePort()];
  const engines = await startEngines({ dynamodbPort, s3Port });
  const env = {
    DYNAMODB_ENDPOINT: engines[0].url,
    S3_ENDPOINT: engines[1].url,
    SIGNING_KEY_FILE: ensureSigningKey(dir),
    TABLE_NAME: 'hawk-main',
    RATE_LIMIT_TABLE_NAME: 'hawk-rate-limit',
    ASSETS_BUCKET: 'hawk-assets',
    // Generous so that suites making many calls as one user are not throttled; the exact 180 limit is tested
    // against a separately started `npm start` (test/integration/local-stack.test.ts).
    RATE_LIMIT_PER_MINUTE: '100000',
    LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
    LOGIN_SOURCE_RATE_LIMIT_PER_MINUTE: '100000',
    LOG_LEVEL: 'WARN',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  Object.assign(process.env, env);
  configureEnvironment({ dynamodbEndpoint: env.DYNAMODB_ENDPOINT, s3Endpoint: env.S3_ENDPOINT, signingKeyFile: env.SIGNING_KEY_FILE });
  const { provision } = await import('../../scripts/local/provision.ts');
  await provision();
  const { startLocalServer } = await import('../../scripts/local/server.ts');
  const server = await startLocalServer(httpPort);
  project.provide('baseUrl', `http://127.0.0.1:${httpPort}`);
  project.provide('env', env);
  return async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await Promise.all(engines.map((e) => e.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
}
