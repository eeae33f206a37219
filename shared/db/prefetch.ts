import { currentScope } from '../context/request-scope.ts';
import { consistentReadsRequested } from './consistent-reads.ts';

// Reads a request issues before its code asks for them, so that the reads it needs before its authorization
// decision go together in one round trip (shared/http/prefetch.ts decides which). The reading functions of
// query.ts take a prefetched result instead of reading again; each is taken once, so a later read of the same
// item (after a write, say) goes to the table. Nothing here decides anything: the request's code reads what it
// always read, in the same order, with the same checks; only when the bytes left DynamoDB changes.

type Item = Record<string, unknown>;

export const itemReadId = (key: Item) => `item ${String(key.pk)} ${String(key.sk)}`;
export const queryReadId = (query: object) => `query ${JSON.stringify(query, Object.keys(query).sort())}`;

/** Registers a read in flight under its id (within a request; outside one it is simply not kept). */
export function registerPrefetch(id: string, read: Promise<unknown>): void {
  const scope = currentScope();
  if (!scope) return;
  read.catch(() => undefined); // a failure is the taker's to see; one that nobody takes must not go unhandled
  (scope.prefetched ??= new Map()).set(id, read);
}

/** The prefetched read with this id, once, if there is one. */
export function takePrefetched<T>(id: string): Promise<T> | undefined {
  // A prefetched read was eventually consistent: code that asked for consistent reads reads again.
  if (consistentReadsRequested()) return undefined;
  const prefetched = currentScope()?.prefetched;
  const read = prefetched?.get(id);
  if (read) prefetched!.delete(id);
  return read as Promise<T> | undefined;
}

/**
 * The prefetched read with this id, left in place for the request's own read of it: the pipeline's look at an item
 * the operation may read as well (the caller's user item, for the names its audit entries record).
 */
export function peekPrefetched<T>(id: string): Promise<T> | undefined {
  return currentScope()?.prefetched?.get(id) as Promise<T> | undefined;
}

/** Settles when every registered read has (the pipeline waits for them before answering a refused request). */
export async function prefetchesSettled(): Promise<void> {
  await Promise.allSettled(currentScope()?.prefetched?.values() ?? []);
}
