import { expireRiskAcceptances } from '../../shared/findings/risk-expiry.ts';
import { notifyOverdueFindings } from '../../shared/governance/overdue-check.ts';
import { RISK_EXPIRY_CHECK_MINUTES } from '../../shared/limits.ts';

// `npm start`'s schedule for the expiry of risk acceptances and the overdue check (docs/GOVERNANCE.md): the same
// checks the scheduled functions run on AWS, every RISK_EXPIRY_INTERVAL_MS (by default the AWS schedules' period),
// first at start, so an acceptance that expired, or a finding that came due, while the service was stopped is handled
// as soon as it starts again.

export function startLocalExpiryCheck(
  intervalMs = Number(process.env.RISK_EXPIRY_INTERVAL_MS ?? RISK_EXPIRY_CHECK_MINUTES * 60_000),
): {
  stop(): Promise<void>;
} {
  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      for (const [name, check] of [
        ['local risk expiry check', expireRiskAcceptances],
        ['local overdue check', notifyOverdueFindings],
      ] as const) {
        try {
          await check();
        } catch (error) {
          if (!stopped) console.error(JSON.stringify({ level: 'ERROR', message: name, error: String(error) }));
        }
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, intervalMs).unref();
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
