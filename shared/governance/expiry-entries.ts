import { keys } from '../db/keys.ts';
import { config } from '../config.ts';
import type { TransactItem } from '../db/transactions.ts';

// The index of risk acceptances by expiry time (docs/GOVERNANCE.md, Risk acceptance that expires): an entry per
// accepted finding with an expiry, written and removed in the transaction of the triage that sets or ends it.

/** Who the audit log and the report name for an expiry: the service itself (the nil UUID, which no user has). */
export const EXPIRY_ACTOR = {
  userId: '00000000-0000-0000-0000-000000000000',
  name: 'hawk-api (risk acceptance expiry)',
};

export interface RiskExpiryEntry {
  organizationId: string;
  applicationId: string;
  environmentId: string;
  findingHash: string;
  expiresAt: number;
}

type EntryRef = Omit<RiskExpiryEntry, 'expiresAt'>;

const entryKey = (ref: EntryRef, expiresAt: number) =>
  keys.riskExpiry(expiresAt, ref.applicationId, ref.environmentId, ref.findingHash);

export const riskExpiryPut = (ref: EntryRef, expiresAt: number): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: {
      ...entryKey(ref, expiresAt),
      entity: 'riskExpiry',
      organizationId: ref.organizationId,
      applicationId: ref.applicationId,
      environmentId: ref.environmentId,
      findingHash: ref.findingHash,
      expiresAt,
    },
  },
});

/** `once`: the expiry itself consumes the entry, so that a second run (or a concurrent one) cannot fire it again. */
export const riskExpiryDelete = (ref: EntryRef, expiresAt: number, once = false): TransactItem => ({
  Delete: {
    TableName: config.tableName,
    Key: entryKey(ref, expiresAt),
    ...(once && { ConditionExpression: 'attribute_exists(pk)' }),
  },
});
