import { entityKind, projectionOf, type Projected } from '../db/entity-write.ts';
import type { TriageRule } from '../results/model.ts';
import { environmentOverdue } from '../governance/entities.ts';
import * as riskExpiryEntries from '../governance/projections/risk-expiry-entries.ts';
import { environmentTrends } from '../trends/entities.ts';
import { environmentTrendsOf } from '../trends/writes.ts';
import type { FindingsTriage, FindingsTriageContext } from './findings-triage.ts';
import * as ruleOutbox from './projections/rule-outbox.ts';
import * as triageFigures from './projections/triage-figures.ts';
import * as triageVersion from './projections/triage-version.ts';
import * as untriagedStreams from './projections/untriaged-streams.ts';

// The findings' entity kinds with their projections (docs/DATA-MODEL.md, Findings and Projections;
// shared/db/entity-write.ts, EntityKind): a finding's triage rule, and a triage of an application's findings taken
// together. A triage (triage.ts) writes its rules and names its triage: what either derives is registered here.

/** What a rule's projections read beside it. */
export interface TriageRuleContext {
  /** Where the rule is and what its events name (or a rule that follows its issue: no events). */
  rule: ruleOutbox.RuleContext;
  /** Its finding, for its acceptance's expiry entry (`expiring`: the change is the expiry, which consumes it). */
  expiry: riskExpiryEntries.RiskExpiryContext;
  /**
   * A triage's own change of the rule (none for a rule a scan carries: its figures count the rule already, and its
   * publication is conditioned on the version it read): the scan whose figures count the finding, and its
   * environment (the triage version).
   */
  triage?: {
    figures: triageFigures.TriageFiguresContext;
    env: { applicationId: string; environmentId: string };
  };
}

/**
 * A finding's triage rule, written whole: its events and tracker jobs in the outbox, its acceptance's expiry entry,
 * and for a triage's change its move in its last scan's figures and the environment's triage version.
 */
export const triageRule = entityKind<TriageRule, TriageRuleContext>('triageRule', {
  outbox: (before, after, { rule }) => ruleOutbox.project(before, after, rule),
  riskExpiry: (before, after, { expiry }) => riskExpiryEntries.project(before, after, expiry),
  figures: (before, after, { triage }) => (triage ? triageFigures.project(before, after, triage.figures) : {}),
  version: (before, after, { triage }) => (triage ? triageVersion.project(before, after, triage.env) : {}),
});

/** The statuses of one environment's triaged findings in a triage (UNKNOWN: no rule). */
const statusesIn = (triage: FindingsTriage | undefined, environmentId: string, hashes: Iterable<string>) =>
  new Map([...hashes].map((hash) => [hash, triage?.rules.get(environmentId)?.get(hash)?.status ?? 'UNKNOWN']));

/** Each triaged environment's projection of another kind, as one (their counters netted with the write's). */
function perEnvironment(context: FindingsTriageContext, project: (environmentId: string) => Projected): Projected {
  const projected = [...context.environments.keys()].map(project);
  return { items: projected.flatMap((p) => p.items ?? []), counters: projected.flatMap((p) => p.counters ?? []) };
}

/**
 * A triage of an application's findings (findings-triage.ts): its environments' streams' untriaged figures and its
 * application's health; the trends (open findings set aside or made open again; trends/entities.ts); and the
 * overdue check's entry of each environment where a current finding set aside is open again (governance/entities.ts).
 */
export const findingsTriage = entityKind<FindingsTriage, FindingsTriageContext>('findingsTriage', {
  untriagedStreams: untriagedStreams.project,
  trends: (before, after, context) =>
    perEnvironment(context, (environmentId) => {
      const { env, findings, trends } = context.environments.get(environmentId)!;
      const rules = (triage: FindingsTriage | undefined) =>
        new Map([...findings.keys()].map((hash) => [hash, triage?.rules.get(environmentId)?.get(hash)]));
      return projectionOf(
        environmentTrends,
        environmentTrendsOf(trends, findings, rules(before), false),
        environmentTrendsOf(trends, findings, rules(after), true),
        { env, now: context.now },
      );
    }),
  overdue: (before, after, context) =>
    perEnvironment(context, (environmentId) => {
      const { env, findings } = context.environments.get(environmentId)!;
      return projectionOf(
        environmentOverdue,
        { findings, statuses: statusesIn(before, environmentId, findings.keys()) },
        { findings, statuses: statusesIn(after, environmentId, findings.keys()) },
        {
          env: { organizationId: env.organizationId, applicationId: env.applicationId, environmentId },
          now: context.now,
        },
      );
    }),
});
