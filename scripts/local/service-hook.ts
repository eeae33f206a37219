import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pageHeaders, servicePage, SERVICE_FILES, type ServiceFile } from '../../shared/service/pages.ts';
import type { LocalHook } from './hook.ts';

// `npm start`'s health check, OpenAPI document and reference docs (shared/service/pages.ts), read from the
// repository and from the installed swagger-ui-dist.
const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const read = (file: ServiceFile) =>
  readFile(
    file === SERVICE_FILES.openapi ? new URL('../../openapi.json', import.meta.url).pathname : join(swaggerDir, file),
  );

export const serviceHook: LocalHook = async (req, res, url) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const page = await servicePage(url.pathname, read);
  if (!page) return false;
  res.writeHead(page.status, { ...pageHeaders(page), 'content-length': String(page.body.length) });
  res.end(req.method === 'HEAD' ? undefined : page.body);
  return true;
};
