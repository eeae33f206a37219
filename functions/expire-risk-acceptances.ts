import { expireRiskAcceptances } from '../shared/findings/risk-expiry.ts';

// The expiry of risk acceptances on AWS (docs/GOVERNANCE.md), run every minute by an EventBridge schedule: one pass
// of the check; what it leaves (more than a run handles, a failure) the next minute's run takes.
export const handler = async (): Promise<{ expired: number }> => expireRiskAcceptances();
