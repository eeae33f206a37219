import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalStack } from '../../scripts/local/stack.ts';
import { freePort } from '../../scripts/local/ports.ts';

// Starts the real local engines (DynamoDB Local in memory, s3rver in a temp dir behind the local server's
// signature check) and the local HTTP server once
// for all integration tests, on free ports. Test workers get the same environment through `inject('env')`.

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    env: Record<string, string>;
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'hawk-test-'));
  const [dynamodbPort, httpPort] = [await freePort(), await freePort()];
  const settings = {
    TABLE_NAME: 'hawk-main',
    RATE_LIMIT_TABLE_NAME: 'hawk-rate-limit',
    ASSETS_BUCKET: 'hawk-assets',
    // Generous so that suites making many calls as one user are not throttled; the exact 180 limit is tested
    // against a separately started `npm start` (test/integration/local-stack.test.ts).
    RATE_LIMIT_PER_MINUTE: '100000',
    LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
    LOGIN_SOURCE_RATE_LIMIT_PER_MINUTE: '100000',
    LOG_LEVEL: 'WARN',
    // Hosted scans: an agent silent for 10 s reads OFFLINE (polls then wait at most 5 s), so the tests see it soon.
    PERCH_OFFLINE_AFTER_SECONDS: '10',
    PERCH_POLL_INTERVAL_MS: '500',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  Object.assign(process.env, settings);
  const stack = await startLocalStack({ dir, persistent: false, port: httpPort, dynamodbPort });
  const env = {
    ...settings,
    DYNAMODB_ENDPOINT: stack.dynamodbEndpoint,
    S3_ENDPOINT: stack.s3Endpoint,
    LOCAL_S3_ACCESS_KEY_ID: process.env.LOCAL_S3_ACCESS_KEY_ID!,
    LOCAL_S3_SECRET_ACCESS_KEY: process.env.LOCAL_S3_SECRET_ACCESS_KEY!,
    SIGNING_KEY_FILE: process.env.SIGNING_KEY_FILE!,
    AWS_REGION: process.env.AWS_REGION!,
  };
  project.provide('baseUrl', `http://127.0.0.1:${httpPort}`);
  project.provide('env', env);
  return async () => {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
