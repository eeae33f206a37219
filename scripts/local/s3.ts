import { mkdirSync } from 'node:fs';
import S3rver from 's3rver';
import type { RunningProcess } from './dynamodb.ts';

// s3rver: a local S3 for `npm start` and the tests. It stores objects as files under `directory`.
export async function startS3rver(options: { port: number; directory: string }): Promise<RunningProcess> {
  mkdirSync(options.directory, { recursive: true });
  const server = new S3rver({ port: options.port, address: '127.0.0.1', directory: options.directory, silent: true });
  await server.run();
  return { url: `http://127.0.0.1:${options.port}`, stop: () => server.close() };
}
