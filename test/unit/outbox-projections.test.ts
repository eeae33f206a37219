import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TransactItem } from '../../shared/db/transactions.ts';
import { keys } from '../../shared/db/keys.ts';
import type { ScanRecord, ScanStatus, FindingRecord, TriageRule, TriageStatus } from '../../shared/results/model.ts';
import type { OverdueFiredMark } from '../../shared/governance/overdue.ts';
import * as scanOutbox from '../../shared/scans/projections/scan-outbox.ts';
import * as ruleOutbox from '../../shared/findings/projections/rule-outbox.ts';
import * as overdueOutbox from '../../shared/governance/projections/overdue-outbox.ts';
import { scanDeleteStart, scanEnd, scanStart } from '../../shared/scans/scan-write.ts';
import { derivedId } from '../../shared/webhooks/model.ts';

// The outbox projections (docs/DATA-MODEL.md, Projections; docs/WEBHOOKS.md, Events) yield exactly the events of a
// change: for random changes of a scan, a triage rule and an overdue mark, the outbox items they return are the
// events a model of the change names (by type and id), each an outbox Put at its event's key, and nothing else.

type Item = Record<string, unknown>;

/** The outbox events among `items` (Puts of outbox items), checked to be stored at their own keys. */
function outboxEvents(items: readonly TransactItem[] | undefined): Item[] {
  const events = (items ?? []).flatMap((item) => (item.Put?.Item?.entity === 'outbox' ? [item.Put.Item as Item] : []));
  for (const event of events)
    expect(event).toMatchObject(keys.outboxEvent(event.eventId as string, event.occurredAt as number));
  return events;
}
const typesAndIds = (events: Item[]) => events.map((e) => [e.type, e.eventId]);

const app = { name: 'shop', teamId: 'team' };
const STARTED_AT = 1_700_000_000_000;

const scanOf = (status: ScanStatus, deleting: boolean): ScanRecord => ({
  scanId: '6f1c1f0e-5a3e-4c1a-9f0e-000000000001',
  organizationId: 'org',
  applicationId: 'app',
  environmentId: 'env',
  envName: 'dev',
  status,
  userId: 'user',
  startedAt: STARTED_AT,
  urlCount: 0,
  hawkscanVersion: '4.1.0',
  host: 'https://target.test',
  tags: [],
  configHash: 'h',
  reportedUris: 0,
  ...(status !== 'STARTED' && { completedAt: STARTED_AT + 5000, durationSeconds: 5 }),
  ...(deleting && { deleting: true }),
});

const scanState = fc.record({
  status: fc.constantFrom<ScanStatus>('STARTED', 'COMPLETED', 'ERROR'),
  deleting: fc.boolean(),
});

/** The model: a scan's start records scanStarted; its end (from STARTED) scanCompleted or scanErrored. */
function expectedScanEvents(before: ScanRecord | undefined, after: ScanRecord) {
  if (after.deleting) return [];
  const out: [string, string][] = [];
  if (!before) out.push(['scanStarted', derivedId(`scanStarted:${after.scanId}`)]);
  if ((before?.status ?? 'STARTED') === 'STARTED' && after.status !== 'STARTED') {
    const type = after.status === 'COMPLETED' ? 'scanCompleted' : 'scanErrored';
    out.push([type, derivedId(`${type}:${after.scanId}`)]);
  }
  return out;
}

describe('the scan outbox projection', () => {
  it('yields exactly the events of a change, random before and after', () => {
    fc.assert(
      fc.property(fc.option(scanState, { nil: undefined }), scanState, (was, is) => {
        const before = was && scanOf(was.status, was.deleting);
        const after = scanOf(is.status, is.deleting);
        const events = outboxEvents(scanOutbox.project(before, after, app).items);
        expect(typesAndIds(events)).toEqual(expectedScanEvents(before, after));
        for (const event of events) expect(event).toMatchObject({ teamId: 'team', applicationId: 'app' });
      }),
    );
  });

  it('is committed with the scan by its writes: start, end and delete', () => {
    const started = scanOf('STARTED', false);
    expect(typesAndIds(outboxEvents(scanStart(started, app)))).toEqual(expectedScanEvents(undefined, started));
    const imported = scanOf('COMPLETED', false);
    expect(outboxEvents(scanStart(imported, app)).map((e) => e.type)).toEqual(['scanStarted', 'scanCompleted']);
    const ended = scanOf('ERROR', false);
    expect(typesAndIds(outboxEvents(scanEnd(started, ended, app)))).toEqual(expectedScanEvents(started, ended));
    expect(outboxEvents(scanDeleteStart(ended, app))).toEqual([]);
  });
});

