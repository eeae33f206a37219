import { keys } from '../../db/keys.ts';
import { config } from '../../config.ts';
import type { Projected } from '../../db/entity-write.ts';
import { type FindingRecord, sharedIssuesOf } from '../../results/model.ts';

// An environment's issues with more than one detection (results/model.ts sharedIssuesOf; docs/ISSUES.md, What an
// issue shares), which a triage reads so as to read an issue's detections only when it may have another: a
// projection of every finding record of the environment, which a scan's publication holds (the
// `environmentPublication` kind, trends/entities.ts). A publication reads every record after the trends' total and is
// conditioned on that total's version, which every publication moves, and a finding record becomes visible to readers
// only through a publication (its pending write ends there): so the summary a publication commits counts every record
// readers see until the next one commits. Written whole by each publication, even unchanged: an environment whose
// records were published before it has none until its next publication (a triage then reads every issue's
// detections, as before).

/** Every finding record of the environment, by hash, before and after a publication. */
export function project(
  _before: ReadonlyMap<string, FindingRecord> | undefined,
  after: ReadonlyMap<string, FindingRecord> | undefined,
  env: { applicationId: string; environmentId: string },
): Projected {
  if (!after) return {};
  const item = { ...keys.sharedIssues(env.applicationId, env.environmentId), entity: 'sharedIssues' };
  return { items: [{ Put: { TableName: config.tableName, Item: { ...item, ...sharedIssuesOf(after.values()) } } }] };
}
