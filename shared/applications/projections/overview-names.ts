import { keys } from '../../db/keys.ts';
import type { Projected } from '../../db/entity-write.ts';
import type { ApplicationRecord } from '../model.ts';

// The version of the overview's copy of its applications' names (docs/DATA-MODEL.md, Projections;
// keys.overviewNames): the overview keeps the names of the applications it lists in one item of their organization,
// built at this version (overview/application-names.ts). A write that renames a live application or ends it (its
// delete starts, or its record goes) adds one to it, in the application's own transaction: one Update whatever the
// number of applications the transaction writes (a counter, netted), so a copy built before the write is not read.

export const OVERVIEW_NAMES_ENTITY = 'overviewNames';

/** Whether the write renames a live application or ends it. */
export const movesNames = (before: ApplicationRecord | undefined, after: ApplicationRecord | undefined) =>
  !!before && !before.deleting && (!after || !!after.deleting || after.name !== before.name);

/** One more version of the organization's names when the write renames or ends a live application. */
export function project(before: ApplicationRecord | undefined, after: ApplicationRecord | undefined): Projected {
  if (!movesNames(before, after)) return {};
  return {
    counters: [{ key: keys.overviewNames(before!.organizationId), entity: OVERVIEW_NAMES_ENTITY, add: { version: 1 } }],
  };
}
