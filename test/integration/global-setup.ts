import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalStack } from '../../scripts/local/stack.ts';
import { freePorts } from '../../scripts/local/ports.ts';

const DAY_MS = 86_400_000;

// Starts the real local engines (DynamoDB Local in memory, s3rver in a temp dir behind the local server's
// signature check) and the local HTTP server once
// for all integration tests, on free ports. Test workers get the same environment through `inject('env')`.

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    env: Record<string, string>;
    serverErrorLog: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'hawk-test-'));
  const [dynamodbPort, httpPort] = await freePorts(2);
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
    // Webhook retries within a test's time: 3 attempts, 200 ms then 400 ms apart, 3 s per attempt.
    WEBHOOK_MAX_ATTEMPTS: '3',
    WEBHOOK_RETRY_BASE_MS: '200',
    WEBHOOK_TIMEOUT_MS: '3000',
    // Hosted scans: an agent silent for 10 s reads OFFLINE (polls then wait at most 5 s), so the tests see it soon.
    PERCH_OFFLINE_AFTER_SECONDS: '10',
    PERCH_POLL_INTERVAL_MS: '500',
    // Risk acceptances expire within a second or two of their time (scripts/local/governance.ts).
    RISK_EXPIRY_INTERVAL_MS: '1000',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  Object.assign(process.env, settings);
  const serverErrorLog = keepServerErrors(join(dir, 'server-errors.log'));
  // Stopped writes are swept once, at start, and not again within a run: the tests that sweep (scan-import,
  // lambda-events) run the sweep themselves and count what their run swept, which the stack's own sweep (every 5
  // minutes) would otherwise sometimes sweep first.
  const stack = await startLocalStack({ dir, persistent: false, port: httpPort, dynamodbPort, sweepEveryMs: DAY_MS });
  const env = {
    ...settings,
    DYNAMODB_ENDPOINT: stack.dynamodbEndpoint,
    S3_ENDPOINT: stack.s3Endpoint,
    LOCAL_S3_ACCESS_KEY_ID: process.env.LOCAL_S3_ACCESS_KEY_ID!,
    LOCAL_S3_SECRET_ACCESS_KEY: process.env.LOCAL_S3_SECRET_ACCESS_KEY!,
    SIGNING_KEY_FILE: process.env.SIGNING_KEY_FILE!,
    INTEGRATION_KEY_FILE: process.env.INTEGRATION_KEY_FILE!,
    AWS_REGION: process.env.AWS_REGION!,
  };
  project.provide('baseUrl', `http://127.0.0.1:${httpPort}`);
  project.provide('env', env);
  project.provide('serverErrorLog', serverErrorLog);
  return async () => {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}

/**
 * Copies the server's ERROR lines (JSON on this process's stderr, shared/context/logger.ts) to `file` as well, so that a
 * test that meets a 500 can quote the error logged for its request id (test/integration/client.ts): a CI log shows
 * the failed assertion, not necessarily the line the server printed minutes earlier among hundreds of others.
 */
function keepServerErrors(file: string): string {
  const write = process.stderr.write.bind(process.stderr) as (chunk: unknown, ...rest: unknown[]) => boolean;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
    if (text.includes('"level":"ERROR"')) appendFileSync(file, text.endsWith('\n') ? text : `${text}\n`);
    return write(chunk, ...rest);
  }) as typeof process.stderr.write;
  return file;
}
