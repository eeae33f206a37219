import type { IncomingMessage } from 'node:http';

// Apart from server.ts so that the S3 proxy (s3-proxy.ts), which stack.ts loads before it configures the
// environment, does not load the service's modules: shared/config.ts reads the environment when it loads.

/** The request body, or undefined when it exceeds `limit` bytes (read to the end either way, keeping at most `limit`). */
export function readBoundedBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
