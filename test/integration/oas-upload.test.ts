import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { api } from './client.ts';
import { addUserTo, createTenant } from './fixtures.ts';
import {
  auditEntriesOf,
  download,
  json30,
  json31,
  seedApplication,
  setMembership,
  storedDescriptionKeys,
  yaml30,
  yaml31,
} from './hosted-assets-helpers.ts';
import { MAX_DESCRIPTION_BYTES } from '../../shared/hosted-assets/inputs.ts';

// POST /api/v1/oas/{appId}/upload (docs/HOSTED-ASSETS.md, Uploading a description; docs/API.md, Activity log, Errors).
const upload = (token: string, appId: string, rawBody: string | Buffer, contentType = 'text/plain') =>
  api('POST', `/api/v1/oas/${appId}/upload`, { token, rawBody, contentType });

/** The current description's bytes, fetched as a client does: hosted-asset response, then the presigned URL. */
async function currentDescription(token: string, orgId: string, appId: string): Promise<string> {
  const hosted = await api('GET', `/api/v1/oas/${orgId}/${appId}`, { token });
  expect(hosted.status).toBe(200);
  const fetched = await download(hosted.body.presignedDownloadUrl);
  expect(fetched.status).toBe(200);
  return fetched.bytes.toString('utf8');
}

describe('uploading a valid description', () => {
  it.each([
    ['OpenAPI 3.0 YAML as text/plain', yaml30(), 'text/plain'],
    ['OpenAPI 3.1 YAML as application/x-yaml', yaml31(), 'application/x-yaml'],
    ['OpenAPI 3.0 JSON as application/json', json30(), 'application/json'],
    ['OpenAPI 3.1 JSON as text/plain', json31(), 'text/plain'],
  ])('stores %s byte for byte and answers its presigned URL', async (_label, text, contentType) => {
    const tenant = await createTenant();
    const appId = await seedApplication(tenant.orgId);
    const response = await upload(tenant.token, appId, text, contentType);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      oasId: appId,
      method: 'GET',
      headers: '{}',
      fileSize: String(Buffer.byteLength(text)),
    });
    expect(response.body.openapiVersion).toMatch(/^3\.[01]\./);
    expect((await download(response.body.presignedDownloadUrl)).bytes.toString('utf8')).toBe(text);
    expect(await currentDescription(tenant.token, tenant.orgId, appId)).toBe(text);
  });

  it('accepts the public OpenAPI spelling: a JSON string holding the description', async () => {
    const tenant = await createTenant();
    const appId = await seedApplication(tenant.orgId);
    const response = await upload(tenant.token, appId, JSON.stringify(yaml30()), 'application/json');
    expect(response.status).toBe(200);
    expect(await currentDescription(tenant.token, tenant.orgId, appId)).toBe(yaml30());
  });

  it('replaces the earlier upload without conflict, keeping one stored version', async () => {
    const tenant = await createTenant();
    const appId = await seedApplication(tenant.orgId);
    expect((await upload(tenant.token, appId, yaml30('First'))).status).toBe(200);
    expect((await upload(tenant.token, appId, json30('Second'), 'application/json')).status).toBe(200);
    expect(await currentDescription(tenant.token, tenant.orgId, appId)).toBe(json30('Second'));
    expect(await storedDescriptionKeys(appId)).toHaveLength(1);
  });

  it('records ORGANIZATION_CONFIGURATION_MODIFIED with the caller, once per upload', async () => {
    const tenant = await createTenant();
    const appId = await seedApplication(tenant.orgId, { name: 'audited' });
    await upload(tenant.token, appId, yaml30());
    await upload(tenant.token, appId, yaml31());
    const entries = (await auditEntriesOf(tenant.orgId)).filter(
      (e) => e.userActivityType === 'ORGANIZATION_CONFIGURATION_MODIFIED',
    );
    expect(entries).toHaveLength(2);
    expect(entries[1]).toMatchObject({ organizationId: tenant.orgId, userId: tenant.userId });
    expect(JSON.parse(entries[1].payload)).toMatchObject({
      appId,
      appName: 'audited',
      oasId: appId,
      openapiVersion: '3.1.0',
    });
  });
});

