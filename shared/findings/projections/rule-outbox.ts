import type { Projected } from '../../db/entity-write.ts';
import { type ApplicationContext, findingEvents, riskExpiryEvents } from '../../webhooks/model.ts';
import { outboxItem } from '../../db/outbox.ts';
import { trackerEvent } from '../../trackers/model.ts';
import type { FindingRecord, TriageRule } from '../../results/model.ts';

// A triage rule's events and tracker jobs in the outbox (docs/WEBHOOKS.md, Events; docs/TRACKERS.md, Promoting;
// docs/DATA-MODEL.md, Projections), committed with the rule's own write: findingStatusChanged when the status
// changes, riskAcceptanceExpired when the change is an acceptance's expiry (its history entry says so), and the
// promotion's ticket job when the finding is PROMOTED to a tracker.

/** Where the rule is. */
interface RuleRef {
  organizationId: string;
  applicationId: string;
  environmentId: string;
}

/**
 * Where the rule is and what its events name (the finding, its environment and application); or a rule that
 * follows its issue (docs/ISSUES.md, What an issue shares: another detection triaged with it, or a finding that
 * joins it and takes its triage), `sibling`: the issue's own change sends the events, once; this one none.
 */
export type RuleContext = RuleRef &
  (
    | {
        app: ApplicationContext;
        envName: string;
        finding: FindingRecord;
        /** The tracker a PROMOTED finding's ticket is wanted in, with the caller's own title and text. */
        promoteTo?: { trackerId: string; summary?: string; description?: string };
        sibling?: undefined;
      }
    | { sibling: true }
  );

/** The outbox items of the rule's change from `before` to `after` (none when it is removed). */
export function project(
  before: TriageRule | undefined,
  after: TriageRule | undefined,
  context: RuleContext,
): Projected {
  if (!after || before?.version === after.version || context.sibling) return {};
  const events = [...findingEvents(before, after, context)];
  if (before && after.history.at(-1)?.expired) events.push(...riskExpiryEvents(before, after, context));
  const items = events.map(outboxItem);
  const { promoteTo } = context;
  if (promoteTo && after.status === 'PROMOTED') {
    const job = {
      type: 'promote' as const,
      trackerId: promoteTo.trackerId,
      applicationId: context.applicationId,
      environmentId: context.environmentId,
      findingHash: after.findingHash,
      ...(promoteTo.summary && { summary: promoteTo.summary }),
      ...(promoteTo.description && { description: promoteTo.description }),
    };
    items.push(outboxItem(trackerEvent(context.organizationId, job, after.updatedAt, String(after.version))));
  }
  return { items };
}
