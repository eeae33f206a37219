import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// The dashboard (web/) for the local stack: builds it when its sources changed since the last build, and serves
// web/dist at / with the same security headers CloudFront adds on AWS (infra/web.ts), falling back to
// index.html for the single-page app's own paths.
const webDir = resolve(fileURLToPath(new URL('../../web', import.meta.url)));
export const webDist = join(webDir, 'dist');
const stampFile = join(webDist, '.source-hash');

/** The headers of every dashboard response, here and on CloudFront: no framing, no inline script, same origin only. */
export const WEB_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
} as const;

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
      for (const name of readdirSync(path).sort()) if (name !== 'dist' && name !== 'node_modules' && !name.endsWith('.gen.ts')) add(join(path, name));
    } else hash.update(relative(webDir, path)).update(readFileSync(path));
  };
  add(webDir);
  add(resolve(webDir, '../openapi.json'));
  return hash.digest('hex');
}

/** Builds web/dist unless it is already built from the current sources (about 2 s when it must). */
export async function ensureWebBuild(options: { log?: (line: string) => void } = {}): Promise<void> {
  const hash = sourceHash();
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash) return;
  options.log?.('Building the dashboard (web/) ...');
  const { build } = await import('vite');
  await build({ root: webDir, configFile: join(webDir, 'vite.config.ts'), logLevel: 'warn' });
  writeFileSync(stampFile, hash);
}

/**
 * Serves a GET/HEAD for the dashboard: a file of web/dist, or index.html for any other path that does not look
 * like a file (the app's routes). Returns false when the request is not the dashboard's to answer.
 */
export async function serveWeb(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  if ((req.method !== 'GET' && req.method !== 'HEAD') || url.pathname.startsWith('/api/') || !existsSync(join(webDist, 'index.html'))) return false;
  let path: string;
  try {
    path = resolve(webDist, `.${decodeURIComponent(url.pathname)}`);
  } catch {
    return false;
  }
  if (path !== webDist && !path.startsWith(webDist + sep)) return false;
  let file = existsSync(path) && statSync(path).isFile() ? path : undefined;
  if (!file && !extname(url.pathname)) file = join(webDist, 'index.html'); // SPA fallback
  if (!file) return false;
  const body = await readFile(file);
  res.writeHead(200, {
    ...WEB_SECURITY_HEADERS,
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': String(body.length),
    // Vite names assets by content hash: they never change. index.html must be revalidated to pick up new builds.
    'cache-control': file.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}