describe('rejecting an invalid description with what and where (400), changing nothing', () => {
  const cases: [string, string, RegExp][] = [
    ['not YAML or JSON', 'openapi: 3.0.3\ninfo: [title: x\n', /not valid YAML or JSON: .*\(line \d+, column \d+\)/],
    ['an empty body', '   \n', /the body is empty/],
    ['not an object', '- openapi\n- 3.0.3\n', /must be a YAML or JSON object/],
    [
      'Swagger 2.0',
      "swagger: '2.0'\ninfo: {title: x, version: '1'}\npaths: {}\n",
      /\/swagger \(line 1\): Swagger 2\.0 descriptions are not accepted/,
    ],
    [
      'OpenAPI 3.2',
      "openapi: 3.2.0\ninfo: {title: x, version: '1'}\npaths: {}\n",
      /\/openapi \(line 1\): must be an OpenAPI 3\.0\.x or 3\.1\.x version.*"3\.2\.0"/,
    ],
    ['a numeric version', "openapi: 3.0\ninfo: {title: x, version: '1'}\npaths: {}\n", /\/openapi \(line 1\): .*got 3/],
    ['no paths', "openapi: 3.0.3\ninfo: {title: x, version: '1'}\n", /\/paths: required field\(s\) missing/],
    ['no info nor openapi', 'paths: {}\n', /\/openapi, \/info: required field\(s\) missing/],
    [
      'info without version',
      'openapi: 3.0.3\ninfo:\n  title: x\npaths: {}\n',
      /\/info \(line 2\): must have required property 'version'/,
    ],
    [
      'a response without description',
      "openapi: 3.1.0\ninfo: {title: x, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200': {}\n",
      /\/paths\/~1a\/get\/responses\/200 \(line 7\): must have required property 'description'/,
    ],
    [
      'an unresolvable $ref',
      "openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths:\n  /a: {$ref: '#/components/x'}\n",
      /unresolvable \$ref: .*#\/components\/x/,
    ],
    [
      'an undeclared path parameter',
      "openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths:\n  /a/{id}:\n    get:\n      responses: {'200': {description: ok}}\n",
      /\/paths\/a\/\{id\}\/get.*missing path parameter/,
    ],
  ];

  it.each(cases)('%s', async (_label, text, message) => {
    const tenant = await createTenant();
    const appId = await seedApplication(tenant.orgId);
    await upload(tenant.token, appId, yaml30('Kept'));
    const response = await upload(tenant.token, appId, text);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^Invalid OpenAPI description: /);
    expect(response.body.message).toMatch(message);
    expect(await currentDescription(tenant.token, tenant.orgId, appId)).toBe(yaml30('Kept'));
    expect(await storedDescriptionKeys(appId)).toHaveLength(1);
    expect(await auditEntriesOf(tenant.orgId)).toHaveLength(1);
  });

  it('never reads an external $ref', async () => {
    const tenant = await createTenant();
    const appId = await seedApplication(tenant.orgId);
    const text = "openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths:\n  /a: {$ref: 'file:///etc/passwd#/x'}\n";
    const response = await upload(tenant.token, appId, text);
    expect(response.status).toBe(200);
    expect(await currentDescription(tenant.token, tenant.orgId, appId)).toBe(text);
  });

  it('answers 400 for $refs expanding beyond the node limit', async () => {
    const tenant = await createTenant();
    const appId = await seedApplication(tenant.orgId);
    // 24 levels, each referring twice to the next: 2^24 nodes once expanded.
    const schemas = Array.from(
      { length: 24 },
      (_, i) =>
        `    s${i}: {type: object, properties: {a: {$ref: '#/components/schemas/s${i + 1}'}, b: {$ref: '#/components/schemas/s${i + 1}'}}}`,
    );
    const text = `openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n${schemas.join('\n')}\n    s24: {type: string}\n`;
    const response = await upload(tenant.token, appId, text);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/expands to more than \d+ nodes/);
  });
});

describe('upload limits and access', () => {
  it(`answers 413 above ${MAX_DESCRIPTION_BYTES} bytes and 415 for other content types`, async () => {
    const tenant = await createTenant();
    const appId = await seedApplication(tenant.orgId);
    const padded = yaml30() + `# ${'x'.repeat(MAX_DESCRIPTION_BYTES)}\n`;
    const tooLarge = await upload(tenant.token, appId, padded);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.message).toContain(String(MAX_DESCRIPTION_BYTES));
    const exact = yaml30() + `#${'x'.repeat(MAX_DESCRIPTION_BYTES - Buffer.byteLength(yaml30()) - 2)}\n`;
    expect(Buffer.byteLength(exact)).toBe(MAX_DESCRIPTION_BYTES);
    expect((await upload(tenant.token, appId, exact)).status).toBe(200);
    expect((await upload(tenant.token, appId, yaml30(), 'application/xml')).status).toBe(415);
    expect(await storedDescriptionKeys(appId)).toHaveLength(1);
  });

  it('answers 404 for an unknown application and for another organization’s one', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const foreignApp = await seedApplication(other.orgId);
    expect((await upload(tenant.token, randomUUID(), yaml30())).status).toBe(404);
    const foreign = await upload(tenant.token, foreignApp, yaml30());
    expect(foreign.status).toBe(404);
    expect(await storedDescriptionKeys(foreignApp)).toHaveLength(0);
  });

  it('answers 403 without write:scan_config, and to a non-member of the owning team', async () => {
    const tenant = await createTenant();
    const readOnly = await addUserTo(tenant.orgId, ['read:scan_config', 'read:application']);
    const appId = await seedApplication(tenant.orgId);
    const denied = await upload(readOnly.token, appId, yaml30());
    expect(denied.status).toBe(403);
    expect(denied.body.message).toContain(appId);

    const teamId = randomUUID();
    const teamApp = await seedApplication(tenant.orgId, { teamId });
    const outsider = await addUserTo(tenant.orgId, ['write:scan_config']);
    expect((await upload(outsider.token, teamApp, yaml30())).status).toBe(403);
    const insider = await addUserTo(tenant.orgId, ['write:scan_config']);
    await setMembership(tenant.orgId, insider.userId, ['write:scan_config'], [teamId]);
    expect((await upload(insider.token, teamApp, yaml30())).status).toBe(200);
    expect(await storedDescriptionKeys(appId)).toHaveLength(0);
  });

  it('answers 401 without a token and 400 for a malformed appId', async () => {
    expect((await api('POST', `/api/v1/oas/${randomUUID()}/upload`, { rawBody: yaml30() })).status).toBe(401);
    const tenant = await createTenant();
    const malformed = await upload(tenant.token, 'not-a-uuid', yaml30());
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toContain('appId');
  });
});
