import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { freePorts } from '../../scripts/local/ports.ts';

// `npm start` as a user runs it: its own DynamoDB Local (on disk under DATA_DIR; the rate-limit table in a second one,
// in memory), s3rver and HTTP server, with the default rate limit of 180 per minute. Covers first-start bootstrap,
// the admin CLI against it, the exact rate limit under a concurrent burst, a clean Ctrl-C, and data surviving a
// restart (the rate-limit counts do not: they are transient).
const root = new URL('../../', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'hawk-start-'));
let port: number;
let dynamodbPort: number;
let child: ChildProcess | undefined;
let firstOutput = '';

/** One answer seen while racing requests against the first start: what was asked, when, and what came back. */
interface Observation {
  probe: 'health' | 'api';
  sentAt: number;
  answeredAt: number;
  status: number;
  body: string;
  retryAfter: string | null;
}
const firstStart: { observations: Observation[]; readyLineAt: number } = { observations: [], readyLineAt: 0 };
/** The API key of the user whose quota the rate-limit test spends (checked again after the restart). */
let rateLimitedKey = '';

function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'DYNAMODB_ENDPOINT',
    'RATE_LIMIT_DYNAMODB_ENDPOINT',
    'S3_ENDPOINT',
    'SIGNING_KEY_FILE',
    'INTEGRATION_KEY_FILE',
    'RATE_LIMIT_PER_MINUTE',
    'LOGIN_RATE_LIMIT_PER_MINUTE',
    'LOGIN_SOURCE_RATE_LIMIT_PER_MINUTE',
    'TABLE_NAME',
  ])
    delete env[name];
  return env;
}

/**
 * Polls /health and an API operation that reads the tables (login with an unknown key: 401 once ready) from the
 * moment npm start is spawned until `done`, every 20 ms, recording every answer (refused connections are not).
 */
async function raceStartup(done: () => boolean): Promise<Observation[]> {
  const observations: Observation[] = [];
  const probe = async (kind: Observation['probe']) => {
    const sentAt = performance.now();
    try {
      const response =
        kind === 'health'
          ? await fetch(url('/health'))
          : await fetch(url('/api/v1/auth/login'), { headers: { 'x-apikey': 'hawk.not-a-key.startup-probe' } });
      observations.push({
        probe: kind,
        sentAt,
        body: await response.text(),
        answeredAt: performance.now(),
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
      });
    } catch {
      // not listening yet
    }
  };
  while (!done()) {
    await Promise.all([probe('health'), probe('api'), new Promise((resolve) => setTimeout(resolve, 20))]);
  }
  return observations;
}

