import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../shared/trackers/http.ts';
import { ticketState, trackerEvent, type TicketRecord } from '../../shared/trackers/model.ts';

// The pure parts of tracker delivery (docs/TRACKERS.md): Retry-After as the queue's delay, job ids that make a
// repeated job one, and the ticket states the finding views show.

describe('Retry-After', () => {
  const now = Date.parse('2026-11-26T10:00:00Z');
  it('reads seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs(' 120 ', now)).toBe(120_000);
    expect(retryAfterMs('Thu, 26 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Thu, 26 Nov 2026 09:00:00 GMT', now)).toBe(0); // past
    expect(retryAfterMs('soon', now)).toBe(0);
    expect(retryAfterMs(undefined, now)).toBe(0);
  });
});

describe('tracker jobs', () => {
  const ref = { applicationId: 'app', environmentId: 'env', findingHash: 'a'.repeat(64) };
  it('have ids derived from what they are about', () => {
    const promote = { type: 'promote' as const, trackerId: 't', ...ref };
    expect(trackerEvent('org', promote, 1, '2').eventId).toBe(trackerEvent('org', promote, 99, '2').eventId);
    expect(trackerEvent('org', promote, 1, '2').eventId).not.toBe(trackerEvent('org', promote, 1, '3').eventId);
    const sync = {
      type: 'sync' as const,
      applicationId: 'app',
      environmentId: 'env',
      ticketId: 'b'.repeat(64),
      scanId: 's1',
      scanStartedAt: 1,
      seen: false,
    };
    expect(trackerEvent('org', sync, 1).eventId).not.toBe(trackerEvent('org', { ...sync, scanId: 's2' }, 1).eventId);
  });
});

describe('ticket states', () => {
  const ticket = { state: 'OPEN', missedScans: 0 } as TicketRecord;
  it('name who closed a ticket and how', () => {
    expect(ticketState({ ...ticket, state: 'CREATING' })).toBe('PENDING');
    expect(ticketState(ticket)).toBe('OPEN');
    expect(ticketState({ ...ticket, state: 'CLOSED', closedBy: 'service', resolution: 'done' })).toBe('CLOSED_FIXED');
    expect(ticketState({ ...ticket, state: 'CLOSED', closedBy: 'people', resolution: 'done' })).toBe('CLOSED_DONE');
    expect(ticketState({ ...ticket, state: 'CLOSED', closedBy: 'people', resolution: 'notPlanned' })).toBe(
      'CLOSED_NOT_PLANNED',
    );
    expect(ticketState({ ...ticket, state: 'CLOSED', closedBy: 'people', resolution: 'invalid' })).toBe(
      'CLOSED_INVALID',
    );
    expect(ticketState({ ...ticket, state: 'FAILED' })).toBe('FAILED');
  });
});