const STATUSES: TriageStatus[] = ['UNKNOWN', 'ADD_COMMENT', 'FALSE_POSITIVE', 'RISK_ACCEPTED', 'PROMOTED'];
const NOW = 1_750_000_000_000;

const finding: FindingRecord = {
  findingHash: 'f1',
  pluginId: '10038',
  requestMethod: 'GET',
  path: '/a',
  severity: 'High',
  firstSeen: STARTED_AT,
} as FindingRecord;
const context = {
  organizationId: 'org',
  applicationId: 'app',
  environmentId: 'env',
  app,
  envName: 'dev',
  finding,
};

const ruleOf = (status: TriageStatus, version: number, expired = false): TriageRule => ({
  findingHash: 'f1',
  status,
  note: `note ${version}`,
  userId: 'user',
  updatedAt: NOW + version,
  version,
  ...(status === 'RISK_ACCEPTED' && { expiresAt: NOW }),
  history: [
    {
      operation: version === 1 ? 'CREATE' : 'UPDATE',
      oldResult: 'UNKNOWN',
      newResult: status,
      note: `note ${version}`,
      userId: 'user',
      timestamp: NOW + version,
      ...(expired && { expired: true as const }),
    },
  ],
});

describe('the triage rule outbox projection', () => {
  it('yields exactly the events and tracker jobs of a change, random before and after', () => {
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
        fc.constantFrom(...STATUSES),
        fc.boolean(),
        fc.boolean(),
        (from, to, expiring, promoting) => {
          const before = from && ruleOf(from, 3);
          // An expiry happens only to an acceptance, and makes the finding untriaged.
          const expired = expiring && from === 'RISK_ACCEPTED';
          const after = ruleOf(expired ? 'UNKNOWN' : to, (before?.version ?? 0) + 1, expired);
          const promoteTo = promoting ? { trackerId: 'tracker', summary: 'title' } : undefined;
          const items = ruleOutbox.project(before, after, { ...context, ...(promoteTo && { promoteTo }) }).items;
          const scope = `env:f1:${after.version}`;
          const expected: [string, string][] = [];
          if ((from ?? 'UNKNOWN') !== after.status)
            expected.push(['findingStatusChanged', derivedId(`findingStatusChanged:${scope}`)]);
          if (expired) expected.push(['riskAcceptanceExpired', derivedId(`riskAcceptanceExpired:${scope}`)]);
          if (promoteTo && after.status === 'PROMOTED')
            expected.push(['trackerJob', derivedId(`trackerPromote:${scope}`)]);
          expect(typesAndIds(outboxEvents(items))).toEqual(expected);
        },
      ),
    );
  });

  it('yields nothing when the rule does not change (the same version) or is gone', () => {
    const rule = ruleOf('FALSE_POSITIVE', 2);
    expect(ruleOutbox.project(rule, rule, context)).toEqual({});
    expect(ruleOutbox.project(rule, undefined, context)).toEqual({});
  });
});

describe('the overdue outbox projection', () => {
  const overdueContext = {
    ...context,
    finding: { ...finding },
    status: 'UNKNOWN',
    firstSeen: STARTED_AT,
    slaDays: 7,
  };
  const markOf = (episode: number): OverdueFiredMark => ({
    findingHash: 'f1',
    episode,
    dueAt: episode + 7 * 86_400_000,
    firedAt: NOW,
    eventId: derivedId(`findingOverdue:env:f1:${episode}`),
  });

  it('yields findingOverdue for a later episode only, with the mark`s event id', () => {
    fc.assert(
      fc.property(fc.option(fc.nat(1000), { nil: undefined }), fc.nat(1000), (was, is) => {
        const before = was === undefined ? undefined : markOf(was);
        const after = markOf(is);
        const events = outboxEvents(overdueOutbox.project(before, after, overdueContext).items);
        const later = before === undefined || before.episode < after.episode;
        expect(typesAndIds(events)).toEqual(later ? [['findingOverdue', after.eventId]] : []);
        for (const event of events)
          expect(event).toMatchObject({ occurredAt: NOW, data: { episode: is, dueAt: after.dueAt, slaDays: 7 } });
      }),
    );
  });
});
