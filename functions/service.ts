import { readFile } from 'node:fs/promises';
import type { LambdaEvent, LambdaResult } from '../shared/http/types.ts';
import { pageHeaders, servicePage } from '../shared/service/pages.ts';

// GET /health, /openapi.json, /docs: not API operations (no authentication, no pipeline). The stack copies
// openapi.json and swagger-ui's files next to this bundle (infra/stack.ts, afterBundling).
const besideBundle = (file: string) => readFile(new URL(`./${file}`, import.meta.url));

export async function handler(event: LambdaEvent): Promise<LambdaResult> {
  const page = await servicePage(event.rawPath, besideBundle);
  if (!page)
    return {
      statusCode: 404,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: `Not Found: ${event.rawPath}` }),
    };
  const binary = !page.contentType.startsWith('text/') && page.contentType !== 'application/json';
  return {
    statusCode: page.status,
    headers: pageHeaders(page),
    body: binary ? page.body.toString('base64') : page.body.toString('utf8'),
    isBase64Encoded: binary,
  };
}
