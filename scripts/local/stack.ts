import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startDynamodbLocal, type RunningProcess } from './dynamodb.ts';
import { startS3rver } from './s3.ts';
import { s3ProxyHook, type S3Credentials } from './s3-proxy.ts';
import { freePort } from './ports.ts';
import type { LocalHook } from './hook.ts';
import { WAKE_PATH } from './wake-path.ts';
import type { Server } from 'node:http';

// The local stack shared by `npm start`, the admin CLI and the tests: where its state lives and how its
// environment is configured, so that the handlers' config (shared/config.ts) points at the local engines.
// The local stack runs on Node 20; the SDK's notice that future releases need Node 22 is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export interface LocalStackState {
  pid: number;
  port: number;
  dynamodbEndpoint: string;
  /** The local server, which fronts the bucket. */
  s3Endpoint: string;
}

export const dataDir = () => resolve(process.env.DATA_DIR || '.data');
export const statePath = (dir: string) => join(dir, 'local-stack.json');

/** Makes sure the JWT signing secret exists (0600, generated on first use) and returns its path. */
export function ensureSigningKey(dir: string): string {
  const file = join(dir, 'jwt-signing.key');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600 });
  }
  return file;
}

/** Makes sure the key integration secrets are sealed with exists (0600, generated on first use) and returns its path. */
export function ensureIntegrationKey(dir: string): string {
  const file = join(dir, 'integrations.key');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  }
  return file;
}

/**
 * The local S3's credentials, kept in `dir` (0600, generated on first use): the signature-checking front door
 * (s3-proxy.ts) accepts only requests signed with them, so a presigned URL cannot be forged or altered.
 */
export function ensureLocalS3Credentials(dir: string): S3Credentials {
  const file = join(dir, 'local-s3.key');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, randomBytes(30).toString('base64url'), { mode: 0o600 });
  }
  return { accessKeyId: 'hawk-local', secretAccessKey: readFileSync(file, 'utf8').trim() };
}

export function configureEnvironment(options: {
  dynamodbEndpoint: string;
  /** The in-memory DynamoDB Local holding the rate-limit table, when it is not `dynamodbEndpoint` (startEngines). */
  rateLimitDynamodbEndpoint?: string;
  s3Endpoint: string;
  s3Credentials: S3Credentials;
  signingKeyFile: string;
  integrationKeyFile: string;
}): void {
  process.env.DYNAMODB_ENDPOINT = options.dynamodbEndpoint;
  if (options.rateLimitDynamodbEndpoint) process.env.RATE_LIMIT_DYNAMODB_ENDPOINT = options.rateLimitDynamodbEndpoint;
  else delete process.env.RATE_LIMIT_DYNAMODB_ENDPOINT;
  process.env.S3_ENDPOINT = options.s3Endpoint;
  process.env.LOCAL_S3_ACCESS_KEY_ID = options.s3Credentials.accessKeyId;
  process.env.LOCAL_S3_SECRET_ACCESS_KEY = options.s3Credentials.secretAccessKey;
  process.env.SIGNING_KEY_FILE = options.signingKeyFile;
  process.env.INTEGRATION_KEY_FILE = options.integrationKeyFile;
  process.env.AWS_REGION ??= 'us-east-1';
}

export interface LocalEngines {
  dynamodb: RunningProcess;
  /** With persistent data: a second DynamoDB Local, in memory, for the rate-limit table (see startEngines). */
  rateLimitDynamodb?: RunningProcess;
  /** Serves the bucket through the local server (`startLocalServer(port, host, [...defaultHooks, s3Hook])`). */
  s3Hook: LocalHook;
  stop(): Promise<void>;
}

