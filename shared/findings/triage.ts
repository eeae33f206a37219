import { auditEntry } from '../audit/entries.ts';
import { transactWriteRetryingConflicts } from '../db/query.ts';
import { cancellationReasons } from '../db/items.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { accessibleApplication } from '../applications/access.ts';
import {
  environmentUntriagedChange,
  getEnvironment,
  type EnvironmentRecord,
} from '../applications/environment-repository.ts';
import { getScan, scanTriageCountsMove } from '../scans/repository.ts';
import { isRiskSeverity } from '../scans/inputs.ts';
import { normalizedPath } from './finding-identity.ts';
import {
  MAX_RULE_HISTORY,
  findingsOfEnvironment,
  getFinding,
  getTriageRule,
  triageRuleWrite,
  triageVersionIncrement,
  type FindingRecord,
  type TriageRule,
} from './repository.ts';
import { isUntriaged, type TriageStatus } from './statuses.ts';
import { pluginCounts, type TriageStats } from './scan-findings.ts';
import { MAX_TRIAGE_ACTIONS, type AlertRuleInput, type BulkTriageBody, type UpsertAlertRulesBody } from './inputs.ts';
import { toAlertRule } from './views.ts';
import type { ApplicationRecord } from '../applications/application-repository.ts';
import { findingEvents, outboxItem, riskExpiryEvents } from '../webhooks/events.ts';
import type { Caller } from '../http/caller.ts';
import { acceptanceExpiry, getSlaPolicy } from '../governance/policy.ts';
import { riskExpiryDelete, riskExpiryPut } from '../governance/expiry-entries.ts';

// Triage (docs/DATA-MODEL.md, Findings): a finding's rule lives in its environment and applies to the finding in
// the environment's last scan (whose figures change with it, at once) and in every later scan (matched when it ends).

const MAX_ATTEMPTS = 5;

/** What a triage change does beyond setting the status. */
export interface TriageOptions {
  /** An explicit RISK_ACCEPTED action: when the acceptance expires (undefined: never). */
  accept?: { expiresAt: number | undefined };
  /**
   * The expiry of an acceptance (docs/GOVERNANCE.md): applies only while the rule is still RISK_ACCEPTED until
   * exactly this time (else 'stale', nothing written), and consumes the expiry entry, so it happens once.
   */
  expiring?: number;
  now?: number;
}

/**
 * Sets a finding's rule to `resolve(current status)` with `note`, in one transaction with: the environment's triage
 * version, the move of the finding's URIs between statuses in its last scan's figures and the environment's untriaged
 * counts (when that scan is still the environment's last and has ended), the risk acceptance's expiry entry (moved
 * with the rule), ALERT_RULE_TRIAGED and the events. Undefined when the environment never saw the finding.
 */
