import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startDynamodbLocal, type RunningProcess } from './dynamodb.ts';
import { startS3rver } from './s3.ts';

// The local stack shared by `npm start`, the admin CLI and the tests: where its state lives and how its
// environment is configured, so that the handlers' config (shared/config.ts) points at the local engines.
// The local stack runs on Node 20; the SDK's notice that future releases need Node 22 is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export interface LocalStackState {
  pid: number;
  port: number;
  dynamodbEndpoint: string;
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

export function configureEnvironment(options: { dynamodbEndpoint: string; s3Endpoint: string; signingKeyFile: string }): void {
  process.env.DYNAMODB_ENDPOINT = options.dynamodbEndpoint;
  process.env.S3_ENDPOINT = options.s3Endpoint;
  process.env.SIGNING_KEY_FILE = options.signingKeyFile;
  process.env.AWS_REGION ??= 'us-east-1';
}

export async function startEngines(options: { dir?: string; dynamodbPort: number; s3Port: number }): Promise<RunningProcess[]> {
  const dynamodb = await startDynamodbLocal({ port: options.dynamodbPort, dataDir: options.dir && join(options.dir, 'dynamodb') });
  try {
    const s3 = await startS3rver({ port: options.s3Port, directory: options.dir ? join(options.dir, 's3') : join(process.env.TMPDIR ?? '/tmp', `hawk-s3-${process.pid}`) });
    return [dynamodb, s3];
  } catch (error) {
    await dynamodb.stop();
    throw error;
  }
}

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
  if (existsSync(stat) && readFileSync(stat, 'utf8').replace(/^.*\) /s, '').startsWith('Z')) return undefined;
  return state;
}
