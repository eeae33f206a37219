import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireStartLock, makePrivate } from '../../scripts/local/data-dir.ts';
import { runningStack, statePath } from '../../scripts/local/stack.ts';

const root = new URL('../../', import.meta.url).pathname;
const HOLDER =
  "import { acquireStartLock } from './scripts/local/data-dir.ts'; await acquireStartLock(process.env.LOCK_DIR); console.log('locked'); setInterval(() => {}, 1000);";
let shell: ChildProcess | undefined;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'hawk-lock-'));
  dirs.push(dir);
  return dir;
};

afterEach(() => {
  shell?.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A process holding DATA_DIR's start lock whose parent never reaps it: killed, it stays a zombie. Returns its pid. */
function zombieCandidate(dir: string): Promise<number> {
  const script = `node --import tsx --input-type=module -e "${HOLDER}" & echo pid=$!; exec sleep 120`;
  shell = spawn('sh', ['-c', script], {
    cwd: root,
    env: { ...process.env, LOCK_DIR: dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    shell!.stdout!.on('data', (chunk) => {
      output += chunk;
      const pid = output.match(/pid=(\d+)/)?.[1];
      if (pid && output.includes('locked')) resolve(Number(pid));
    });
    shell!.once('exit', () => reject(new Error(`holder exited: ${output}`)));
  });
}

const processState = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];

describe('npm start lock', () => {
  it('refuses a second start while the owner lives, and is free once it is killed, even as a zombie', async () => {
    const dir = tempDir();
    const pid = await zombieCandidate(dir);
    writeFileSync(statePath(dir), JSON.stringify({ pid, port: 1, dynamodbEndpoint: 'x', s3Endpoint: 'y' }));
    await expect(acquireStartLock(dir)).rejects.toThrow(/Another npm start already serves DATA_DIR/);
    expect(runningStack(dir)?.pid).toBe(pid);

    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 100 && processState(pid) !== 'Z'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(processState(pid)).toBe('Z'); // kill(pid, 0) still succeeds: the old pid check refused to restart here
    // The zombie's other threads may take a moment to exit and release its descriptors.
    let lock: Awaited<ReturnType<typeof acquireStartLock>> | undefined;
    for (let i = 0; i < 50 && !lock; i++)
      lock = await acquireStartLock(dir).catch(() => new Promise<undefined>((resolve) => setTimeout(resolve, 100)));
    expect(lock).toBeDefined();
    expect(runningStack(dir)).toBeUndefined();
    lock!.close();
  }, 60_000);
});

describe('DATA_DIR permissions', () => {
  it('makes the directory tree private to its owner (0700 directories, 0600 files)', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'dynamodb'), { mode: 0o755 });
    writeFileSync(join(dir, 'dynamodb', 'shared-local-instance.db'), 'x', { mode: 0o644 });
    writeFileSync(join(dir, 'bootstrap.json'), '{}', { mode: 0o644 });
    makePrivate(dir);
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect([
      mode(dir),
      mode(join(dir, 'dynamodb')),
      mode(join(dir, 'dynamodb', 'shared-local-instance.db')),
      mode(join(dir, 'bootstrap.json')),
    ]).toEqual([0o700, 0o700, 0o600, 0o600]);
  });
});