/**
 * DynamoDB Local on `dynamodbPort` (loopback) and s3rver behind the signature check; data under `dir` or temporary.
 * With data under `dir`, the rate-limit table lives in a second DynamoDB Local, in memory, on a free port: every
 * request writes its rate-limit record, and DynamoDB Local on disk commits each write to SQLite with fsyncs, which
 * cost 2-3 GetItems (the bench's from-outside figures: a raw UpdateItem at 2.4x a GetItem on disk, 1.0x in memory;
 * on AWS a write costs about what a read does). The records are transient anyway (a 60 s window, removed by TTL
 * after two minutes): a restart forgets the last minute's counts, nothing else.
 */
export async function startEngines(options: {
  dir?: string;
  dynamodbPort: number;
  /** Ports chosen for the stack that may not be listened on yet (the HTTP server's): the rate-limit engine's differs. */
  otherPorts?: number[];
  s3Credentials: S3Credentials;
  bucket: string;
  region: string;
}): Promise<LocalEngines> {
  const started = await Promise.allSettled([
    startDynamodbLocal({ port: options.dynamodbPort, dataDir: options.dir && join(options.dir, 'dynamodb') }),
    options.dir
      ? freePort([options.dynamodbPort, ...(options.otherPorts ?? [])]).then((port) =>
          startDynamodbLocal({ port, memoryMb: 128 }),
        )
      : Promise.resolve(undefined),
  ]);
  const running = started.flatMap((s) => (s.status === 'fulfilled' && s.value ? [s.value] : []));
  const stopDynamodb = async () => void (await Promise.all(running.map((engine) => engine.stop())));
  try {
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    const [dynamodb, rateLimitDynamodb] = started.map(
      (s) => (s as PromiseFulfilledResult<RunningProcess | undefined>).value,
    );
    const s3 = await startS3rver({
      directory: options.dir ? join(options.dir, 's3') : join(process.env.TMPDIR ?? '/tmp', `hawk-s3-${process.pid}`),
    });
    const s3Hook = s3ProxyHook({
      bucket: options.bucket,
      socketPath: s3.socketPath,
      credentials: options.s3Credentials,
      region: options.region,
    });
    return {
      dynamodb: dynamodb!,
      rateLimitDynamodb,
      s3Hook,
      stop: async () => void (await Promise.all([stopDynamodb(), s3.stop()])),
    };
  } catch (error) {
    await stopDynamodb();
    throw error;
  }
}

export interface LocalStack {
  server: Server;
  dynamodbEndpoint: string;
  /** The rate-limit table's in-memory DynamoDB Local, when the data is persistent (startEngines). */
  rateLimitDynamodbEndpoint?: string;
  s3Endpoint: string;
  /** Whether DynamoDB Local (both, with persistent data) listens on 127.0.0.1 only (see dynamodb.ts). */
  loopbackOnly: boolean;
  /** Ends the start-up answers (503, /health "starting"; readiness.ts); already done unless `holdReadiness`. */
  markReady(): void;
  stop(): Promise<void>;
}

/**
 * The whole local stack, as `npm start`, the tests and the benchmarks run it: the engines, this process's
 * environment pointed at them, the HTTP server on 127.0.0.1:`port` (which also fronts the bucket), the tables and
 * bucket. Keys live in `dir`; data too when `persistent` (otherwise DynamoDB is in memory, S3 in a temp dir).
 * The API answers 503 until the tables exist, or with `holdReadiness` until the caller's `markReady()`.
 */