export async function triageFinding(
  actor: { userId: string; name?: string },
  app: ApplicationRecord,
  envRef: EnvironmentRecord,
  findingHash: string,
  resolve: (current: TriageStatus) => TriageStatus,
  note: string,
  options: TriageOptions = {},
): Promise<{ rule: TriageRule; finding: FindingRecord } | 'stale' | undefined> {
  for (let attempt = 1; ; attempt++) {
    const [finding, rule, env] = await Promise.all([
      getFinding(envRef, findingHash),
      getTriageRule(envRef, findingHash),
      getEnvironment(app.applicationId, envRef.environmentId),
    ]);
    if (!env) throw notFound(`environment ${envRef.environmentId} not found`);
    if (options.expiring !== undefined && !(rule?.status === 'RISK_ACCEPTED' && rule.expiresAt === options.expiring))
      return 'stale';
    if (!finding) return undefined;
    const from = rule?.status ?? 'UNKNOWN';
    const to = resolve(from);
    const now = options.now ?? Date.now();
    // An acceptance keeps its expiry through comments; a new acceptance sets its own; other statuses have none.
    const expiresAt = to !== 'RISK_ACCEPTED' ? undefined : options.accept ? options.accept.expiresAt : rule?.expiresAt;
    const expired = options.expiring !== undefined;
    const next: TriageRule = {
      findingHash,
      status: to,
      note,
      userId: actor.userId,
      updatedAt: now,
      version: (rule?.version ?? 0) + 1,
      ...(expiresAt !== undefined && { expiresAt }),
      history: [
        ...(rule?.history ?? []),
        {
          operation: rule ? ('UPDATE' as const) : ('CREATE' as const),
          oldResult: from,
          newResult: to,
          note,
          userId: actor.userId,
          timestamp: now,
          ...(expiresAt !== undefined && { expiresAt }),
          ...(expired && { expired: true as const }),
        },
      ].slice(-MAX_RULE_HISTORY),
    };
    const items = [triageRuleWrite(env, next, rule?.version), triageVersionIncrement(env)];
    const entry = {
      organizationId: app.organizationId,
      applicationId: app.applicationId,
      environmentId: env.environmentId,
      findingHash,
    };
    const hadExpiry = rule?.status === 'RISK_ACCEPTED' ? rule.expiresAt : undefined;
    if (hadExpiry !== undefined && hadExpiry !== expiresAt) items.push(riskExpiryDelete(entry, hadExpiry, expired));
    if (expiresAt !== undefined && expiresAt !== hadExpiry) items.push(riskExpiryPut(entry, expiresAt));
    if (from !== to && finding.lastScanId === env.lastScanId) {
      const scan = await getScan({
        applicationId: env.applicationId,
        environmentId: env.environmentId,
        scanId: finding.lastScanId,
      });
      if (scan && pluginCounts(scan.stats as TriageStats | undefined, finding.pluginId) && !scan.deleting) {
        const count = finding.lastScanUris;
        items.push(
          scanTriageCountsMove(scan, { pluginId: finding.pluginId, severity: finding.severity, from, to, count }),
        );
        const delta = (isUntriaged(to) ? count : 0) - (isUntriaged(from) ? count : 0);
        // Info findings are not in the untriaged figures (RISK_SEVERITIES).
        if (delta !== 0 && isRiskSeverity(finding.severity))
          items.push(...(await environmentUntriagedChange(env, scan.scanId, finding.severity, delta)));
      }
    }
    const payload = {
      applicationId: app.applicationId,
      appName: app.name,
      envId: env.environmentId,
      envName: env.name,
      findingHash,
      pluginId: finding.pluginId,
      requestMethod: finding.requestMethod,
      path: finding.path,
      oldStatus: from,
      newStatus: to,
      note,
      ...(expiresAt !== undefined && { expiresAt: new Date(expiresAt).toISOString() }),
      ...(expired && {
        riskAcceptanceExpired: true,
        acceptedBy: rule!.userId,
        acceptedAt: new Date(rule!.updatedAt).toISOString(),
        acceptedUntil: new Date(options.expiring!).toISOString(),
        acceptanceNote: rule!.note,
      }),
    };
    items.push(await auditEntry(actor, app.organizationId, 'ALERT_RULE_TRIAGED', payload, now));
    items.push(
      ...findingEvents(rule, next, {
        organizationId: app.organizationId,
        applicationId: app.applicationId,
        environmentId: env.environmentId,
        app,
        envName: env.name,
        finding,
      }).map(outboxItem),
    );
    if (expired)
      items.push(
        ...riskExpiryEvents(rule!, next, {
          organizationId: app.organizationId,
          applicationId: app.applicationId,
          environmentId: env.environmentId,
          app,
          envName: env.name,
          finding,
        }).map(outboxItem),
      );
    try {
      await transactWriteRetryingConflicts(items);
      return { rule: next, finding };
    } catch (error) {
      // The rule, the environment's last scan or that scan changed since they were read: read them again.
      if (!cancellationReasons(error)?.includes('ConditionalCheckFailed')) throw error;
      if (attempt >= MAX_ATTEMPTS) throw conflict(`finding ${findingHash} is being changed concurrently; retry`);
    }
  }
}

/** The application and environment a triage operation addresses (team rules as for the application). */
async function triageTarget(caller: Caller, appId: string, envId: string, orgId?: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  if (orgId && app.organizationId !== orgId) throw notFound(`application ${appId} not found`);
  const env = await getEnvironment(appId, envId);
  if (!env) throw notFound(`environment ${envId} not found`);
  return { app, env };
}

/** A comment keeps a triaged finding's status; on an untriaged one it shows as ADD_COMMENT (still untriaged). */
const statusAfter =
  (action: BulkTriageBody['actions'][number]['status']) =>
  (current: TriageStatus): TriageStatus =>
    action !== 'ADD_COMMENT' ? action : current === 'UNKNOWN' ? 'ADD_COMMENT' : current;

/**
 * POST /api/v1/org/{orgId}/app/{appId}/env/{envId}/findings/triage: the actions in request order, each atomic with
 * its audit entry; a finding the environment never saw fails alone (`success: false`).
 */
export async function bulkTriageFindings(
  caller: Caller,
  orgId: string,
  appId: string,
  envId: string,
  body: BulkTriageBody,
) {
  for (const [field, value, expected] of [
    ['organizationId', body.organizationId, orgId],
    ['applicationId', body.applicationId, appId],
    ['environmentId', body.environmentId, envId],
  ]) {
    if (value && value.toLowerCase() !== expected)
      throw badRequest(`body.${field}: must be the path's ${field} (${expected}) or absent`);
  }
  const { app, env } = await triageTarget(caller, appId, envId, orgId);
  // Every acceptance's expiry is checked against the organization's policy before anything is written.
  const now = Date.now();
  const policy = body.actions.some((a) => a.status === 'RISK_ACCEPTED') ? await getSlaPolicy(orgId) : undefined;
  const expiries = body.actions.map((action, i) =>
    action.status === 'RISK_ACCEPTED'
      ? { expiresAt: acceptanceExpiry(policy!, action.expiresAt, now, `actions[${i}].expiresAt`) }
      : undefined,
  );
  const results = [];
  for (const [i, action] of body.actions.entries()) {
    const applied = await triageFinding(caller, app, env, action.findingHash, statusAfter(action.status), action.note, {
      accept: expiries[i],
      now,
    });
    results.push(
      applied && applied !== 'stale'
        ? {
            findingHash: action.findingHash,
            success: true,
            status: applied.rule.status,
            note: applied.rule.note,
            updatedAt: new Date(applied.rule.updatedAt).toISOString(),
            expiresAt: applied.rule.expiresAt ? new Date(applied.rule.expiresAt).toISOString() : '',
          }
        : {
            findingHash: action.findingHash,
            success: false,
            error: `finding ${action.findingHash} not found in environment ${envId}`,
          },
    );
  }
  return { organizationId: orgId, applicationId: appId, environmentId: envId, results };
}

