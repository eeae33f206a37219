import { randomUUID } from 'node:crypto';
import { keys } from '../db/keys.ts';
import { putNewItem, type TransactItem } from '../db/transactions.ts';
import { logger } from '../context/logger.ts';
import type { ActivityType, AuditActor, AuditRecord } from './model.ts';

// docs/API.md, Activity log: every mutation writes its user-activity entry in the same DynamoDB transaction as the
// change, so there is never a change without its entry nor an entry without its change. Domain code builds its writes,
// adds `auditEntry(...)` to them and commits them with `transactWrite`. Building an entry reads nothing: the actor's
// name and e-mail come with the actor (AuditActor).

let lastDefaultTime = 0;

/**
 * An entry's time when its caller gives none: now, and later than the last such time of this process, so that entries
 * built one after another (an application's, then its first environment's) keep that order in the log, whose sort key
 * is the time and then a random id.
 */
const defaultTime = () => (lastDefaultTime = Math.max(Date.now(), lastDefaultTime + 1));

export function auditEntry(
  actor: AuditActor,
  organizationId: string,
  userActivityType: ActivityType,
  payload: Record<string, unknown>,
  now = defaultTime(),
): TransactItem {
  return auditEntries(actor, organizationId, userActivityType, [payload], now)[0]!;
}

/** One entry per payload, of one actor and type. */
export function auditEntries(
  actor: AuditActor,
  organizationId: string,
  userActivityType: ActivityType,
  payloads: Record<string, unknown>[],
  now = defaultTime(),
): TransactItem[] {
  // A request's Caller without names: its route declares no audit type (shared/routes.ts), so the pipeline did not
  // read them. The entry is still written, with empty names, and the log says which operation to fix.
  if (!actor.known && actor.name === undefined)
    logger.warn('audit entry without its actor name', { userId: actor.userId, userActivityType });
  return payloads.map((payload) => {
    const record: AuditRecord = {
      id: randomUUID(),
      userActivityType,
      organizationId,
      userId: actor.userId,
      userName: actor.known?.fullName ?? actor.name ?? '',
      userEmail: actor.known?.email ?? '',
      payload: JSON.stringify(payload),
      timestamp: now,
    };
    return putNewItem({ ...keys.auditEntry(organizationId, now, record.id), entity: 'audit', ...record });
  });
}
