import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { baseUrl } from './client.ts';

// The local server's health check, OpenAPI document and docs (shared/service/pages.ts; on AWS: functions/service.ts).
describe('service pages on the local server', () => {
  it('answers the health check without authentication', async () => {
    const response = await fetch(new URL('/health', baseUrl()));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('serves openapi.json and the rendered docs with their static files', async () => {
    const openapi = await fetch(new URL('/openapi.json', baseUrl()));
    expect(openapi.headers.get('content-type')).toBe('application/json');
    expect(await openapi.text()).toBe(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
    const page = await fetch(new URL('/docs', baseUrl()));
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    for (const asset of [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])) {
      const response = await fetch(new URL(asset, baseUrl()));
      expect(response.status, asset).toBe(200);
    }
  });
});
