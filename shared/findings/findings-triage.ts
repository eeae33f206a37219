import type { ApplicationRecord, EnvironmentRecord, EnvironmentStreams } from '../applications/model.ts';
import type { FindingRecord, TriageRule } from '../results/model.ts';
import type { TrendsRead } from '../trends/model.ts';

// A triage of an application's findings as one derived entity (docs/DATA-MODEL.md, Projections): not an item of its
// own (each finding's rule is, written as the triageRule kind), but what the rules of the triaged findings, taken
// together, move in their environments (the streams' untriaged figures, the trends, the overdue check's entry) and
// in their application (its health). Its projections are registered with the findingsTriage kind
// (shared/findings/entities.ts); this module holds its shape only.

/** The triaged findings' rules, by environment id then finding hash (undefined: none, UNKNOWN). */
export interface FindingsTriage {
  rules: ReadonlyMap<string, ReadonlyMap<string, TriageRule | undefined>>;
}

/** What a triage read of one environment, for its projections. */
export interface TriagedEnvironment {
  env: EnvironmentRecord;
  /** The triaged findings, by hash. */
  findings: ReadonlyMap<string, FindingRecord>;
  /** Its streams as read (scan-findings.ts currentStreams). */
  streams: EnvironmentStreams;
  /**
   * The scan whose figures count each triaged finding whose status the triage moves (scan-findings.ts countingScan),
   * by hash; absent: none does.
   */
  countingScans: ReadonlyMap<string, string>;
  /** What the trends count of it, read before its findings (trends/writes.ts trendsRead). */
  trends: TrendsRead;
}

export interface FindingsTriageContext {
  /** The triaged environments, by id. */
  environments: ReadonlyMap<string, TriagedEnvironment>;
  /**
   * Their application as read for this write (its health moves with the streams; its write is conditioned on it):
   * read when a triaged finding is counted by a scan (undefined: none is, so no figure moves).
   */
  app: ApplicationRecord | undefined;
  /** Its live environments, when its figures need them (application-repository.ts environmentsOfUncounted). */
  live: readonly EnvironmentRecord[] | undefined;
  now: number;
}