export async function startLocalStack(options: {
  dir: string;
  persistent: boolean;
  port: number;
  dynamodbPort: number;
  holdReadiness?: boolean;
  /** How often stopped writes are swept after the first sweep at start (scripts/local/sweeper.ts's default). */
  sweepEveryMs?: number;
}): Promise<LocalStack> {
  process.env.AWS_REGION ??= 'us-east-1';
  const s3Credentials = ensureLocalS3Credentials(options.dir);
  const engines = await startEngines({
    dir: options.persistent ? options.dir : undefined,
    dynamodbPort: options.dynamodbPort,
    otherPorts: [options.port],
    s3Credentials,
    bucket: process.env.ASSETS_BUCKET || 'hawk-assets',
    region: process.env.AWS_REGION,
  });
  let server: Server | undefined;
  let wake: { close(): void } | undefined;
  try {
    const s3Endpoint = `http://127.0.0.1:${options.port}`;
    configureEnvironment({
      dynamodbEndpoint: engines.dynamodb.url,
      rateLimitDynamodbEndpoint: engines.rateLimitDynamodb?.url,
      s3Endpoint,
      s3Credentials,
      signingKeyFile: ensureSigningKey(options.dir),
      integrationKeyFile: ensureIntegrationKey(options.dir),
    });
    // Links in webhook and chat messages point at this server unless PUBLIC_URL says where the dashboard is
    // (shared/config.ts reads it when the server's modules load, just below).
    process.env.PUBLIC_URL ||= `http://127.0.0.1:${options.port}`;
    // The wake channel (scripts/local/wake-channel.ts), on by default: agents connect to it, wakes are posted to it.
    process.env.WAKE_CHANNEL_URL ??= `ws://127.0.0.1:${options.port}${WAKE_PATH}`;
    process.env.WAKE_ENDPOINT ??= `http://127.0.0.1:${options.port}${WAKE_PATH}`;
    const { defaultHooks, startLocalServer } = await import('./server.ts');
    const { startupGate } = await import('./readiness.ts');
    const gate = startupGate();
    const channel = (await import('./wake-channel.ts')).localWakeChannel();
    wake = channel;
    server = await startLocalServer(options.port, '127.0.0.1', [
      gate.hook,
      ...defaultHooks,
      engines.s3Hook,
      channel.hook,
    ]);
    channel.attach(server);
    const { provision } = await import('./provision.ts');
    await provision();
    // Webhook deliveries: the outbox relayed into the in-table queue and sent (scripts/local/delivery.ts).
    const delivery = (await import('./delivery.ts')).startLocalDelivery();
    // What stopped imports and completions left, swept on a timer as a schedule does on AWS (scripts/local/sweeper.ts).
    const sweep = (await import('./sweeper.ts')).startLocalSweep(options.sweepEveryMs);
    // Risk acceptances that expire: the scheduled check (scripts/local/governance.ts).
    const expiryCheck = (await import('./governance.ts')).startLocalExpiryCheck();
    // Scan schedules: the embedded scheduler, EventBridge Scheduler's stand-in (scripts/local/schedules.ts).
    const scheduler = (await import('./schedules.ts')).startLocalScheduler();
    if (!options.holdReadiness) gate.markReady();
    const running = server;
    return {
      server,
      dynamodbEndpoint: engines.dynamodb.url,
      rateLimitDynamodbEndpoint: engines.rateLimitDynamodb?.url,
      s3Endpoint,
      loopbackOnly: engines.dynamodb.loopbackOnly !== false,
      markReady: gate.markReady,
      stop: async () => {
        await delivery.stop();
        await sweep.stop();
        await expiryCheck.stop();
        await scheduler.stop();
        wake?.close();
        running.closeAllConnections();
        await new Promise((resolve) => running.close(resolve));
        await engines.stop();
      },
    };
  } catch (error) {
    wake?.close();
    server?.close();
    await engines.stop();
    throw error;
  }
}

/** The running `npm start` described by DATA_DIR's state file, if its process is still alive. */
/** The running `npm start` described by DATA_DIR's state file, if its process is still alive (not a zombie). */
export function runningStack(dir: string): LocalStackState | undefined {
  if (!existsSync(statePath(dir))) return undefined;
  const state = JSON.parse(readFileSync(statePath(dir), 'utf8')) as LocalStackState;
  try {
    process.kill(state.pid, 0);
  } catch {
    return undefined;
  }
  // A kill -9'd process whose parent has not reaped it still answers kill(pid, 0): Linux tells its state.
  const stat = `/proc/${state.pid}/stat`;
  if (
    existsSync(stat) &&
    readFileSync(stat, 'utf8')
      .replace(/^.*\) /s, '')
      .startsWith('Z')
  )
    return undefined;
  return state;
}