async function start(options: { race?: boolean } = {}): Promise<string> {
  [port, dynamodbPort] = await freePorts(2);
  const env = {
    ...cleanEnv(),
    DATA_DIR: dataDir,
    PORT: String(port),
    DYNAMODB_PORT: String(dynamodbPort),
    LOG_LEVEL: 'WARN',
  };
  child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let ready = false;
  const racing = options.race ? raceStartup(() => ready) : undefined;
  const started = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start not ready in 170 s:\n${output}`)), 170_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (!ready && output.includes('is ready on')) {
        ready = true;
        firstStart.readyLineAt = performance.now();
        clearTimeout(timer);
        setTimeout(() => resolve(output), 200); // the lines after the ready line
      }
    };
    child!.stdout!.on('data', onData);
    child!.stderr!.on('data', onData);
    child!.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
  });
  if (racing) firstStart.observations = await racing;
  return started;
}

function stop(): Promise<number | null> {
  return new Promise((resolve) => {
    child!.once('exit', (code) => resolve(code));
    child!.kill('SIGINT');
  });
}

const url = (path: string) => `http://127.0.0.1:${port}${path}`;
const login = async (apiKey: string) => fetch(url('/api/v1/auth/login'), { headers: { 'x-apikey': apiKey } });

/**
 * Runs a script to its end without blocking this process: while a blocking spawnSync runs, the test's fetch pool
 * cannot notice the server closing idle keep-alive sockets (nor close them itself after its own 4 s), and the next
 * requests are written on sockets already closed ("other side closed").
 */
function run(
  script: string,
  args: string[],
  options: SpawnOptions = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...options,
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function admin(...args: string[]) {
  const result = await run('scripts/admin.ts', args, { env: { ...cleanEnv(), DATA_DIR: dataDir } });
  return { status: result.status, json: result.stdout ? JSON.parse(result.stdout) : undefined, stderr: result.stderr };
}

beforeAll(async () => {
  firstOutput = await start({ race: true });
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('answers 503 with Retry-After and /health "starting" until ready, then prints the ready line', async () => {
    const { observations, readyLineAt } = firstStart;
    const starting = (probe: Observation['probe']) => observations.filter((o) => o.probe === probe && o.status === 503);
    // The race saw the start-up: both probes were answered while the stack was starting.
    expect(starting('health').length, JSON.stringify(observations.slice(0, 5))).toBeGreaterThan(0);
    expect(starting('api').length).toBeGreaterThan(0);
    for (const o of observations) {
      if (o.probe === 'api')
        expect([503, 401], `${o.status} ${o.body}`).toContain(o.status); // never a 500
      else expect([503, 200], `${o.status} ${o.body}`).toContain(o.status);
      if (o.status === 503) {
        expect(o.retryAfter).toBe('1');
        expect(JSON.parse(o.body), o.body).toEqual(
          o.probe === 'health' ? { status: 'starting' } : { message: expect.stringContaining('starting') },
        );
      }
      if (o.probe === 'health' && o.status === 200) expect(JSON.parse(o.body)).toEqual({ status: 'ok' });
    }
    // Once /health says ok, the API is ready: no request sent after that answer is refused as starting.
    const healthyAt = Math.min(
      ...observations.filter((o) => o.probe === 'health' && o.status === 200).map((o) => o.answeredAt),
    );
    expect(observations.filter((o) => o.status === 503 && o.sentAt > healthyAt)).toEqual([]);
    // Nothing sent after the ready line was printed finds the stack starting.
    expect(observations.filter((o) => o.status === 503 && o.sentAt >= readyLineAt)).toEqual([]);
    expect((await fetch(url('/health'))).status).toBe(200);
    expect((await login('hawk.not-a-key.after-ready')).status).toBe(401);
  });

  it('bootstraps an organization, user and API key on first start and prints the walk-through variables', async () => {
    const apiKey = firstOutput.match(/API key:\s+(\S+)/)?.[1];
    expect(apiKey).toMatch(/^hawk\./);
    expect(firstOutput).toContain(`export BASE=http://127.0.0.1:${port} API_KEY='${apiKey}'`);
    const bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
    expect(JSON.stringify(bootstrap)).not.toContain(apiKey!); // only ids are kept, never the key
    const response = await login(apiKey!);
    expect(response.status).toBe(200);
    // The embedded scanner agent (docs/HOSTED-SCANS.md) becomes a device of the bootstrap organization once the
    // service is ready (it registers through the API; asking wapiti its version first takes seconds when busy).
    const { token } = (await response.json()) as { token: string };
    // Its user is the organization's owner: only an owner can make other owners.
    const me = await fetch(url('/api/v1/user'), { headers: { authorization: `Bearer ${token}` } });
    expect(
      ((await me.json()) as { user: { external: { organizations: { role: string }[] } } }).user.external,
    ).toMatchObject({ organizations: [{ role: 'OWNER' }] });
    const agents = async () => {
      const out = await fetch(url(`/api/v1/org/${bootstrap.organizationId}/perch/devices`), {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(out.status).toBe(200);
      return ((await out.json()) as { devices: { name: string; status: string }[] }).devices;
    };
    const until = Date.now() + 30_000;
    while ((await agents()).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
    expect(await agents()).toEqual([expect.objectContaining({ name: 'embedded agent (npm start)', status: 'ONLINE' })]);
  });

  it('admin CLI: creates org, user, membership and key against the running instance; bad input exits non-zero', async () => {
    const org = await admin('create-org', '--name', 'CLI Org');
    expect(org.status).toBe(0);
    expect(org.json.organizationId).toMatch(/^[0-9a-f-]{36}$/);
    const user = await admin('create-user', '--email', 'cli@example.test', '--name', 'Cli User');
    expect(user.status).toBe(0);
    const member = await admin(
      'add-member',
      '--org',
      org.json.organizationId,
      '--user',
      user.json.userId,
      '--permissions',
      'read:application',
    );
    expect(member.json).toMatchObject({ role: 'MEMBER', permissions: ['read:application'] });
    const key = await admin('create-api-key', '--user', user.json.userId);
    expect(key.json.apiKey).toMatch(/^hawk\./);
    expect((await login(key.json.apiKey)).status).toBe(200);
    const listed = await admin('list-api-keys', '--user', user.json.userId);
    expect(listed.json.apiKeys).toHaveLength(1);
    // `--key-id=<id>`: a key id may start with '-', which parseArgs refuses as a separate argument.
    expect(
      (await admin('revoke-api-key', '--user', user.json.userId, `--key-id=${listed.json.apiKeys[0].keyId}`)).status,
    ).toBe(0);
    expect((await login(key.json.apiKey)).status).toBe(401);

    for (const bad of [
      ['create-org'],
      ['create-user', '--email', 'not-an-email'],
      ['add-member', '--org', org.json.organizationId, '--user', user.json.userId, '--permissions', 'fly:away'],
      ['frobnicate'],
      ['create-org', '--nmae', 'x'],
    ]) {
      const result = await admin(...bad);
      expect(result.status, bad.join(' ')).not.toBe(0);
      expect(result.stderr, bad.join(' ')).toMatch(/admin: /);
      expect(result.json).toBeUndefined();
    }
    expect((await admin('create-user', '--email', 'cli@example.test')).stderr).toMatch(/already used/);
    const again = await admin('add-member', '--org', org.json.organizationId, '--user', user.json.userId);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/already a member.*--replace/);
    expect(
      (await admin('add-member', '--org', org.json.organizationId, '--user', user.json.userId, '--replace')).json,
    ).toMatchObject({ role: 'ADMIN' });
    // A named role, for break-glass use: an owner.
    expect(
      (
        await admin(
          'add-member',
          '--org',
          org.json.organizationId,
          '--user',
          user.json.userId,
          '--role',
          'OWNER',
          '--replace',
        )
      ).json,
    ).toMatchObject({ role: 'OWNER' });
    expect(
      (await admin('add-member', '--org', org.json.organizationId, '--user', user.json.userId, '--role', 'KING'))
        .stderr,
    ).toMatch(/--role must be one of OWNER, ADMIN, MEMBER, READ_ONLY, SCANNER/);
    const help = await run('scripts/admin.ts', ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/add-member --org .* \[--replace\]\n\s+makes a user a member/);
  }, 300_000);

  it('refuses to start when a port it needs is taken, naming it', async () => {
    const result = await run('scripts/start.ts', [], {
      env: { ...cleanEnv(), DATA_DIR: mkdtempSync(join(tmpdir(), 'hawk-busy-')), PORT: String(port) },
      timeout: 120_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`port ${port}, for the HTTP server \\(PORT\\), is already in use.*PORT=`));
  }, 130_000);

  it('admits exactly 180 of 300 parallel requests per user per minute and answers the rest 429 with Retry-After', async () => {
    // A user of its own: the embedded scanner agent acts as the bootstrap user, and its polls count in that quota.
    const { organizationId } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
    const user = await admin('create-user', '--email', 'rate-limited@example.test');
    await admin('add-member', '--org', organizationId, '--user', user.json.userId);
    rateLimitedKey = (await admin('create-api-key', '--user', user.json.userId)).json.apiKey;
    const { token } = (await (await login(rateLimitedKey)).json()) as { token: string };
    const responses = await Promise.all(
      Array.from({ length: 300 }, () => fetch(url('/api/v1/user'), { headers: { authorization: `Bearer ${token}` } })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(180);
    expect(statuses.filter((s) => s === 429)).toHaveLength(120);
    const limited = responses.find((r) => r.status === 429)!;
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await limited.json()).toEqual({ message: expect.stringMatching(/Rate limit/) });
  }, 180_000);

  it('limits login attempts per API key', async () => {
    const attempts = await Promise.all(Array.from({ length: 40 }, () => login('hawk.guess.guess')));
    const statuses = attempts.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  }, 60_000);

  it('stops cleanly on Ctrl-C and keeps every org and key across a restart', async () => {
    const apiKey = firstOutput.match(/API key:\s+(\S+)/)![1];
    expect(await stop()).toBe(0);
    expect(existsSync(join(dataDir, 'local-stack.json'))).toBe(false);
    await expect(fetch(url('/api/v1/user'))).rejects.toThrow();

    const output = await start();
    expect(output).not.toContain('First start');
    expect(output).toMatch(/Its API key was printed on first start/);
    expect((await login(apiKey)).status).toBe(200);
    // The data is on disk, the rate-limit table is not (scripts/local/stack.ts: each request's rate-limit write would
    // cost an fsync): the user who spent its minute's quota above is admitted again after the restart.
    const persistent = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${dynamodbPort}`,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    expect((await persistent.send(new ListTablesCommand({}))).TableNames).toEqual(['hawk-main']);
    persistent.destroy();
    const { token: limitedToken } = (await (await login(rateLimitedKey)).json()) as { token: string };
    expect((await fetch(url('/api/v1/user'), { headers: { authorization: `Bearer ${limitedToken}` } })).status).toBe(
      200,
    );
    const { organizationId } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
    const user = await admin('create-user', '--email', 'after-restart@example.test');
    await admin('add-member', '--org', organizationId, '--user', user.json.userId);
    const { token } = (await (
      await login((await admin('create-api-key', '--user', user.json.userId)).json.apiKey)
    ).json()) as { token: string };
    const me = (await (
      await fetch(url('/api/v1/user'), { headers: { authorization: `Bearer ${token}` } })
    ).json()) as any;
    expect(me.user.external.organizations[0].organization).toMatchObject({
      id: organizationId,
      name: 'Local Organization',
    });
  }, 300_000);
});
