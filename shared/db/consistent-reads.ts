import { AsyncLocalStorage } from 'node:async_hooks';

// Reads that must see every write committed before they started: a projection rebuilt from its inputs and stored
// at the version it read (shared/overview/overdue-digests.ts). An eventually consistent read there could store a
// digest of data older than its version, which would stay until the next write to its inputs. Inside
// withConsistentReads, the client makes each read strongly consistent (shared/db/client.ts), and a query of an index,
// which cannot be, is refused (shared/db/query.ts) unless its caller reads each item again by key.

const storage = new AsyncLocalStorage<true>();

/** Runs `fn` with every DynamoDB read it makes strongly consistent (twice the read units of an eventual one). */
export function withConsistentReads<T>(fn: () => Promise<T>): Promise<T> {
  return storage.run(true, fn);
}

/** Whether the code running now asked for strongly consistent reads (withConsistentReads). */
export function consistentReadsRequested(): boolean {
  return storage.getStore() === true;
}

type ReadInput = {
  ConsistentRead?: boolean;
  IndexName?: string;
  RequestItems?: Record<string, { ConsistentRead?: boolean }>;
};

/** Makes one read command's input strongly consistent (a read of an index cannot be: query.ts refuses those). */
export function makeConsistent(commandName: string, input: ReadInput): void {
  if (input.IndexName) return;
  if (commandName === 'BatchGetItemCommand') {
    for (const table of Object.values(input.RequestItems ?? {})) table.ConsistentRead = true;
  } else if (['GetItemCommand', 'QueryCommand', 'ScanCommand'].includes(commandName)) input.ConsistentRead = true;
}
