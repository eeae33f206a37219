// `npm run bench [-- section ...]`: starts the local stack in this process (DynamoDB Local in memory, s3rver,
// the local HTTP server, all on free ports), runs the benchmark sections of scripts/bench/ in one run and writes
// bench-results/latest.json and bench-results/latest.md. Naming sections reruns only those and keeps the other
// sections' figures from earlier runs (each section records when it ran). Progress goes to stderr.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from './local/stack.ts';
import { freePort } from './local/ports.ts';
import type { BenchContext, BenchSection } from './bench/harness.ts';

const SECTIONS = ['foundation', 'lists', 'scans', 'hostile', 'web', 'findings'];

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const unknown = wanted.filter((w) => !SECTIONS.includes(w));
  if (unknown.length) throw new Error(`unknown section(s) ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}`);
  const selected = wanted.length ? wanted : SECTIONS;

  const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'hawk-bench-'));
  const [dynamodbPort, httpPort] = [await freePort(), await freePort()];
  progress('starting DynamoDB Local and s3rver ...');
  Object.assign(process.env, { RATE_LIMIT_PER_MINUTE: '100000000', LOGIN_RATE_LIMIT_PER_MINUTE: '100000000', LOGIN_SOURCE_RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'SILENT' });
  const stack = await startLocalStack({ dir, persistent: false, port: httpPort, dynamodbPort });
  const ctx: BenchContext = { baseUrl: `http://127.0.0.1:${httpPort}`, progress };

  const previous = wanted.length && existsSync('bench-results/latest.json') ? JSON.parse(readFileSync('bench-results/latest.json', 'utf8')) : {};
  const results: Record<string, unknown> = { ...previous, date: new Date().toISOString(), node: process.version, cpus: (await import('node:os')).cpus().length };
  try {
    for (const name of selected) {
      progress(`section ${name}`);
      const section = (await import(`./bench/${name}.ts`)).default as BenchSection;
      const ranAt = new Date().toISOString();
      results[name] = { ranAt, ...(await section.run(ctx)) };
    }
  } finally {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync('bench-results', { recursive: true });
  writeFileSync('bench-results/latest.json', JSON.stringify(results, null, 2) + '\n');
  writeFileSync('bench-results/latest.md', `# npm run bench, ${results.date}\n\n\`\`\`json\n${JSON.stringify(results, null, 2)}\n\`\`\`\n`);
  progress('wrote bench-results/latest.json and bench-results/latest.md');
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`bench failed: ${error instanceof Error ? error.stack : error}`);
    process.exit(1);
  },
);
