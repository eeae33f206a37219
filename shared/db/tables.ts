// The table and bucket definitions, as plain data. The CDK stack (infra/stack.ts) and the local stack
// (scripts/local/provision.ts) both build from these, so there is one definition of the storage layout.
export interface KeyAttribute {
  name: string;
  type: 'S' | 'N';
}

export interface IndexDefinition {
  indexName: string;
  partitionKey: KeyAttribute;
  sortKey: KeyAttribute;
}

export interface TableDefinition {
  /** Logical id in the stack and the config key holding the physical name. */
  id: 'MainTable' | 'RateLimitTable';
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  globalSecondaryIndexes: IndexDefinition[];
  timeToLiveAttribute?: string;
}

const S = (name: string): KeyAttribute => ({ name, type: 'S' });

/** Overloaded GSIs: what each holds is documented in docs/DATA-MODEL.md and built in shared/db/keys.ts. */
export const mainTable: TableDefinition = {
  id: 'MainTable',
  partitionKey: S('pk'),
  sortKey: S('sk'),
  globalSecondaryIndexes: [
    { indexName: 'gsi1', partitionKey: S('gsi1pk'), sortKey: S('gsi1sk') },
    { indexName: 'gsi2', partitionKey: S('gsi2pk'), sortKey: S('gsi2sk') },
    { indexName: 'gsi3', partitionKey: S('gsi3pk'), sortKey: S('gsi3sk') },
  ],
  timeToLiveAttribute: 'expiresAt',
};

export const rateLimitTable: TableDefinition = {
  id: 'RateLimitTable',
  partitionKey: S('pk'),
  globalSecondaryIndexes: [],
  timeToLiveAttribute: 'expiresAt',
};

export const tables = [mainTable, rateLimitTable];
