import type { Projected } from '../../db/entity-write.ts';
import { type ApplicationContext, scanEvents } from '../../webhooks/model.ts';
import { outboxItem } from '../../db/outbox.ts';
import type { ScanRecord } from '../../results/model.ts';

// A scan's events in the outbox (docs/WEBHOOKS.md, Events; docs/DATA-MODEL.md, Projections): scanStarted when it
// comes into being, scanCompleted or scanErrored when it ends (an import does both at once), committed with the
// scan's own write. A delete records none.

/** The outbox items of the scan's change from `before` to `after` in its application (`app`: name and owner). */
export function project(
  before: ScanRecord | undefined,
  after: ScanRecord | undefined,
  app: ApplicationContext,
): Projected {
  if (!after || after.deleting) return {};
  return { items: scanEvents(before, after, app).map(outboxItem) };
}
