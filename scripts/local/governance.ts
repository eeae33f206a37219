import { expireRiskAcceptances } from '../../shared/governance/expiry.ts';
import { RISK_EXPIRY_CHECK_MINUTES } from '../../shared/limits.ts';

// `npm start`'s schedule for the expiry of risk acceptances (docs/GOVERNANCE.md): the same check the scheduled
// function runs on AWS, every RISK_EXPIRY_INTERVAL_MS (by default the AWS schedule's period), first at start, so an
// acceptance that expired while the service was stopped expires as soon as it starts again.

export function startLocalExpiryCheck(
  intervalMs = Number(process.env.RISK_EXPIRY_INTERVAL_MS ?? RISK_EXPIRY_CHECK_MINUTES * 60_000),
): {
  stop(): Promise<void>;
} {
  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      try {
        await expireRiskAcceptances();
      } catch (error) {
        if (!stopped)
          console.error(JSON.stringify({ level: 'ERROR', message: 'local risk expiry check', error: String(error) }));
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
