import type { TableDefinition } from '../shared/db/tables.ts';

// Adding indexes to a deployed table: CloudFormation creates or deletes at most one global secondary index per
// table per stack update, so a stack that declares several new indexes cannot be deployed over an older one in one
// go. The context value MAIN_TABLE_INDEXES_CONTEXT (index names, comma-separated) makes the stack declare only those
// of the main table's indexes; `npm run upgrade` (scripts/upgrade.ts) deploys with it one added index at a time.

export const MAIN_TABLE_INDEXES_CONTEXT = 'mainTableIndexes';

/** The table as the stack declares it: every index, or only those the context value names. */
export function declaredTable(table: TableDefinition, contextValue: unknown): TableDefinition {
  if (contextValue === undefined || contextValue === null || contextValue === '') return table;
  const names = String(contextValue)
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const known = new Set(table.globalSecondaryIndexes.map((i) => i.indexName));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length)
    throw new Error(
      `context ${MAIN_TABLE_INDEXES_CONTEXT} names indexes the table does not define: ${unknown.join(', ')} (defined: ${[...known].join(', ')})`,
    );
  return { ...table, globalSecondaryIndexes: table.globalSecondaryIndexes.filter((i) => names.includes(i.indexName)) };
}

/**
 * The context values of the deploys that take a table from the indexes it has (`deployed`) to every index it
 * defines, one index added per deploy, in the definition's order; [] when nothing is missing. Indexes deployed but
 * no longer defined are refused: removing them is a decision this does not take.
 */
export function indexSteps(table: TableDefinition, deployed: string[]): string[] {
  const defined = table.globalSecondaryIndexes.map((i) => i.indexName);
  const extra = deployed.filter((n) => !defined.includes(n));
  if (extra.length)
    throw new Error(
      `the deployed table has indexes this version does not define: ${extra.join(', ')}; remove them from the stack by hand first (one per deploy)`,
    );
  const present = new Set(deployed);
  const steps: string[] = [];
  for (const name of defined.filter((n) => !present.has(n))) {
    present.add(name);
    steps.push(defined.filter((n) => present.has(n)).join(','));
  }
  return steps;
}
