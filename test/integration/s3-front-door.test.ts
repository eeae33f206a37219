import { describe, expect, it } from 'vitest';
import { api, baseUrl } from './client.ts';
import { createTenant } from './fixtures.ts';
import { seedApplication, yaml30 } from './hosted-assets-helpers.ts';
import { addMember } from '../../shared/identity/admin.ts';

// The local stack's S3 (s3rver) is reachable only through the local server, which checks every request's AWS
// Signature V4 (scripts/local/s3-proxy.ts): presigned URLs work for their method and key only, until they expire.
async function presignedUrlOf(tenant: { orgId: string; token: string }, appId: string, title: string): Promise<URL> {
  expect(
    (await api('POST', `/api/v1/oas/${appId}/upload`, { token: tenant.token, rawBody: yaml30(title) })).status,
  ).toBe(200);
  const answer = await api('GET', `/api/v1/oas/${tenant.orgId}/${appId}`, { token: tenant.token });
  return new URL(answer.body.presignedDownloadUrl);
}

describe('the local S3 front door', () => {
  it('serves a presigned GET and refuses it altered: another key, another method, unsigned, expired, a listing', async () => {
    const a = await createTenant();
    const b = await createTenant();
    const urlA = await presignedUrlOf(a, await seedApplication(a.orgId), 'OrgA');
    const urlB = await presignedUrlOf(b, await seedApplication(b.orgId), 'OrgB');
    expect(urlA.origin).toBe(new URL(baseUrl()).origin); // the local server, not the engine

    const ok = await fetch(urlA);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('OrgA');

    const swapped = new URL(urlA);
    swapped.pathname = urlB.pathname; // org B's key with org A's signature
    expect((await fetch(swapped)).status).toBe(403);

    for (const method of ['PUT', 'DELETE'])
      expect((await fetch(urlA, { method, body: method === 'PUT' ? 'x' : undefined })).status, method).toBe(403);
    expect(await (await fetch(urlB)).text()).toContain('OrgB'); // still there

    const unsigned = new URL(urlA.pathname, urlA.origin);
    expect((await fetch(unsigned)).status).toBe(403);
    expect((await fetch(new URL(`/${unsigned.pathname.split('/')[1]}?list-type=2`, urlA.origin))).status).toBe(403);

    const expired = new URL(urlA);
    expired.searchParams.set('X-Amz-Date', '20200101T000000Z'); // signed long ago (and the signature no longer matches)
    const answer = await fetch(expired);
    expect(answer.status).toBe(403);
    expect(await answer.text()).toMatch(/expired/);
  });
});

describe('admin add-member', () => {
  it('refuses to replace an existing membership unless asked to', async () => {
    const tenant = await createTenant();
    await expect(
      addMember({ organizationId: tenant.orgId, userId: tenant.userId, permissions: ['read:application'] }),
    ).rejects.toMatchObject({ statusCode: 409 });
    const me = await api('GET', '/api/v1/user', { token: tenant.token });
    expect(me.body.user.external.organizations[0].permissions).toContain('DELETE_SCAN'); // unchanged
    await addMember({
      organizationId: tenant.orgId,
      userId: tenant.userId,
      permissions: ['read:application'],
      replace: true,
    });
    const after = await api('GET', '/api/v1/user', { token: tenant.token });
    expect(after.body.user.external.organizations[0].permissions).toEqual(['READ_APPLICATION']);
  });
});
