import { EventEmitter } from 'node:events';

// Wakes the waiting polls of an organization's agents when a run is queued or stopped. Within one process (the
// local server runs every operation in one) a waiting poll answers at once; across Lambda invocations there is no
// shared process, and a poll looks at the queue again every config.perchPollIntervalMs instead.
const signals = new EventEmitter();
signals.setMaxListeners(0);

export const wakeAgents = (orgId: string) => signals.emit(orgId);

/** Resolves after `ms`, or earlier when the organization's agents are woken. */
export function waitForWake(orgId: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signals.off(orgId, done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signals.on(orgId, done);
  });
}
