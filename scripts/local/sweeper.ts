import { sweepStoppedWrites } from '../../shared/results/finding-repository.ts';
import { STOPPED_WRITES_SWEEP_MINUTES } from '../../shared/limits.ts';

// `npm start`'s scheduled sweep of what stopped imports and scan completions left (docs/DATA-MODEL.md, Findings,
// Unpublished writes): the function an EventBridge schedule runs on AWS, on a timer here.

/** How long one run may sweep, as the function's time on AWS leaves it. */
const RUN_MS = 50_000;

export function startLocalSweep(every = STOPPED_WRITES_SWEEP_MINUTES * 60_000): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const abort = new AbortController();
  const run = () => {
    running = sweepStoppedWrites(Date.now(), AbortSignal.any([abort.signal, AbortSignal.timeout(RUN_MS)])).catch(
      (error: unknown) =>
        console.error(
          JSON.stringify({ level: 'ERROR', message: 'local sweep of stopped writes', error: String(error) }),
        ),
    );
  };
  const timer = setInterval(() => void running.then(run), every);
  run();
  return {
    async stop() {
      clearInterval(timer);
      abort.abort();
      await running;
    },
  };
}
