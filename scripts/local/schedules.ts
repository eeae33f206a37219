import { config } from '../../shared/config.ts';
import { fireDueSchedules } from '../../shared/schedules/fire.ts';

// `npm start`'s embedded scheduler (docs/HOSTED-SCANS.md, Schedules): the local clock of scan schedules, where
// EventBridge Scheduler is the clock on AWS. Every SCHEDULE_TICK_MS (5 s) it acts on the schedules due by then, so a
// run starts within seconds of its time; one missed while the service was stopped is not made up.

export function startLocalScheduler(tickMs = config.scheduleTickMs): { stop(): Promise<void> } {
  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      try {
        await fireDueSchedules();
      } catch (error) {
        if (!stopped)
          console.error(JSON.stringify({ level: 'ERROR', message: 'local scheduler', error: String(error) }));
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, tickMs).unref();
      });
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}
