import type { Projected } from '../../db/entity-write.ts';
import { type RiskExpiryContext, type RuleExpiry, riskExpiryDelete, riskExpiryPut } from '../model.ts';

// A risk acceptance's entry in the index by expiry time (docs/GOVERNANCE.md, Risk acceptance that expires;
// docs/DATA-MODEL.md, Projections): a projection of the finding's triage rule. An acceptance with an expiry has its
// entry; the entry moves with the expiry and goes when the acceptance ends.

/** The entry's delete and put for the rule's change from `before` to `after` (none when its expiry stays). */
export function project(
  before: RuleExpiry | undefined,
  after: RuleExpiry | undefined,
  context: RiskExpiryContext,
): Projected {
  const { expiring, ...finding } = context;
  const was = before?.status === 'RISK_ACCEPTED' ? before.expiresAt : undefined;
  const next = after?.expiresAt;
  const items = [
    ...(was !== undefined && was !== next ? [riskExpiryDelete(finding, was, expiring)] : []),
    ...(next !== undefined && next !== was ? [riskExpiryPut(finding, next)] : []),
  ];
  return items.length > 0 ? { items } : {};
}
