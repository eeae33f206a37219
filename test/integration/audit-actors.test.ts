import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { addUserTo, createTenant } from './fixtures.ts';
import { completeScan, createApp, startScan } from './scan-helpers.ts';
import { getUser } from '../../shared/identity/user-repository.ts';

// Who an audit entry names (docs/API.md, Activity log): the pipeline reads the caller's names for the operations
// whose route declares an audit type, and building the entry reads nothing; every entry still names its user.

describe('the actor of audit entries', () => {
  it("names the caller of each audited operation: a member's changes, a key, and the scan the scanner reports", async () => {
    const tenant = await createTenant();
    const other = await addUserTo(tenant.orgId);
    const appId = await createApp(tenant);
    // Another member's change: its entry names that member, not the organization's first user.
    const renamed = await api('POST', `/api/v1/app/${appId}`, { token: other.token, body: { name: 'renamed' } });
    expect(renamed.status, renamed.text).toBe(200);
    // createUserKey reads the user item itself as well (the pipeline's read is left for it).
    const key = await api('POST', '/api/v1/user/keys', { token: tenant.token, body: { name: 'audited key' } });
    expect(key.status, key.text).toBe(200);
    // reportScanCompleted's entry (SCAN_COMPLETED) is written by an operation the scanner calls.
    const { scanId } = await startScan(tenant.token, appId);
    await completeScan(tenant.token, scanId);

    const emails = new Map([
      [tenant.userId, (await getUser(tenant.userId))!.email],
      [other.userId, (await getUser(other.userId))!.email],
    ]);
    const listed = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: tenant.token });
    expect(listed.status, listed.text).toBe(200);
    const entries = listed.body.auditRecords as {
      userActivityType: string;
      userId: string;
      userName: string;
      userEmail: string;
    }[];
    expect(entries.map((e) => [e.userActivityType, e.userId])).toEqual([
      ['APPLICATION_ADDED', tenant.userId],
      ['ENVIRONMENT_ADDED', tenant.userId],
      ['APPLICATION_MODIFIED', other.userId],
      ['API_KEY_ADDED', tenant.userId],
      ['SCAN_STARTED', tenant.userId],
      ['SCAN_COMPLETED', tenant.userId],
    ]);
    for (const entry of entries) {
      expect(entry.userName, entry.userActivityType).toBe('Test User');
      expect(entry.userEmail, entry.userActivityType).toBe(emails.get(entry.userId));
    }
  });
});
