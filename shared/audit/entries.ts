import { randomUUID } from 'node:crypto';
import { keys } from '../db/keys.ts';
import { putNewItem, type TransactItem } from '../db/transactions.ts';
import { fromItem } from '../db/items.ts';
import { getItem } from '../db/query.ts';
import type { ActivityType, AuditActor, AuditRecord } from './model.ts';

// docs/API.md, Activity log: every mutation writes its user-activity entry in the same DynamoDB transaction as the
// change, so there is never a change without its entry nor an entry without its change. Domain code builds its writes,
// adds `await auditEntry(...)` to them and commits them with `transactWrite`.

export async function auditEntry(
  actor: AuditActor,
  organizationId: string,
  userActivityType: ActivityType,
  payload: Record<string, unknown>,
  now = Date.now(),
): Promise<TransactItem> {
  return (await auditEntries(actor, organizationId, userActivityType, [payload], now))[0]!;
}

/** The name and e-mail of a user's item (identity's; read here by key so that audit stays below identity). */
const actorNames = async (userId: string) =>
  fromItem<{ fullName: string; email: string }>(await getItem(keys.user(userId)));

/** One entry per payload, of one actor and type (the actor's name is read once). */
export async function auditEntries(
  actor: AuditActor,
  organizationId: string,
  userActivityType: ActivityType,
  payloads: Record<string, unknown>[],
  now = Date.now(),
): Promise<TransactItem[]> {
  const user = actor.known ?? (await actorNames(actor.userId));
  return payloads.map((payload) => {
    const record: AuditRecord = {
      id: randomUUID(),
      userActivityType,
      organizationId,
      userId: actor.userId,
      userName: user?.fullName ?? actor.name ?? '',
      userEmail: user?.email ?? '',
      payload: JSON.stringify(payload),
      timestamp: now,
    };
    return putNewItem({ ...keys.auditEntry(organizationId, now, record.id), entity: 'audit', ...record });
  });
}
