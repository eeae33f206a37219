import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { freePorts } from '../local/ports.ts';
import { timingOf, type Timing } from './harness.ts';

// The request path measured from outside (docs/BENCHMARKS.md): `npm start` as a user runs it (its own process, its
// default logging: one compact line per request on the terminal, the JSON line in DATA_DIR/logs), an HTTP client in
// this process, and raw GetItem calls to the same DynamoDB Local interleaved with the requests, so that both see the
// same machine at the same moment.

export interface OutsideServer {
  label: string;
  baseUrl: string;
  apiKey: string;
  userId: string;
  dynamodb: DynamoDBClient;
  stop(): Promise<void>;
}

/** Runs `npm start` (scripts/start.ts through tsx, as the npm script does) from `root` on free ports, with a fresh DATA_DIR. */
export async function startOutsideServer(root: string, label: string): Promise<OutsideServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hawk-bench-outside-'));
  const [port, dynamodbPort] = await freePorts(2);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    DYNAMODB_PORT: String(dynamodbPort),
  };
  // The server's own configuration: its default logging; rate limits high enough for a benchmark's thousands of requests.
  for (const name of [
    'LOG_LEVEL',
    'DYNAMODB_ENDPOINT',
    'RATE_LIMIT_DYNAMODB_ENDPOINT',
    'S3_ENDPOINT',
    'SIGNING_KEY_FILE',
    'INTEGRATION_KEY_FILE',
    'TABLE_NAME',
    'LOCAL_S3_ACCESS_KEY_ID',
    'LOCAL_S3_SECRET_ACCESS_KEY',
  ])
    delete env[name];
  Object.assign(env, {
    RATE_LIMIT_PER_MINUTE: '100000000',
    LOGIN_RATE_LIMIT_PER_MINUTE: '100000000',
    LOGIN_SOURCE_RATE_LIMIT_PER_MINUTE: '100000000',
  });
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const output$ = (chunk: Buffer) => {
    if (output.length < 100_000) output += chunk; // the per-request lines after start are read and dropped
  };
  child.stdout.on('data', output$);
  child.stderr.on('data', output$);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start (${label}) not ready in 180 s:\n${output}`)), 180_000);
    const check = setInterval(() => {
      if (/API key:\s+(\S+)/.test(output) && output.includes('is ready on')) {
        clearTimeout(timer);
        clearInterval(check);
        resolve();
      }
    }, 100);
    child.once('exit', (code) => {
      clearTimeout(timer);
      clearInterval(check);
      reject(new Error(`npm start (${label}) exited with ${code}:\n${output}`));
    });
  });
  const apiKey = /API key:\s+(\S+)/.exec(output)![1];
  const userId = /userId:\s+(\S+)/.exec(output)![1];
  return {
    label,
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey,
    userId,
    dynamodb: new DynamoDBClient({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${dynamodbPort}`,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    stop: async () => {
      child.kill('SIGINT');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type Sample = () => Promise<unknown>;

/** The operations measured against one server, and the raw GetItem beside them. */
export async function outsideOperations(server: OutsideServer): Promise<Record<string, Sample>> {
  const ok = async (response: Response, what: string) => {
    if (response.status !== 200)
      throw new Error(`${server.label} ${what}: ${response.status} ${await response.text()}`);
    return response;
  };
  const login = () => fetch(`${server.baseUrl}/api/v1/auth/login`, { headers: { 'x-apikey': server.apiKey } });
  const { token } = (await (await ok(await login(), 'login')).json()) as { token: string };
  const auth = { authorization: `Bearer ${token}` };
  const user = (await (await ok(await fetch(`${server.baseUrl}/api/v1/user`, { headers: auth }), 'user')).json()) as {
    user: { external: { organizations: { organization: { id: string } }[] } };
  };
  const orgId = user.user.external.organizations[0].organization.id;
  const created = await fetch(`${server.baseUrl}/api/v1/org/${orgId}/app`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench-outside' }),
  });
  const { applicationId } = (await (await ok(created, 'create application')).json()) as { applicationId: string };
  const get = (path: string, headers: Record<string, string>) => async () =>
    void (await (await ok(await fetch(`${server.baseUrl}${path}`, { headers }), path)).arrayBuffer());
  // The same item key the server's user read addresses (shared/db/keys.ts: user), read raw.
  const getItem = new GetItemCommand({
    TableName: 'hawk-main',
    Key: { pk: { S: `USER#${server.userId}` }, sk: { S: '#USER' } },
  });
  return {
    directGetItem: async () => void (await server.dynamodb.send(getItem)),
    getApplication: get(`/api/v1/app/${applicationId}`, auth),
    getUser: get('/api/v1/user', auth),
    login: get('/api/v1/auth/login', { 'x-apikey': server.apiKey }),
  };
}

/**
 * Each round runs every operation of every server once, in a rotating order, so that the samples of all of them
 * are spread over the same period of the machine's load, after `warmup` unmeasured rounds. Returns the timing
 * (harness.ts timingOf) per server and operation.
 */
export async function interleaved(operations: Record<string, Record<string, Sample>>, rounds: number, warmup = 30) {
  const entries = Object.entries(operations).flatMap(([server, ops]) =>
    Object.entries(ops).map(([op, run]) => ({ server, op, run })),
  );
  const samples = new Map(entries.map((e) => [e, [] as number[]]));
  for (let r = 0; r < warmup + rounds; r++) {
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[(i + r) % entries.length];
      const start = performance.now();
      await entry.run();
      if (r >= warmup) samples.get(entry)!.push(performance.now() - start);
    }
  }
  const result: Record<string, Record<string, Timing>> = {};
  for (const [entry, values] of samples) (result[entry.server] ??= {})[entry.op] = timingOf(values);
  return result;
}
