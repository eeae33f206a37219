import { performance } from 'node:perf_hooks';

// Shared pieces of `npm run bench`: timing statistics, progress output and the section interface.
export interface BenchContext {
  /** The local server's base URL (same handlers as Lambda, real DynamoDB Local and s3rver). */
  baseUrl: string;
  /** One line of progress on stderr (the results go to bench-results/). */
  progress(message: string): void;
}

export interface BenchSection {
  name: string;
  /** Returns the figures to record; keys become headings in bench-results/latest.md. */
  run(ctx: BenchContext): Promise<Record<string, unknown>>;
}

export interface Timing {
  n: number;
  p50Ms: number;
  p95Ms: number;
  meanMs: number;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** Runs `fn` `warmup` times unmeasured, then `n` times sequentially, and returns latency percentiles. */
export async function measure(fn: () => Promise<unknown>, n = 200, warmup = 20): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { n, p50Ms: round(at(0.5)), p95Ms: round(at(0.95)), meanMs: round(samples.reduce((a, b) => a + b, 0) / n) };
}

/** Runs `total` async tasks with at most `concurrency` in flight, reporting progress every `every` tasks. */
export async function inBatches(total: number, concurrency: number, task: (i: number) => Promise<unknown>, onProgress?: (done: number) => void, every = 500): Promise<void> {
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      await task(i);
      done++;
      if (onProgress && (done % every === 0 || done === total)) onProgress(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
}
