import type { Context } from 'aws-lambda';
import { sweepStoppedWrites } from '../shared/results/finding-repository.ts';

// The scheduled sweep of stopped imports and completions (docs/DATA-MODEL.md, Findings, Unpublished writes), run by
// an EventBridge schedule: sweeps until the invocation nears its end (the next run takes the rest).
/** Time kept back for the sweep in flight to stop and the invocation to answer. */
const MARGIN_MS = 10_000;

export const handler = (_event: unknown, context: Context) =>
  sweepStoppedWrites(Date.now(), AbortSignal.timeout(Math.max(1_000, context.getRemainingTimeInMillis() - MARGIN_MS)));
