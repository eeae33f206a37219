import { keys } from '../db/keys.ts';
import { conditionFailed } from '../db/items.ts';
import { inParallel, untilAborted } from '../db/query.ts';
import { entityWrite, type EntityChange } from '../db/entity-write.ts';
import { transactWrite } from '../db/transactions.ts';
import type { TriageRule } from '../results/model.ts';
import type { RuleContext } from './projections/rule-outbox.ts';
import type { TriageFiguresContext } from './projections/triage-figures.ts';
import { triageRule, type TriageRuleContext } from './entities.ts';

// The one write of a finding's triage rule (docs/DATA-MODEL.md, Findings and Projections): the rule, written whole,
// with its projections. A triage writes it (findings/triage.ts), and so does a scan whose finding joins an issue
// another detection of which is triaged (docs/ISSUES.md, What an issue shares: carryIssueRules below).

/**
 * A finding's rule, written whole, with its projections: its events and tracker jobs in the outbox (none for a
 * rule that follows its issue: RuleContext `sibling`), its acceptance's expiry entry (an expiry, `expiring`,
 * consumes its own); for a triage's change (`triage`), its move in its last scan's figures (`figures`) and the
 * environment's triage version (none for a rule a scan carries: its figures count the rule already, and its
 * publication is conditioned on the version it read). It fails (at `ruleChanged`) when another triage changed the
 * rule since it was read (its version), or created it.
 */
export function triageRuleWrite(
  before: TriageRule | undefined,
  after: TriageRule,
  context: RuleContext,
  triage: { expiring: boolean; figures: TriageFiguresContext } | undefined,
): { change: EntityChange<TriageRule>; context: TriageRuleContext } {
  const env = { applicationId: context.applicationId, environmentId: context.environmentId };
  return {
    change: {
      key: keys.triageRule(context.applicationId, context.environmentId, after.findingHash),
      before,
      after,
      name: 'ruleChanged',
      replace: true,
      ...(before && { condition: { expression: 'version = :version', values: { ':version': before.version } } }),
    },
    context: {
      rule: context,
      expiry: {
        organizationId: context.organizationId,
        ...env,
        findingHash: after.findingHash,
        expiring: triage?.expiring ?? false,
      },
      ...(triage && { triage: { figures: triage.figures, env } }),
    },
  };
}

/**
 * Writes the triage an issue's earlier detection has for findings that join it without a rule of their own
 * (findings/scan-findings.ts carriedRules; docs/ISSUES.md, What an issue shares), each as a new rule through
 * triageRuleWrite: a rule that follows its issue (no events: the issue's own triage sent them), with its
 * acceptance's expiry entry; the scan's figures count it already. Only where the finding still has no rule (it
 * fails at `ruleChanged` otherwise, and is left): a triage since wins. Written before the scan's publication, like
 * the finding records; a copy kept after a failed publication is the issue's triage anyway.
 */
export async function carryIssueRules(
  env: { organizationId: string; applicationId: string; environmentId: string },
  rules: TriageRule[],
  signal?: AbortSignal,
): Promise<void> {
  const context: RuleContext = {
    organizationId: env.organizationId,
    applicationId: env.applicationId,
    environmentId: env.environmentId,
    sibling: true,
  };
  await inParallel(rules, 16, async (rule) => {
    const write = triageRuleWrite(undefined, rule, context, undefined);
    const items = entityWrite(triageRule, write.change, write.context);
    try {
      await untilAborted(signal, () => transactWrite(items));
    } catch (error) {
      if (!conditionFailed(error, 'ruleChanged')) throw error;
    }
  });
}
