import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';

// DATA_DIR belongs to one `npm start` at a time and to its user only: it holds every tenant's scan configurations
// (with their scan credentials), captured requests and cookies, and the JWT signing key.

/**
 * Where the start lock listens: an abstract Unix socket on Linux (no file; it vanishes with its process), a socket
 * file in DATA_DIR elsewhere.
 */
function lockAddress(dir: string): string {
  if (process.platform === 'linux')
    return `\0hawk-api-start-${createHash('sha256').update(dir).digest('hex').slice(0, 32)}`;
  return join(dir, 'npm-start.lock');
}

const listen = (server: Server, address: string) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address, () => {
      server.off('error', reject);
      resolve();
    });
  });

const answers = (address: string) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection(address, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

/**
 * Takes DATA_DIR's start lock: a listening socket held by this process, which the kernel closes when the process
 * dies however it dies (kill -9, and a zombie holds no sockets), so a dead owner never blocks a restart and two
 * starts cannot both win. Throws when a live `npm start` holds it.
 */
export async function acquireStartLock(dir: string): Promise<Server> {
  const address = lockAddress(dir);
  const server = createServer((socket) => socket.end());
  try {
    await listen(server, address);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    if (await answers(address))
      throw new Error(`Another npm start already serves DATA_DIR ${dir}: stop it first or set DATA_DIR`, {
        cause: error,
      });
    rmSync(address, { force: true }); // a socket file left by a dead owner (not Linux)
    await listen(server, address);
  }
  server.unref();
  return server;
}

/** DATA_DIR and everything in it readable by its owner only (0700 directories, 0600 files), also for older data. */
export function makePrivate(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const visit = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      chmodSync(path, 0o700);
      for (const entry of readdirSync(path)) visit(join(path, entry));
    } else {
      chmodSync(path, 0o600);
    }
  };
  if (existsSync(dir)) visit(dir);
}
