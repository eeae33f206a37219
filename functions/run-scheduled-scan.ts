import { runScheduledScan } from '../shared/schedules/events.ts';

// A scan schedule's due time on AWS (docs/HOSTED-SCANS.md, Schedules): EventBridge Scheduler invokes this with the
// schedule's entry and the time it was due (shared/schedules/clock.ts). An event it does not take is logged and
// answered; a failure of the service itself is thrown, and the scheduler invokes it again within the minute.
export const handler = (event: unknown) => runScheduledScan(event);