/** What a rule addresses: its plugin and method at its path (parameterized or literal), any parameter. */
const ruleTarget = (pluginId: string, requestMethod: string, path: string) => `${pluginId}\n${requestMethod}\n${path}`;

/**
 * The environment's findings by rule target: one read of the environment however many rules address it (reading
 * it once per rule made 50 rules on 4,000 findings take seconds).
 */
async function findingsByTarget(env: EnvironmentRecord): Promise<Map<string, FindingRecord[]>> {
  const byTarget = new Map<string, FindingRecord[]>();
  for await (const finding of findingsOfEnvironment(env)) {
    const target = ruleTarget(finding.pluginId!, finding.requestMethod!, finding.path!);
    const list = byTarget.get(target);
    if (list) list.push(finding as FindingRecord);
    else byTarget.set(target, [finding as FindingRecord]);
  }
  return byTarget;
}

/**
 * POST /api/v1/app/{appId}/alerts/rules/{integrationId} (January 2026): the same rules addressed by environment,
 * plugin, method and path. Every rule must match a finding the environment saw (404 otherwise, nothing changed);
 * then each matched finding's rule is set like a bulk-triage action. `integrationId` names the caller's
 * integration; rules are stored per finding whatever it is. Each addressed environment is read once, and every
 * check (the path's application, each rule's match, the findings' count) passes before anything is written.
 */
export async function upsertAlertRules(caller: Caller, appId: string, body: UpsertAlertRulesBody) {
  const inputs = [...(body.alertRuleWrapper?.alertRule ?? []), ...body.alertRules];
  for (const input of inputs) {
    if (input.alertCondition.applicationId && input.alertCondition.applicationId.toLowerCase() !== appId) {
      throw badRequest(`alertCondition.applicationId: must be the path's appId (${appId}) or absent`);
    }
  }
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  const environments = new Map<string, Promise<{ env: EnvironmentRecord; findings: Map<string, FindingRecord[]> }>>();
  const environment = (envId: string) => {
    let read = environments.get(envId);
    if (!read) {
      read = getEnvironment(appId, envId).then(async (env) => {
        if (!env) throw notFound(`environment ${envId} not found`);
        return { env, findings: await findingsByTarget(env) };
      });
      read.catch(() => undefined); // awaited below, in rule order
      environments.set(envId, read);
    }
    return read;
  };
  const planned: { env: EnvironmentRecord; finding: FindingRecord; input: AlertRuleInput }[] = [];
  for (const input of inputs) {
    const { env, findings } = await environment(input.alertCondition.environmentId.toLowerCase());
    const { pluginId, requestMethod } = input.alertCondition;
    const path = input.parameterizedPath || input.path;
    const matches = findings.get(ruleTarget(pluginId, requestMethod, normalizedPath(path))) ?? [];
    if (matches.length === 0)
      throw notFound(
        `no finding of plugin ${pluginId} at ${requestMethod} ${path} in environment ${env.environmentId}`,
      );
    planned.push(...matches.map((finding) => ({ env, finding, input })));
  }
  if (planned.length > MAX_TRIAGE_ACTIONS)
    throw badRequest(`the rules match ${planned.length} findings; at most ${MAX_TRIAGE_ACTIONS} per request`);
  // An acceptance here names no expiry: the organization's default (or maximum) applies.
  const now = Date.now();
  const accepting = planned.some((p) => p.input.result === 'RISK_ACCEPTED');
  const accept = accepting
    ? { expiresAt: acceptanceExpiry(await getSlaPolicy(app.organizationId), undefined, now, '') }
    : undefined;
  const alertRules = [];
  for (const { env, finding, input } of planned) {
    const applied = await triageFinding(caller, app, env, finding.findingHash, () => input.result, input.note, {
      accept: input.result === 'RISK_ACCEPTED' ? accept : undefined,
      now,
    });
    if (applied && applied !== 'stale') alertRules.push(toAlertRule(env, applied.finding, applied.rule));
  }
  return { alertRules, isSuccess: true, errorMessage: '' };
}
