import { notifyOverdueFindings } from '../shared/governance/overdue-check.ts';

// The overdue check on AWS (docs/GOVERNANCE.md, Overdue findings), run every minute by an EventBridge schedule: one
// pass; what it leaves (more than a run handles, a failure) the next minute's run takes.
export const handler = async (): Promise<{ environments: number; fired: number }> => notifyOverdueFindings();
