import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourcesUnder, whereIs } from './shared-sources.ts';

// Every derived write goes through the entity write path (docs/DATA-MODEL.md, Projections). A DynamoDB write sent
// outside it is one of the kinds listed in docs/DATA-MODEL.md, "Writes outside the entity path": this test names each
// file that sends one, with its kind and its count, so that a new one is classified (or moved into a projection) on
// purpose, and the count only goes down.

const WRITE_COMMANDS = new Set([
  'PutCommand',
  'UpdateCommand',
  'DeleteCommand',
  'BatchWriteCommand',
  'TransactWriteCommand',
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
]);

type Kind = 'write path' | 'protocol' | 'queue' | 'cursor' | 'rate limit' | 'operational' | 'cache' | 'migration';

/** Each file of shared/ that sends writes itself: its kind (docs/DATA-MODEL.md) and how many it sends. */
const ALLOWED: Record<string, { kind: Kind; writes: number }> = {
  // The write path itself: the one transaction sender and the batch writer.
  'shared/db/transactions.ts': { kind: 'write path', writes: 1 },
  'shared/db/query.ts': { kind: 'write path', writes: 1 },
  'shared/db/backfill.ts': { kind: 'migration', writes: 1 },
  // Multi-step protocols whose items are their own state, each step conditioned on the previous.
  'shared/results/finding-repository.ts': { kind: 'protocol', writes: 5 },
  'shared/results/scan-repository.ts': { kind: 'protocol', writes: 2 },
  'shared/scans/scan-digest.ts': { kind: 'protocol', writes: 2 },
  'shared/identity/sso-repository.ts': { kind: 'protocol', writes: 1 },
  'shared/delivery/tracker-jobs.ts': { kind: 'protocol', writes: 2 },
  // The in-table queue, the outbox relay and the delivery records they move.
  'shared/delivery/table-queue.ts': { kind: 'queue', writes: 5 },
  'shared/delivery/relay.ts': { kind: 'queue', writes: 3 },
  'shared/delivery/consumer.ts': { kind: 'queue', writes: 1 },
  'shared/delivery/manual-deliveries.ts': { kind: 'queue', writes: 1 },
  'shared/webhooks/deliveries.ts': { kind: 'queue', writes: 1 },
  'shared/schedules/clock.ts': { kind: 'queue', writes: 1 },
  // Cursors of the periodic checks (forward only).
  'shared/findings/risk-expiry.ts': { kind: 'cursor', writes: 1 },
  'shared/governance/overdue-check.ts': { kind: 'cursor', writes: 2 },
  'shared/http/rate-limit.ts': { kind: 'rate limit', writes: 2 },
  // Records without projections or audit, written by the system or an operator's command.
  'shared/perch/agents.ts': { kind: 'operational', writes: 3 },
  'shared/perch/repository.ts': { kind: 'operational', writes: 2 },
  'shared/perch/wake.ts': { kind: 'operational', writes: 2 },
  'shared/perch/verification.ts': { kind: 'operational', writes: 1 },
  'shared/identity/api-key-repository.ts': { kind: 'operational', writes: 1 },
  'shared/identity/revocations.ts': { kind: 'operational', writes: 1 },
  'shared/applications/scan-domains.ts': { kind: 'operational', writes: 1 },
  // Caches a read writes of what it read anyway, never an answer: a list's learned fences.
  'shared/applications/list-fences.ts': { kind: 'cache', writes: 1 },
  // Upgrades of older data (npm run migrate) and their table markers.
  'shared/applications/coverage-backfill.ts': { kind: 'migration', writes: 2 },
  'shared/applications/health-backfill.ts': { kind: 'migration', writes: 2 },
  'shared/hosted-assets/repository.ts': { kind: 'migration', writes: 1 },
  'shared/results/issue-summary.ts': { kind: 'migration', writes: 2 },
  'shared/results/riskiest.ts': { kind: 'migration', writes: 2 },
  'shared/scans/configuration-migration.ts': { kind: 'migration', writes: 1 },
  'shared/scans/issue-backfill.ts': { kind: 'migration', writes: 2 },
  'shared/scans/stream-backfill.ts': { kind: 'migration', writes: 2 },
};

/** `path:line Command` of each write command constructed in `source`. */
function writesIn(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && WRITE_COMMANDS.has(node.expression.text))
      found.push(`${whereIs(source, node)} ${node.expression.text}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The files of each kind as docs/DATA-MODEL.md's table lists them (`db/query.ts` there is shared/db/query.ts). */
function documentedKinds(): Record<string, string> {
  const doc = readFileSync(join(import.meta.dirname, '../../docs/DATA-MODEL.md'), 'utf8');
  const section = doc.split('### Writes outside the entity path')[1]!.split('\n## ')[0]!;
  const kinds: Record<string, string> = {};
  for (const row of section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| Kind'))) {
    const [kind, , files] = row.split(' | ').map((cell) => cell.replace(/^\| |\s*\|$/g, ''));
    for (const [, file] of files!.matchAll(/`([^`]+\.ts)`/g)) kinds[`shared/${file}`] = kind!;
  }
  return kinds;
}

describe('writes outside the entity path', () => {
  const writes = new Map(sourcesUnder('shared').map((source) => [source.fileName, writesIn(source)]));

  it('are sent only by the files docs/DATA-MODEL.md classifies, as many as listed', () => {
    const counted = Object.fromEntries(
      [...writes].filter(([, found]) => found.length).map(([file, found]) => [file, found.length]),
    );
    const allowed = Object.fromEntries(Object.entries(ALLOWED).map(([file, { writes: n }]) => [file, n]));
    expect(counted).toEqual(allowed);
  });

  it('are each of the kind docs/DATA-MODEL.md gives their file', () => {
    const listed = Object.fromEntries(Object.entries(ALLOWED).map(([file, { kind }]) => [file, kind]));
    expect(documentedKinds()).toEqual(listed);
  });

  it('finds the commands it looks for (the transaction sender is one)', () => {
    expect(writes.get('shared/db/transactions.ts')).toEqual([expect.stringMatching(/TransactWriteCommand$/)]);
  });
});
