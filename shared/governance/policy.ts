import { keys } from '../db/keys.ts';
import { getItem } from '../db/query.ts';
import { transactWrite } from '../db/transactions.ts';
import { fromItem } from '../db/items.ts';
import { config } from '../config.ts';
import { auditEntry } from '../audit/entries.ts';
import { badRequest } from '../errors.ts';
import type { TransactItem } from '../db/transactions.ts';
import type { Caller } from '../context/caller.ts';
import type { Severity } from '../input/severities.ts';
import { DAY_MS } from './clock.ts';
import type { SlaPolicyBody } from './inputs.ts';
import { slaRecheckPut } from './overdue.ts';

// The organization's SLA policy (docs/GOVERNANCE.md): days to fix a finding per severity, and how long a risk may be
// accepted. One item in the organization's partition; every change is one transaction with its audit entry.

export type SlaDays = Record<'High' | 'Medium' | 'Low', number>;

export interface SlaPolicy {
  days: SlaDays;
  /** Days a risk acceptance lasts when the triage names no expiry, and the longest one allowed (null: none). */
  riskAcceptance: { defaultDays: number | null; maxDays: number | null };
  /** Whether the organization set it (false: the defaults below apply). */
  configured: boolean;
  updatedAt: number;
  updatedBy: string;
}

/** Until an organization sets its own: common industry periods; acceptances never expire by default. */
export const DEFAULT_SLA_DAYS: SlaDays = { High: 30, Medium: 90, Low: 180 };

export async function getSlaPolicy(orgId: string): Promise<SlaPolicy> {
  const item = fromItem<Omit<SlaPolicy, 'configured'>>(await getItem(keys.slaPolicy(orgId)));
  if (!item)
    return {
      days: { ...DEFAULT_SLA_DAYS },
      riskAcceptance: { defaultDays: null, maxDays: null },
      configured: false,
      updatedAt: 0,
      updatedBy: '',
    };
  return { ...item, configured: true };
}

/** Days to fix a finding of this severity (undefined: Info findings have no due date). */
export const severityDays = (days: SlaDays, severity: Severity | string): number | undefined =>
  severity === 'High' || severity === 'Medium' || severity === 'Low' ? days[severity] : undefined;

/** hawk.SlaPolicy of a policy. */
export const toSlaPolicyView = (orgId: string, policy: SlaPolicy) => ({
  organizationId: orgId,
  days: policy.days,
  riskAcceptance: {
    defaultDays: policy.riskAcceptance.defaultDays ?? 0,
    maxDays: policy.riskAcceptance.maxDays ?? 0,
  },
  configured: policy.configured,
  updatedAt: policy.updatedAt ? new Date(policy.updatedAt).toISOString() : '',
  updatedBy: policy.updatedBy,
});

/** GET /api/v1/org/{orgId}/sla (getSlaPolicy). */
export async function getSlaPolicyView(caller: Caller, orgId: string) {
  await caller.authorize(orgId);
  return toSlaPolicyView(orgId, await getSlaPolicy(orgId));
}

const putSlaPolicy = (orgId: string, policy: Omit<SlaPolicy, 'configured'>): TransactItem => ({
  Put: { TableName: config.tableName, Item: { ...keys.slaPolicy(orgId), entity: 'slaPolicy', ...policy } },
});

/** PUT /api/v1/org/{orgId}/sla (updateSlaPolicy): the whole policy, with ORGANIZATION_POLICY_MODIFIED. */
export async function updateSlaPolicy(caller: Caller, orgId: string, body: SlaPolicyBody) {
  await caller.authorize(orgId);
  const now = Date.now();
  const policy = {
    days: { High: body.days.High, Medium: body.days.Medium, Low: body.days.Low },
    riskAcceptance: {
      defaultDays: body.riskAcceptance?.defaultDays ?? null,
      maxDays: body.riskAcceptance?.maxDays ?? null,
    },
    updatedAt: now,
    updatedBy: caller.userId,
  };
  await transactWrite([
    putSlaPolicy(orgId, policy),
    slaRecheckPut(orgId, now),
    await auditEntry(caller, orgId, 'ORGANIZATION_POLICY_MODIFIED', { policy: 'sla', ...policy }, now),
  ]);
  return toSlaPolicyView(orgId, { ...policy, configured: true });
}

/**
 * When a risk accepted at `now` expires (docs/GOVERNANCE.md, Risk acceptance that expires): the `requested` time
 * (ms), or the organization's default period, or its maximum; undefined: never. A requested time in the past or
 * beyond the maximum is refused (400), `field` naming it.
 */
export function acceptanceExpiry(
  policy: Pick<SlaPolicy, 'riskAcceptance'>,
  requested: number | undefined,
  now: number,
  field: string,
): number | undefined {
  const { defaultDays, maxDays } = policy.riskAcceptance;
  const latest = maxDays ? now + maxDays * DAY_MS : undefined;
  if (requested !== undefined) {
    if (requested <= now)
      throw badRequest(`${field}: must be in the future (${new Date(requested).toISOString()} is not)`);
    if (latest !== undefined && requested > latest)
      throw badRequest(
        `${field}: must be at most ${maxDays} days ahead (the organization's maximum risk acceptance), i.e. by ${new Date(latest).toISOString()}`,
      );
    return requested;
  }
  if (defaultDays) return now + defaultDays * DAY_MS;
  return latest;
}
