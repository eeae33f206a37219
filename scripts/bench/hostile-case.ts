// One parsing case of the hostile benchmark, in a process of its own so that its peak RSS is its own:
// `tsx scripts/bench/hostile-case.ts <case>` prints {"ms", "peakRssMb", "outcome"}.
import { performance } from 'node:perf_hooks';
import { hostileBodies } from './hostile-bodies.ts';

const name = process.argv[2];
const body = hostileBodies[name];
if (!body) throw new Error(`unknown case ${name}`);
const input = body.make();
const baseline = process.resourceUsage().maxRSS;
const started = performance.now();
let outcome: string;
try {
  await body.parse(input);
  outcome = 'accepted';
} catch (error) {
  const status = (error as { statusCode?: number }).statusCode;
  outcome = `${status ?? 'error'}: ${(error as Error).message.slice(0, 120)}`;
}
const ms = Math.round(performance.now() - started);
const peak = process.resourceUsage().maxRSS; // kilobytes
process.stdout.write(
  `${JSON.stringify({ ms, peakRssMb: Math.round(peak / 1024), rssBeforeMb: Math.round(baseline / 1024), outcome })}\n`,
);
