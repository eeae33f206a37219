// What the service serves besides the API operations, the same locally (scripts/local/service-hook.ts) and on
// AWS (functions/service.ts): a health check for load balancers and scripts, the OpenAPI description, and
// reference docs rendered in the browser by swagger-ui (the npm package swagger-ui-dist, served as static files).

/** API Gateway route paths of the service function (infra/stack.ts). */
export const SERVICE_PATHS = ['/health', '/openapi.json', '/docs', '/docs/{file}'];

/** The service function's description in the stack (it is not an API operation). */
export const SERVICE_DESCRIPTION = 'GET /health, /openapi.json, /docs';

/** The files the pages read: openapi.json from the repository root, the rest from swagger-ui-dist. */
export const SERVICE_FILES = {
  openapi: 'openapi.json',
  css: 'swagger-ui.css',
  script: 'swagger-ui-bundle.js',
} as const;
export type ServiceFile = (typeof SERVICE_FILES)[keyof typeof SERVICE_FILES];

export interface Page {
  status: number;
  contentType: string;
  body: Buffer;
  cacheSeconds?: number;
}

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>hawk-api reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/start.js"></script>
</body>
</html>
`;

// A file, not an inline script, so that the page's Content-Security-Policy allows scripts from 'self' only. The
// description's server is this one, wherever it runs (openapi.json names `npm start`'s default address).
const START_JS = `fetch('/openapi.json')
  .then((response) => response.json())
  .then((spec) => {
    spec.servers = [{ url: window.location.origin, description: 'this server' }];
    window.ui = SwaggerUIBundle({ spec: spec, dom_id: '#docs', deepLinking: true });
  });
`;

const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'; frame-ancestors 'none'";

const text = (status: number, contentType: string, body: string, cacheSeconds?: number): Page => ({
  status,
  contentType,
  body: Buffer.from(body),
  cacheSeconds,
});

/** The page for a GET of `path`, or undefined when the path is not one of the service's. */
export async function servicePage(
  path: string,
  read: (file: ServiceFile) => Promise<Buffer>,
): Promise<Page | undefined> {
  switch (path) {
    case '/health':
      return text(200, 'application/json', JSON.stringify({ status: 'ok' }));
    case '/openapi.json':
      return {
        status: 200,
        contentType: 'application/json',
        body: await read(SERVICE_FILES.openapi),
        cacheSeconds: 300,
      };
    case '/docs':
    case '/docs/':
      return text(200, 'text/html; charset=utf-8', DOCS_HTML, 300);
    case '/docs/start.js':
      return text(200, 'text/javascript; charset=utf-8', START_JS, 300);
    case `/docs/${SERVICE_FILES.css}`:
      return {
        status: 200,
        contentType: 'text/css; charset=utf-8',
        body: await read(SERVICE_FILES.css),
        cacheSeconds: 86_400,
      };
    case `/docs/${SERVICE_FILES.script}`:
      return {
        status: 200,
        contentType: 'text/javascript; charset=utf-8',
        body: await read(SERVICE_FILES.script),
        cacheSeconds: 86_400,
      };
    default:
      return path.startsWith('/docs/')
        ? text(404, 'application/json', JSON.stringify({ message: `Not Found: ${path}` }))
        : undefined;
  }
}

export function pageHeaders(page: Page): Record<string, string> {
  return {
    'content-type': page.contentType,
    'x-content-type-options': 'nosniff',
    'cache-control': page.cacheSeconds ? `public, max-age=${page.cacheSeconds}` : 'no-store',
    ...(page.contentType.startsWith('text/html') ? { 'content-security-policy': CSP } : {}),
  };
}
