import { EventEmitter } from 'node:events';

// Wakes the waiting polls of an organization's agents when a run is queued or stopped. Within one process (the
// local server runs every operation in one) a waiting poll answers at once; across Lambda invocations there is no
// shared process: an idle agent's poll sees the queue's version move at its next poll, and a carrying agent's poll
// reads its run again every config.perchPollIntervalMs (docs/HOSTED-SCANS.md, Idle agents).
const signals = new EventEmitter();
signals.setMaxListeners(0);

export const wakeAgents = (orgId: string) => signals.emit(orgId);

/** Resolves after `ms` (false), or earlier when the organization's agents are woken (true). */
export function waitForWake(orgId: string, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (woken: boolean) => {
      clearTimeout(timer);
      signals.off(orgId, wake);
      resolve(woken);
    };
    const wake = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    signals.on(orgId, wake);
  });
}
