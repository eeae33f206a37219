import { EventEmitter } from 'node:events';
import { postWakes } from './wake.ts';

// Wakes the waiting polls of an organization's agents when a run is queued or stopped. Within one process (the
// local server runs every operation in one) a waiting poll answers at once; across Lambda invocations there is no
// shared process: the agents with a wake channel open are told to poll (wake.ts), the others' polls see the queue's
// version move at their next poll, and a carrying agent's poll reads its run again every config.perchPollIntervalMs
// (docs/HOSTED-SCANS.md, Idle agents).
const signals = new EventEmitter();
signals.setMaxListeners(0);

/** Wakes the organization's agents; resolves once the wake channel's posts are made (bounded, never rejects). */
export async function wakeAgents(orgId: string): Promise<void> {
  signals.emit(orgId);
  await postWakes(orgId);
}

/**
 * Listens for the organization's wakes from now on. A poll arms it before it reads what it waits for, so that a wake
 * between that read and its wait is not lost (the wait would otherwise last its whole time). `wait(ms)` resolves true
 * at once for a wake since the last wait, else at the next wake, or false after `ms`; `close` stops listening.
 */
export function wakeListener(orgId: string) {
  let pending = false;
  let notify: (() => void) | undefined;
  const wake = () => (notify ? notify() : (pending = true));
  signals.on(orgId, wake);
  return {
    wait: (ms: number) =>
      new Promise<boolean>((resolve) => {
        if (pending) {
          pending = false;
          return resolve(true);
        }
        const timer = setTimeout(() => {
          notify = undefined;
          resolve(false);
        }, ms);
        notify = () => {
          clearTimeout(timer);
          notify = undefined;
          resolve(true);
        };
      }),
    close: () => signals.off(orgId, wake),
  };
}
