import { type ListEntry } from '../applications/model.ts';

// The overview's model (docs/GOVERNANCE.md, The overview): how much each part reads and lists, the coverage facts.
// Records, types and pure rules only (docs/LAYOUT.md, Layers): it imports the kernel and other resources' model.ts,
// never a repository.

export const COVERAGE_LISTED = 20;

/** The coverage gaps' figures, and the environments listed (at most COVERAGE_LISTED, never scanned, then oldest). */
export interface CoverageFacts {
  /** False: the walk stopped at its bound, and the counts are lower bounds. */
  complete: boolean;
  neverScanned: number;
  notScannedIn7Days: number;
  notScannedIn30Days: number;
  listed: ListEntry[];
}

/**
 * Entries read at most for the riskiest applications: of their ranked entries (a member whose team rules hide
 * applications skips those), or, before npm run migrate gives an organization its entries, of the findings index.
 */
export const RISK_WALK_ENTRIES = 200;

export const RISKIEST_LISTED = 10;

/** Environments (most untriaged first) whose latest completed scan is searched for overdue findings. */
export const OVERDUE_ENVIRONMENTS = 10;

export const OVERDUE_LISTED = 20;

/** Entries of the scan-date index (never scanned, then oldest scan, first) read at most, for the coverage gaps. */
export const COVERAGE_WALK_ENTRIES = 500;

/**
 * How far the overview's walks read: the request's bounds (above), or none for a full recomputation (`recompute`:
 * the riskiest applications recomputed from the environments, riskiestRecomputed, not read from their entries).
 */
export interface OverviewWalks {
  riskEntries: number;
  coverageEntries: number;
  recompute?: boolean;
}
