import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3rver, type LocalS3 } from '../../scripts/local/s3.ts';

// The local S3 replaces an object as S3 does, all at once: a read that overlaps a write gets one whole version, never
// a body shorter than its Content-Length (which left the reader waiting until its deadline).
let s3: LocalS3;
let directory: string;

function call(method: string, path: string, body?: Buffer): Promise<{ status: number; length: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: s3.socketPath, method, path, timeout: 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          length: Number(res.headers['content-length']),
          body: Buffer.concat(chunks),
        }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no complete answer within 5 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'hawk-s3rver-atomic-'));
  s3 = await startS3rver({ directory: join(directory, 'objects') });
  expect((await call('PUT', '/bucket')).status).toBe(200);
});

afterAll(async () => {
  await s3?.stop();
  rmSync(directory, { recursive: true, force: true });
});

describe('local S3 object writes', () => {
  it('gives every read overlapping a replacement one whole version of the object', async () => {
    const versions = [Buffer.alloc(400_000, 'a'), Buffer.from('short'), Buffer.alloc(150_000, 'b')];
    expect((await call('PUT', '/bucket/run.log', versions[0])).status).toBe(200);
    const reads: Promise<{ status: number; length: number; body: Buffer }>[] = [];
    for (let round = 0; round < 60; round += 1) {
      const writing = call('PUT', '/bucket/run.log', versions[round % versions.length]);
      reads.push(call('GET', '/bucket/run.log'), call('GET', '/bucket/run.log'));
      expect((await writing).status).toBe(200);
    }
    const answers = await Promise.all(reads);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.length).toBe(answer.length);
      expect(versions.some((version) => version.equals(answer.body))).toBe(true);
    }
    const stored = await call('GET', '/bucket/run.log');
    expect(stored.body.equals(versions[59 % versions.length])).toBe(true);
  });

  it('keeps no temporary file after a write', async () => {
    expect((await call('PUT', '/bucket/other', Buffer.from('x'))).status).toBe(200);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(join(directory, 'objects.incoming'))).toEqual([]);
  });
});
