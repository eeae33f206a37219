import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { config } from '../config.ts';
import type { TransactItem } from '../db/transactions.ts';
import type { Membership } from '../context/caller.ts';

// Revoked API keys, as each membership of their user records them (docs/IDENTITY.md "Revoking a key"): the
// per-request authorization read (the organization and the caller's membership) then refuses a revoked key's
// tokens at once, with no read more. An entry is `<revokedAtSeconds>.<keyId>`; once no token of the key can
// still be alive (a token lives tokenLifetimeSeconds, and refresh is refused after revocation) it is pruned.

const entry = (keyId: string, now: number) => `${Math.floor(now / 1000)}.${keyId}`;

/** Whether the membership says this key was revoked. */
export function revokedHere(membership: Membership, apiKeyId: string): boolean {
  if (!membership.revokedApiKeys) return false;
  for (const value of membership.revokedApiKeys) if (value.slice(value.indexOf('.') + 1) === apiKeyId) return true;
  return false;
}

/** The revocation's part of each membership, in the revoking transaction. */
export function revocationOn(membership: Membership, keyId: string, now: number): TransactItem {
  const { pk, sk } = keys.membership(membership.organizationId, membership.userId);
  return {
    Update: {
      TableName: config.tableName,
      Key: { pk, sk },
      UpdateExpression: 'ADD revokedApiKeys :entry',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':entry': new Set([entry(keyId, now)]) },
    },
  };
}

/**
 * Drops the entries no token can need any more (housekeeping after a revocation: removing set members is
 * idempotent and races with no other write, so it needs no transaction).
 */
export async function pruneRevocations(memberships: Membership[], now: number): Promise<void> {
  const oldest = now / 1000 - config.tokenLifetimeSeconds - 60;
  await Promise.all(
    memberships.map(async (membership) => {
      const stale = [...(membership.revokedApiKeys ?? [])].filter((value) => Number(value.split('.')[0]) < oldest);
      if (!stale.length) return;
      const { pk, sk } = keys.membership(membership.organizationId, membership.userId);
      await db
        .send(
          new UpdateCommand({
            TableName: config.tableName,
            Key: { pk, sk },
            UpdateExpression: 'DELETE revokedApiKeys :stale',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':stale': new Set(stale) },
          }),
        )
        .catch((error: Error) => {
          if (error.name !== 'ConditionalCheckFailedException') throw error;
        });
    }),
  );
}
