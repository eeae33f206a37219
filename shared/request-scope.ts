import { AsyncLocalStorage } from 'node:async_hooks';

// Per-request facts that code deep in the call stack needs without threading them through every signature:
// the request id (for logs) and a count of DynamoDB calls (logged per request, read by the benchmark).
export interface RequestScope {
  requestId: string;
  dynamodbCalls: number;
}

const storage = new AsyncLocalStorage<RequestScope>();

export function runInScope<T>(scope: RequestScope, fn: () => Promise<T>): Promise<T> {
  return storage.run(scope, fn);
}

export function currentScope(): RequestScope | undefined {
  return storage.getStore();
}
