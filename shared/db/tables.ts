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
  /** Attributes copied into the index besides the keys; absent: every attribute (ALL). */
  include?: string[];
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

/**
 * What the compact list indexes copy: the fields environment and application lists filter and sort on, so a list
 * orders, filters, counts and skips to a deep page on entries of a few hundred bytes and reads whole items only for
 * the page it returns (docs/DATA-MODEL.md, Reads).
 */
export const LIST_ENTRY_ATTRIBUTES = [
  'applicationId',
  'environmentId',
  'name',
  'applicationType',
  'applicationStatus',
  'teamId',
  'environmentCount',
  'lastScanStatus',
  'lastScanTimestamp',
  'lastScanDuration',
  'lastScanTotalUntriaged',
  'lastScanHighUntriaged',
  'lastScanMediumUntriaged',
  'lastScanLowUntriaged',
];

/**
 * What the findings report's index of environments copies (gsi2r, the name order's twin): an environment's current
 * scans (its tool streams' heads with their counts) and its open issues, a third of the whole item, so the report's
 * walk of every environment reads a third of the units in fewer calls (docs/DATA-MODEL.md, Findings report).
 */
export const REPORT_ENTRY_ATTRIBUTES = [
  'applicationId',
  'environmentId',
  'organizationId',
  'name',
  'streams',
  'openIssuesHigh',
  'openIssuesMedium',
  'openIssuesLow',
  'openIssuesInfo',
] as const;

/** What the name trigram index copies: enough to confirm a match and find the environment or application. */
export const NAME_INDEX_ATTRIBUTES = ['applicationId', 'environmentId', 'name'];

/**
 * Overloaded GSIs: what each holds is documented in docs/DATA-MODEL.md and built in shared/db/keys.ts. gsi1-3 copy
 * whole items; gsi1c-3c are compact twins of them (same keys, LIST_ENTRY_ATTRIBUTES only, maintained by DynamoDB
 * with no write of ours), gsi4-6 are compact only; gsi2r is gsi2's twin for the findings report.
 */
export const mainTable: TableDefinition = {
  id: 'MainTable',
  partitionKey: S('pk'),
  sortKey: S('sk'),
  globalSecondaryIndexes: [
    { indexName: 'gsi1', partitionKey: S('gsi1pk'), sortKey: S('gsi1sk') },
    { indexName: 'gsi2', partitionKey: S('gsi2pk'), sortKey: S('gsi2sk') },
    { indexName: 'gsi3', partitionKey: S('gsi3pk'), sortKey: S('gsi3sk') },
    { indexName: 'gsi1c', partitionKey: S('gsi1pk'), sortKey: S('gsi1sk'), include: LIST_ENTRY_ATTRIBUTES },
    { indexName: 'gsi2c', partitionKey: S('gsi2pk'), sortKey: S('gsi2sk'), include: LIST_ENTRY_ATTRIBUTES },
    { indexName: 'gsi3c', partitionKey: S('gsi3pk'), sortKey: S('gsi3sk'), include: LIST_ENTRY_ATTRIBUTES },
    { indexName: 'gsi4', partitionKey: S('gsi4pk'), sortKey: S('gsi4sk'), include: LIST_ENTRY_ATTRIBUTES },
    { indexName: 'gsi5', partitionKey: S('gsi5pk'), sortKey: S('gsi5sk'), include: LIST_ENTRY_ATTRIBUTES },
    { indexName: 'gsi6', partitionKey: S('gsi6pk'), sortKey: S('gsi6sk'), include: LIST_ENTRY_ATTRIBUTES },
    // The trigram index of application and environment names (keys.ts nameIndex): the `query` filter.
    { indexName: 'gsi7', partitionKey: S('gsi7pk'), sortKey: S('gsi7sk'), include: NAME_INDEX_ATTRIBUTES },
    // The findings report's walk of every environment (gsi2's keys, REPORT_ENTRY_ATTRIBUTES).
    { indexName: 'gsi2r', partitionKey: S('gsi2pk'), sortKey: S('gsi2sk'), include: [...REPORT_ENTRY_ATTRIBUTES] },
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

/** The main table's index names (queries name one) and their key attributes. */
export type MainIndex =
  'gsi1' | 'gsi2' | 'gsi3' | 'gsi1c' | 'gsi2c' | 'gsi3c' | 'gsi4' | 'gsi5' | 'gsi6' | 'gsi7' | 'gsi2r';
export function indexKeyNames(index: MainIndex): { pk: string; sk: string } {
  const definition = mainTable.globalSecondaryIndexes.find((i) => i.indexName === index)!;
  return { pk: definition.partitionKey.name, sk: definition.sortKey.name };
}
