import { describe, expect, it } from 'vitest';
import { findingEvents, overdueEvent, riskExpiryEvents, scanEvents } from '../../shared/webhooks/model.ts';
import { refusalOf } from '../../shared/outbound/receivers.ts';
import { MAX_RETRY_AFTER_MS, retryAfterMs } from '../../shared/webhooks/sender.ts';
import { retryDelayMs } from '../../shared/delivery/queue.ts';
import type { ScanRecord, TriageRule } from '../../shared/results/model.ts';

// The outbox projections are pure functions of the entity before and after a change (docs/WEBHOOKS.md, Events).

const started: ScanRecord = {
  scanId: '6f1c1f0e-5a3e-4c1a-9f0e-000000000001',
  organizationId: 'org',
  applicationId: 'app',
  environmentId: 'env',
  envName: 'dev',
  status: 'STARTED',
  userId: 'user',
  startedAt: 1_700_000_000_000,
  urlCount: 0,
  hawkscanVersion: '4.1.0',
  host: 'https://target.test',
  tags: [],
  configHash: 'h',
  reportedUris: 0,
};
const app = { name: 'shop', teamId: 'team' };

describe('scanEvents', () => {
  it('makes scanStarted for a new scan, scanCompleted or scanErrored when it ends, both for an import', () => {
    expect(scanEvents(undefined, started, app).map((e) => e.type)).toEqual(['scanStarted']);
    const done = {
      ...started,
      status: 'COMPLETED' as const,
      completedAt: started.startedAt + 5000,
      durationSeconds: 5,
    };
    const [completed] = scanEvents(started, done, app);
    expect(completed).toMatchObject({
      type: 'scanCompleted',
      teamId: 'team',
      occurredAt: done.completedAt,
      data: { scanId: started.scanId, appName: 'shop', durationSeconds: 5, status: 'COMPLETED' },
    });
    expect(scanEvents(started, { ...done, status: 'ERROR' }, app).map((e) => e.type)).toEqual(['scanErrored']);
    expect(scanEvents(undefined, done, app).map((e) => e.type)).toEqual(['scanStarted', 'scanCompleted']);
    // No change of state, no event; the same change always has the same id (a retried write cannot make two).
    expect(scanEvents(done, { ...done, urlCount: 3 }, app)).toEqual([]);
    expect(scanEvents(started, done, app)[0].eventId).toBe(completed.eventId);
  });
});

describe('findingEvents', () => {
  const rule = (status: TriageRule['status'], version: number): TriageRule => ({
    findingHash: 'f'.repeat(64),
    status,
    note: 'n',
    userId: 'u',
    updatedAt: 1,
    version,
    history: [],
  });
  const context = {
    organizationId: 'org',
    applicationId: 'app',
    environmentId: 'env',
    app,
    envName: 'dev',
    finding: { pluginId: '10038', severity: 'High', requestMethod: 'GET', path: '/a' },
  };
  it('makes findingStatusChanged only when the status changes', () => {
    expect(findingEvents(undefined, rule('FALSE_POSITIVE', 1), context)[0].data).toMatchObject({
      oldStatus: 'UNKNOWN',
      newStatus: 'FALSE_POSITIVE',
    });
    expect(findingEvents(rule('RISK_ACCEPTED', 1), rule('RISK_ACCEPTED', 2), context)).toEqual([]);
  });

  it('makes riskAcceptanceExpired with who accepted, when, why and until when, its id derived from the change', () => {
    const accepted = { ...rule('RISK_ACCEPTED', 3), expiresAt: 1_700_100_000_000 };
    const [event] = riskExpiryEvents(accepted, rule('UNKNOWN', 4), context);
    expect(event).toMatchObject({ type: 'riskAcceptanceExpired', organizationId: 'org', applicationId: 'app' });
    expect(event.data).toMatchObject({
      oldStatus: 'RISK_ACCEPTED',
      newStatus: 'UNKNOWN',
      acceptedBy: accepted.userId,
      acceptedAt: accepted.updatedAt,
      acceptedUntil: 1_700_100_000_000,
      acceptanceNote: accepted.note,
    });
    expect(riskExpiryEvents(accepted, rule('UNKNOWN', 4), context)[0].eventId).toBe(event.eventId);
    expect(riskExpiryEvents(accepted, rule('UNKNOWN', 5), context)[0].eventId).not.toBe(event.eventId);
  });
});

describe('overdueEvent', () => {
  it('makes findingOverdue with the due date and days, its id derived from the finding and the episode', () => {
    const context = {
      organizationId: 'org',
      applicationId: 'app',
      environmentId: 'env',
      app,
      envName: 'dev',
      finding: { findingHash: 'h', pluginId: '40018', severity: 'High', requestMethod: 'GET', path: '/a' },
    };
    const overdue = { status: 'UNKNOWN', firstSeen: 1, dueAt: 2, slaDays: 7, episode: 1 };
    const event = overdueEvent(context, overdue, 10);
    expect(event).toMatchObject({ type: 'findingOverdue', organizationId: 'org', teamId: 'team', occurredAt: 10 });
    expect(event.data).toMatchObject({ appName: 'shop', envName: 'dev', findingHash: 'h', dueAt: 2, slaDays: 7 });
    // The same episode makes the same event whenever it is recorded; another episode another one.
    expect(overdueEvent(context, overdue, 20).eventId).toBe(event.eventId);
    expect(overdueEvent(context, { ...overdue, episode: 5 }, 10).eventId).not.toBe(event.eventId);
  });
});

describe('refusalOf', () => {
  it('refuses link-local and metadata always, private and loopback unless allowed, public never', () => {
    for (const address of ['169.254.169.254', 'fe80::1', 'fd00:ec2::254', '0.0.0.0', '::ffff:169.254.169.254'])
      expect(refusalOf(address, true), address).toMatch(/link-local/);
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '100.64.0.1',
      '::1',
      'fd12::1',
      '::ffff:10.0.0.1',
    ]) {
      expect(refusalOf(address, false), address).toMatch(/private or loopback/);
      expect(refusalOf(address, true), address).toBeUndefined();
    }
    for (const address of ['93.184.216.34', '2606:2800:220:1::1', '172.32.0.1'])
      expect(refusalOf(address, false)).toBeUndefined();
  });
});

describe('the retry delay', () => {
  it("doubles from the base up to 15 minutes, and is never shorter than the receiver's Retry-After", () => {
    expect([1, 2, 3].map((n) => retryDelayMs(n, 30_000))).toEqual([30_000, 60_000, 120_000]);
    expect(retryDelayMs(20, 30_000)).toBe(15 * 60_000);
    expect(retryDelayMs(1, 200, 2000)).toBe(2000);
    expect(retryDelayMs(3, 30_000, 1000)).toBe(120_000);
  });

  it('reads Retry-After as seconds or an HTTP date, bounded, and ignores what it cannot read', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('999999', now)).toBe(MAX_RETRY_AFTER_MS);
    for (const bad of [undefined, '', 'soon', '-5', '1.5']) expect(retryAfterMs(bad, now), String(bad)).toBeUndefined();
  });
});
