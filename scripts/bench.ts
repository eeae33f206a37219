// `npm run bench [-- section ...]`: starts the local stack in this process (DynamoDB Local in memory, s3rver,
// the local HTTP server, all on free ports), runs the benchmark sections of scripts/bench/ in one run and records
// it (scripts/bench/record.ts): bench-results/runs/<date>-<commit>.json with the commit and the machine, and
// bench-results/latest.json/.md with every section's newest figures. Naming sections reruns only those; the other
// sections keep their figures from earlier runs; `million` runs only when named. Progress goes to stderr.
// `--rebuild-latest` only rewrites latest.json/.md and million.md from the run files (after a merge brought in runs
// from another branch, or a million run from another checkout).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from './local/stack.ts';
import { freePorts } from './local/ports.ts';
import type { BenchContext, BenchSection } from './bench/harness.ts';
import { machine, recordRun, runSource, writeLatest, type Run } from './bench/record.ts';

const SECTIONS = [
  'foundation',
  'lists',
  'scans',
  'hostile',
  'web',
  'findings',
  'import',
  'imports',
  'sarif',
  'issues',
  'hosted',
  'idle-agent',
  'webhooks',
  'webhook-fairness',
  'trends',
  'overview',
  'profiles',
  'retest',
  'million',
  'authorization',
];

async function main(): Promise<void> {
  if (process.argv.includes('--rebuild-latest')) {
    writeLatest();
    (await import('./bench/million.ts')).writeMillionTable();
    process.stderr.write(
      '[bench] rebuilt bench-results/latest.json, latest.md and million.md from bench-results/runs/\n',
    );
    return;
  }
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const unknown = wanted.filter((w) => !SECTIONS.includes(w));
  if (unknown.length) throw new Error(`unknown section(s) ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}`);
  // Sections that run only when named (they take long: `million` seeds up to 3 million items).
  const onRequest = ['million'];
  const selected = wanted.length ? wanted : SECTIONS.filter((s) => !onRequest.includes(s));

  const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);
  const run: Run = { date: new Date().toISOString(), source: runSource(), machine: machine(), sections: {} };
  if (run.source.dirty)
    progress(
      `uncommitted changes: this run is recorded as ${run.source.commit.slice(0, 10)}-dirty (commit first for reproducible figures)`,
    );
  const dir = mkdtempSync(join(tmpdir(), 'hawk-bench-'));
  const [dynamodbPort, httpPort] = await freePorts(2);
  progress('starting DynamoDB Local and s3rver ...');
  Object.assign(process.env, {
    RATE_LIMIT_PER_MINUTE: '100000000',
    LOGIN_RATE_LIMIT_PER_MINUTE: '100000000',
    LOGIN_SOURCE_RATE_LIMIT_PER_MINUTE: '100000000',
    LOG_LEVEL: 'SILENT',
  });
  // A million findings in DynamoDB Local's memory need a bigger heap than the default 512 MB.
  if (selected.includes('million')) process.env.DYNAMODB_LOCAL_MEMORY_MB ??= '8192';
  const stack = await startLocalStack({ dir, persistent: false, port: httpPort, dynamodbPort });
  const ctx: BenchContext = { baseUrl: `http://127.0.0.1:${httpPort}`, progress };

  try {
    for (const name of selected) {
      progress(`section ${name}`);
      const section = (await import(`./bench/${name}.ts`)).default as BenchSection;
      const ranAt = new Date().toISOString();
      run.sections[name] = { ranAt, ...(await section.run(ctx)) };
    }
  } finally {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const file = recordRun(run);
  progress(`wrote ${file}, bench-results/latest.json and bench-results/latest.md`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`bench failed: ${error instanceof Error ? error.stack : error}`);
    process.exit(1);
  },
);
