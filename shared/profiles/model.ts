import { randomBytes } from 'node:crypto';

// Profile scans' model (docs/PROFILE-SCANS.md): the run's deadline, the time-ordered scan id, what checking a
// discovered description found. Records, types and pure rules only (docs/LAYOUT.md, Layers): it imports the kernel and
// other resources' model.ts, never a repository.

/** A profile run is short: its agent's prober keeps to a minute; the deadline leaves room for the queue. */
export const PROFILE_DEADLINE_SECONDS = 15 * 60;

/**
 * A time-ordered UUID (version 7: 48 bits of milliseconds, then random bits), so an application's results sort by
 * start time in their keys (keys.profileResult).
 */
export function timeOrderedUuid(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** What validating a discovered description found (docs/PROFILE-SCANS.md "The discovered description"). */
export interface DescriptionCheck {
  /** '' when no description was found; NOT_VALIDATED when the agent did not send its text. */
  discoveredOpenapiSpecStatus: '' | 'VALID' | 'INVALID' | 'NOT_VALIDATED';
  discoveredOpenapiSpecVersion: string;
  /** Why it is not valid (the hosted-description validator's message), or why it was not validated. */
  discoveredOpenapiSpecProblem: string;
}
