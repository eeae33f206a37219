import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { makeObjectWritesAtomic } from './s3rver-atomic.ts';

// s3rver: a local S3 for `npm start` and the tests, storing objects as files under `directory`. It checks no
// signatures, so it listens on a Unix socket in a private (0700) directory, not on a TCP port: only the local
// server's signature-checking front door (s3-proxy.ts) reaches it.
export interface LocalS3 {
  socketPath: string;
  stop(): Promise<void>;
}

export async function startS3rver(options: { directory: string }): Promise<LocalS3> {
  mkdirSync(options.directory, { recursive: true });
  const socketDir = mkdtempSync(join(tmpdir(), 'hawk-s3-'));
  chmodSync(socketDir, 0o700);
  const socketPath = join(socketDir, 's3.sock');
  const server = new S3rver({ directory: options.directory, silent: true });
  makeObjectWritesAtomic(server.store, `${options.directory}.incoming`);
  await server.configureBuckets();
  const http = await server.listen(socketPath);
  return {
    socketPath,
    stop: async () => {
      await new Promise((resolve) => http.close(resolve));
      rmSync(socketDir, { recursive: true, force: true });
    },
  };
}
