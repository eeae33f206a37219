import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WEB_SECURITY_HEADERS } from '../../web/security-headers.ts';

// The dashboard (web/) for the local stack: builds it when its sources changed since the last build, and serves
// web/dist at / with the same security headers CloudFront adds on AWS (infra/web.ts), falling back to
// index.html for the single-page app's own paths.
const webDir = resolve(fileURLToPath(new URL('../../web', import.meta.url)));
export const webDist = join(webDir, 'dist');
const stampFile = join(webDist, '.source-hash');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** A hash of everything the build reads: the dashboard's sources and the API description its client is typed from. */
function sourceHash(): string {
  const hash = createHash('sha256');
  const add = (path: string) => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort())
        if (name !== 'dist' && name !== 'node_modules' && name !== '.build-lock' && !name.endsWith('.gen.ts'))
          add(join(path, name));
    } else hash.update(relative(webDir, path)).update(readFileSync(path));
  };
  add(webDir);
  add(resolve(webDir, '../openapi.json'));
  return hash.digest('hex');
}

/**
 * Builds web/dist unless it is already built from the current sources (a few seconds when it must). A lock
 * directory keeps concurrent callers (test workers, `npm start` beside `cdk synth`) from building over each other.
 */
export async function ensureWebBuild(options: { log?: (line: string) => void } = {}): Promise<void> {
  const hash = sourceHash();
  const built = () => existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash;
  if (built()) return;
  await withLock(join(webDir, '.build-lock'), async () => {
    if (built()) return; // another process built it while this one waited
    options.log?.('Building the dashboard (web/) ...');
    const { build } = await import('vite');
    // Vite takes NODE_ENV from the environment (vitest sets "test"), which would ship React's development build.
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      await build({ root: webDir, configFile: join(webDir, 'vite.config.ts'), mode: 'production', logLevel: 'warn' });
    } finally {
      if (nodeEnv === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = nodeEnv;
    }
    writeFileSync(stampFile, hash);
  });
}

async function withLock(dir: string, fn: () => Promise<void>): Promise<void> {
  for (const started = Date.now(); ;) {
    try {
      mkdirSync(dir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock older than two minutes was left by a process that died mid-build.
      if (Date.now() - statSync(dir).mtimeMs > 120_000 || Date.now() - started > 180_000)
        rmSync(dir, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    await fn();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Serves a GET/HEAD for the dashboard: a built asset under /assets/, or index.html for every other path (the
 * app's own routes), as CloudFront's viewer-request function does. Returns false when it is not the dashboard's.
 */
export async function serveWeb(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  if (
    (req.method !== 'GET' && req.method !== 'HEAD') ||
    url.pathname.startsWith('/api/') ||
    !existsSync(join(webDist, 'index.html'))
  )
    return false;
  let file = join(webDist, 'index.html');
  if (url.pathname.startsWith('/assets/')) {
    const path = resolve(webDist, `.${url.pathname}`); // URL pathnames are already normalized: no "..", no decoding here
    if (!path.startsWith(join(webDist, 'assets') + sep) || !existsSync(path) || !statSync(path).isFile()) return false;
    file = path;
  }
  const body = await readFile(file);
  res.writeHead(200, {
    ...WEB_SECURITY_HEADERS,
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': String(body.length),
    // Vite names assets by content hash: they never change. index.html must be revalidated to pick up new builds.
    'cache-control': file === join(webDist, 'index.html') ? 'no-cache' : 'public, max-age=31536000, immutable',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}
