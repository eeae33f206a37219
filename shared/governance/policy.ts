import { keys } from '../db/keys.ts';
import { getItem } from '../db/query.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { fromItem } from '../db/items.ts';
import { config } from '../config.ts';
import { auditEntry } from '../audit/entries.ts';
import type { Caller } from '../context/caller.ts';
import type { SlaPolicyBody } from './inputs.ts';
import { slaRecheckPut } from './overdue.ts';
import { type SlaPolicy, DEFAULT_SLA_DAYS, toSlaPolicyView } from './model.ts';

// The organization's SLA policy (docs/GOVERNANCE.md): days to fix a finding per severity, and how long a risk may be
// accepted. One item in the organization's partition; every change is one transaction with its audit entry.

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
    auditEntry(caller, orgId, 'ORGANIZATION_POLICY_MODIFIED', { policy: 'sla', ...policy }, now),
  ]);
  return toSlaPolicyView(orgId, { ...policy, configured: true });
}
