import { entityKind, projectionOf, type Projected } from '../db/entity-write.ts';
import type {
  ApplicationRecord,
  EnvironmentRecord,
  EnvironmentStreams,
  OpenIssueCounts,
} from '../applications/model.ts';
import type { FindingRecord, TriageRule } from '../results/model.ts';
import { overdueDigestMove } from '../applications/model.ts';
import { environmentOverdue, riskAcceptance } from '../governance/entities.ts';
import type { RiskExpiryContext, SlaPolicy } from '../governance/model.ts';
import type { TrendsRead } from '../trends/model.ts';
import { environmentOpenIssues, environmentTrends } from '../trends/entities.ts';
import { environmentTrendsOf, retestFixTrends } from '../trends/writes.ts';
import type { FindingsTriage, FindingsTriageContext } from './findings-triage.ts';
import * as ruleOutbox from './projections/rule-outbox.ts';
import * as triageFigures from './projections/triage-figures.ts';
import type { UntriagedPlace } from './projections/triage-figures.ts';
import * as triageVersion from './projections/triage-version.ts';
import * as untriagedStreams from './projections/untriaged-streams.ts';

// The findings' entity kinds with their projections (docs/DATA-MODEL.md, Findings and Projections;
// shared/db/entity-write.ts, EntityKind): a finding's triage rule, a triage of an application's findings taken
// together, a retest's fix of a finding, and the findings' places in their streams' untriaged figures that the last
// two derive through. A triage (triage.ts) writes its rules and names its triage, a retest's outcome
// (retest-outcome.ts) writes the finding's retest fields and names its fix: what they derive is registered here.

/** What a rule's projections read beside it. */
export interface TriageRuleContext {
  /** Where the rule is and what its events name (or a rule that follows its issue: no events). */
  rule: ruleOutbox.RuleContext;
  /** Its finding, for its acceptance's expiry entry (`expiring`: the change is the expiry, which consumes it). */
  expiry: RiskExpiryContext;
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
 * for a triage's change its move in its last scan's figures and the environment's triage version, and the
 * environment's overdue digest version (any change of a rule).
 */
export const triageRule = entityKind<TriageRule, TriageRuleContext>('triageRule', {
  outbox: (before, after, { rule }) => ruleOutbox.project(before, after, rule),
  riskExpiry: (before, after, { expiry }) => projectionOf(riskAcceptance, before, after, expiry),
  figures: (before, after, { triage }) => (triage ? triageFigures.project(before, after, triage.figures) : {}),
  version: (before, after, { triage }) => (triage ? triageVersion.project(before, after, triage.env) : {}),
  overdueDigest: (_before, _after, { expiry }) => overdueDigestMove(expiry),
});

/**
 * The places of an application's findings in their environments' streams' untriaged figures (triage-figures.ts
 * UntriagedPlace): not an item of its own, derived into the environments' streams and the application's health. A
 * triage (findingsTriage) and a retest's fix (retestFix) derive through it.
 */
export const untriagedFigures = entityKind<untriagedStreams.UntriagedPlaces, untriagedStreams.UntriagedContext>(
  'untriagedFigures',
  { streams: untriagedStreams.project },
);

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
  untriagedStreams: (before, after, { environments, app, live, now }) => {
    const places = (triage: FindingsTriage | undefined): untriagedStreams.UntriagedPlaces => ({
      places: new Map(
        [...environments].map(([environmentId, { findings, countingScans }]) => [
          environmentId,
          new Map(
            [...findings].map(([hash, finding]): [string, UntriagedPlace] => [
              hash,
              {
                scanId: countingScans.get(hash),
                severity: finding.severity,
                lastScanUris: finding.lastScanUris,
                status: triage?.rules.get(environmentId)?.get(hash)?.status ?? 'UNKNOWN',
              },
            ]),
          ),
        ]),
      ),
    });
    const read = new Map([...environments].map(([id, { env, streams }]) => [id, { env, streams }]));
    return projectionOf(untriagedFigures, places(before), places(after), { environments: read, app, live, now });
  },
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

/** What a retest's fix of a finding reads beside it (retest-outcome.ts findingFixedByRetest). */
export interface RetestFixContext {
  env: EnvironmentRecord;
  /** The finding's rule (unchanged by the fix; none: UNKNOWN). */
  rule: TriageRule | undefined;
  /** The scan whose figures count the finding before its fix (scan-findings.ts countingScan; undefined: none). */
  countingScan: string | undefined;
  /**
   * What the environment's and application's writes read, when the fix moves the streams' untriaged figures or the
   * environment's open issues (undefined: neither moves): the streams as read, the open issues after the fix, the
   * application as read now and its live environments when its figures need them.
   */
  figures:
    | {
        streams: EnvironmentStreams;
        openIssues: OpenIssueCounts | undefined;
        app: ApplicationRecord;
        live: readonly EnvironmentRecord[] | undefined;
      }
    | undefined;
  /** What the trends count of the environment (trends/writes.ts trendsRead) and the SLA days in force in it. */
  trends: TrendsRead;
  days: SlaPolicy['days'];
  now: number;
}

/**
 * A finding's fix by a retest (docs/HOSTED-SCANS.md, Retests), from its record before to after (`fixedAt` set):
 * its place in the untriaged figures of its stream's latest scan (a fixed finding counts in none) with the
 * environment's open issues, and so its application's health; the trends' fix; its open issues' summary, stale.
 */
export const retestFix = entityKind<FindingRecord, RetestFixContext>('retestFix', {
  untriagedStreams: (before, after, { env, rule, countingScan, figures, now }) => {
    if (!figures) return {};
    const place = (finding: FindingRecord | undefined): untriagedStreams.UntriagedPlaces => ({
      places: new Map(
        finding
          ? [
              [
                env.environmentId,
                new Map<string, UntriagedPlace>([
                  [
                    finding.findingHash,
                    {
                      // A fixed finding counts in no scan's figures.
                      scanId: finding.fixedAt === undefined ? countingScan : undefined,
                      severity: finding.severity,
                      lastScanUris: finding.lastScanUris,
                      status: rule?.status ?? 'UNKNOWN',
                    },
                  ],
                ]),
              ],
            ]
          : [],
      ),
    });
    const { streams, openIssues, app, live } = figures;
    const environments = new Map([[env.environmentId, { env, streams, openIssues }]]);
    return projectionOf(untriagedFigures, place(before), place(after), { environments, app, live, now });
  },
  trends: (before, after, { env, rule, trends, days, now }) => {
    if (!before || !after) return {};
    const change = retestFixTrends(trends, before, after, rule);
    return projectionOf(environmentTrends, change.before, change.after, { env, now, policy: { days } });
  },
  openIssues: (before, after, { env }) => {
    const records = (finding: FindingRecord | undefined) =>
      finding && { findings: new Map([[finding.findingHash, finding]]), complete: false };
    return projectionOf(environmentOpenIssues, records(before), records(after), env);
  },
});
