import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { queryItems } from '../db/query.ts';
import type { AuditRecord } from './model.ts';

/**
 * The organization's audit entries with start <= timestamp <= end (ms; 0: unbounded), oldest first unless
 * `forward` is false, read lazily: the time range is a sort-key range, so it reads nothing outside it.
 */
export async function* auditEntriesOfOrg(
  orgId: string,
  range: { start: number; end: number },
  forward: boolean,
): AsyncGenerator<AuditRecord> {
  const items = queryItems({
    partition: keys.auditEntriesOfOrg(orgId).pk,
    skFrom: range.start ? keys.auditTimeBound(range.start) : undefined,
    // Entries at `end` itself sort as "<end>#<id>", after the bare bound: end + 1 is the exclusive bound.
    skTo: range.end ? keys.auditTimeBound(range.end + 1) : undefined,
    forward,
  });
  for await (const item of items) yield fromItem<AuditRecord>(item)!;
}
