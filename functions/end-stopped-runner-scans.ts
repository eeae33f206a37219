import { config } from '../shared/config.ts';
import { handleTaskStateChange } from '../shared/perch/runner-stops.ts';

// ECS's task state changes of the hosted runner's stopped tasks, delivered by an EventBridge rule (infra/stack.ts):
// the run a task carried ends in ERROR at once, with ECS's reason (docs/HOSTED-SCANS.md, "Where scans run"). An
// event it does not take is logged and answered, never thrown back for a retry.
export const handler = (event: unknown) => handleTaskStateChange(event, config.runnerTasks);
