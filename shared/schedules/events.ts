import { logger } from '../context/logger.ts';
import { UUID } from '../input/uuid.ts';
import { fireSchedule } from './fire.ts';
import { type FireOutcome } from './model.ts';

// EventBridge Scheduler's invocation of functions/run-scheduled-scan.ts: the input shared/schedules/clock.ts gave the
// schedule, with `dueAt` filled in by the scheduler (its scheduled time, ISO 8601).

const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

export async function runScheduledScan(event: unknown): Promise<{ outcome: FireOutcome | 'IGNORED' }> {
  const { organizationId, applicationId, scheduleId, dueAt } = (event ?? {}) as Record<string, unknown>;
  const due = typeof dueAt === 'string' ? Date.parse(dueAt) : NaN;
  if (!isUuid(organizationId) || !isUuid(applicationId) || !isUuid(scheduleId) || Number.isNaN(due)) {
    logger.warn('a scheduled scan event without its schedule or due time was ignored', { event });
    return { outcome: 'IGNORED' };
  }
  const outcome = await fireSchedule({ organizationId, applicationId, scheduleId }, due);
  logger.info('scheduled scan', { organizationId, applicationId, scheduleId, dueAt, outcome });
  return { outcome };
}
