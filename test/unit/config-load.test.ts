import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// shared/config.ts reads the environment once, when it loads. The test run synthesizes the CDK app (infra/stack.ts,
// which loads the route table) in the process that then starts the local stack for the integration tests, and the
// local stack configures the environment only once started: a route table that loaded the configuration would leave
// DynamoDB Local's endpoint unset for the whole run (its tables created on AWS: ENOTFOUND). So the table's static
// imports and re-exports (type-only ones aside) must never reach it.

const root = join(import.meta.dirname, '../..');

/** The module a statement loads when the file loads: a value import or re-export (`export ... from`), not a type. */
function loadedModule(statement: ts.Statement): string | undefined {
  if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly)
    return (statement.moduleSpecifier as ts.StringLiteral).text;
  if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly)
    return (statement.moduleSpecifier as ts.StringLiteral).text;
  return undefined;
}

/** The files a file loads through its static value imports and re-exports, transitively. */
function staticClosure(start: string): Set<string> {
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length) {
    const file = queue.shift()!;
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    for (const statement of source.statements) {
      const specifier = loadedModule(statement);
      if (!specifier?.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier);
      if (existsSync(target) && !seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return seen;
}

describe('the configuration', () => {
  it('is not loaded by the route table nor the CDK stack', () => {
    for (const start of ['shared/routes.ts', 'infra/stack.ts']) {
      const loaded = [...staticClosure(join(root, start))].map((file) => relative(root, file));
      expect(loaded, start).not.toContain('shared/config.ts');
      expect(loaded.length, start).toBeGreaterThan(10);
    }
  });
});
