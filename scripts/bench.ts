// `npm run bench [-- section ...]`: starts the local stack in this process (DynamoDB Local in memory, s3rver,
// the local HTTP server, all on free ports), runs the benchmark sections of scripts/bench/ in one run and writes
// bench-results/latest.json and bench-results/latest.md. Naming sections reruns only those and keeps the other
// sections' figures from earlier runs (each section records when it ran). Progress goes to stderr.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configureEnvironment, ensureSigningKey, startEngines } from './local/stack.ts';
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
  const [dynamodbPort, s3Port, httpPort] = [await freePort(), await freePort(), await freePort()];
  progress('starting DynamoDB Local and s3rver ...');
  const engines = await startEngines({ dynamodbPort, s3Port });
  Object.assign(process.env, { RATE_LIMIT_PER_MINUTE: '100000000', LOGIN_RATE_LIMIT_PER_MINUTE: '100000000', LOGIN_SOURCE_RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'SILENT' });
  configureEnvironment({ dynamodbEndpoint: engines[0].url, s3Endpoint: engines[1].url, signingKeyFile: ensureSigningKey(dir) });
  const { provision } = await import('./local/provision.ts');
  await provision();
  const { startLocalServer } = await import('./local/server.ts');
  const server = await startLocalServer(httpPort);
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
    server.closeAllConnections();
    server.close();
    await Promise.all(engines.map((e) => e.stop()));
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
