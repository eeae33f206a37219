import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys.ts';
import * as riskExpiryEntries from '../../shared/governance/projections/risk-expiry-entries.ts';

// The risk-expiry entry is a projection of the finding's triage rule (docs/DATA-MODEL.md, Projections; docs/
// GOVERNANCE.md, Risk acceptance that expires): for random changes of a rule, the index holds, after the change's
// items are applied to what it held before, exactly the entry of the rule after the change, and a change that keeps
// the expiry writes nothing.

const finding = { organizationId: 'org', applicationId: 'app', environmentId: 'env', findingHash: 'hash' };
const STATUSES = ['UNKNOWN', 'FALSE_POSITIVE', 'RISK_ACCEPTED', 'ADD_COMMENT'] as const;
const rule = fc.option(
  fc
    .record({
      status: fc.constantFrom(...STATUSES),
      expiresAt: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
    })
    // Only an acceptance has an expiry (triage.ts triageChange).
    .map((r) => (r.status === 'RISK_ACCEPTED' ? r : { status: r.status })),
  { nil: undefined },
);

/** The entry keys a rule has in the index: its acceptance's expiry's, if any. */
const entriesOf = (r: { status: string; expiresAt?: number } | undefined) =>
  r?.status === 'RISK_ACCEPTED' && r.expiresAt !== undefined
    ? [JSON.stringify(keys.riskExpiry(r.expiresAt, finding.applicationId, finding.environmentId, finding.findingHash))]
    : [];

describe('the risk-expiry entry projection', () => {
  it('leaves the index holding the entry of the rule after the change, and writes nothing when it stays', () => {
    fc.assert(
      fc.property(rule, rule, fc.boolean(), (before, after, expiring) => {
        const { items = [] } = riskExpiryEntries.project(before, after, { ...finding, expiring });
        const index = new Set(entriesOf(before));
        for (const item of items) {
          if (item.Delete) {
            const key = JSON.stringify(item.Delete.Key);
            expect(index.has(key)).toBe(true);
            expect(Boolean(item.Delete.ConditionExpression)).toBe(expiring);
            index.delete(key);
          } else {
            const { pk, sk } = item.Put!.Item as { pk: string; sk: string };
            index.add(JSON.stringify({ pk, sk }));
          }
        }
        expect([...index]).toEqual(entriesOf(after));
        if (JSON.stringify(entriesOf(before)) === JSON.stringify(entriesOf(after))) expect(items).toEqual([]);
      }),
    );
  });
});
