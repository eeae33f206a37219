import { entityKind } from '../db/entity-write.ts';
import type { PerchRun } from './model.ts';
import * as runSlot from './projections/run-slot.ts';

// The hosted run's entity kind with its projections (docs/DATA-MODEL.md, Projections; shared/db/entity-write.ts,
// EntityKind): every write of a run's state (repository.ts runChange) applies each of them.

/** A hosted scan's run: its slot in the organization's limit of running scans. */
export const run = entityKind<PerchRun>('perchRun', { slot: runSlot.project });
