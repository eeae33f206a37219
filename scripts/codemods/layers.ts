// The folder layers of shared/: the kernel (db/, input/, errors.ts, config.ts, limits.ts,
// context/), the resources, and the composition (http/, routes.ts, the registries) on top. Moves files with `git mv`
// and rewrites every relative import and export that names a moved file or a moved export, derived from the tree it
// runs on plus the two tables below, so it can be run again after other branches are merged (it is idempotent).
// Run: npx tsx scripts/codemods/layers.ts   (then: npx tsc --noEmit -p . && git add -A && git commit)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '../..');

/** Whole files that change folder: [from, to], repository-relative. */
const FILE_MOVES: [string, string][] = [
  ['shared/http/request-scope.ts', 'shared/context/request-scope.ts'],
  ['shared/http/logger.ts', 'shared/context/logger.ts'],
  ['shared/identity/permissions.ts', 'shared/context/permissions.ts'],
  ['shared/identity/roles.ts', 'shared/context/roles.ts'],
  ['shared/db/index-keys.ts', 'shared/table-migration.ts'],
  ['shared/http/caller.ts', 'shared/identity/caller.ts'],
  ['shared/webhooks/receivers.ts', 'shared/outbound/receivers.ts'],
  ['shared/sso/sessions.ts', 'shared/identity/sso-sessions.ts'],
  ['shared/sso/repository.ts', 'shared/identity/sso-repository.ts'],
  ['shared/sso/roles.ts', 'shared/identity/sso-roles.ts'],
  ['shared/teams/repository.ts', 'shared/applications/team-repository.ts'],
  ['shared/code-repositories/store.ts', 'shared/applications/code-repository-store.ts'],
  ['shared/findings/repository.ts', 'shared/results/finding-repository.ts'],
  ['shared/findings/finding-identity.ts', 'shared/results/finding-identity.ts'],
  ['shared/findings/statuses.ts', 'shared/results/statuses.ts'],
  ['shared/scans/repository.ts', 'shared/results/scan-repository.ts'],
  ['shared/governance/expiry.ts', 'shared/findings/risk-expiry.ts'],
  ['shared/governance/scan-sla.ts', 'shared/scans/scan-sla.ts'],
  ['shared/webhooks/queue.ts', 'shared/delivery/queue.ts'],
  ['shared/webhooks/table-queue.ts', 'shared/delivery/table-queue.ts'],
  ['shared/webhooks/sqs-queue.ts', 'shared/delivery/sqs-queue.ts'],
  ['shared/webhooks/consumer.ts', 'shared/delivery/consumer.ts'],
  ['shared/webhooks/relay.ts', 'shared/delivery/relay.ts'],
  ['shared/webhooks/manual-deliveries.ts', 'shared/delivery/manual-deliveries.ts'],
  ['shared/trackers/jobs.ts', 'shared/delivery/tracker-jobs.ts'],
  ['shared/applications/environment-default-config.ts', 'shared/scans/environment-default-config.ts'],
  ['shared/perch/allowlist.ts', 'shared/applications/scan-domains.ts'],
  ['shared/input/schedules.ts', 'shared/schedules/inputs.ts'],
];

/**
 * Exports whose declaration moved to another module (moved by hand, see the commit that adds `to`): their importers
 * import them from `to`. Applied only once `to` declares the export, so a run before the hand edit changes nothing.
 */
const EXPORT_MOVES: { from: string; to: string; names: string[] }[] = [
  {
    from: 'shared/http/caller.ts',
    to: 'shared/context/caller.ts',
    names: ['Caller', 'OrganizationAccess', 'scopeAllows', 'narrowed'],
  },
  { from: 'shared/auth/tokens.ts', to: 'shared/context/caller.ts', names: ['KeyScope'] },
  { from: 'shared/identity/membership-repository.ts', to: 'shared/context/caller.ts', names: ['Membership'] },
  { from: 'shared/http/prefetch.ts', to: 'shared/db/query.ts', names: ['Reads', 'PrefetchInput', 'OperationReads'] },
  {
    from: 'shared/http/prefetch.ts',
    to: 'shared/identity/membership-repository.ts',
    names: ['organizationAccessReads'],
  },
  { from: 'shared/applications/inputs.ts', to: 'shared/audit/inputs.ts', names: ['auditListQuery', 'AuditListQuery'] },
  {
    from: 'shared/webhooks/repository.ts',
    to: 'shared/outbound/settings.ts',
    names: ['IntegrationSettings', 'getIntegrationSettings', 'putIntegrationSettings'],
  },
  {
    from: 'shared/scans/inputs.ts',
    to: 'shared/input/severities.ts',
    names: ['SEVERITIES', 'Severity', 'RISK_SEVERITIES', 'RiskSeverity', 'isRiskSeverity'],
  },
  { from: 'shared/http/types.ts', to: 'shared/context/responses.ts', names: ['RawResponse'] },
  { from: 'shared/http/middlewares.ts', to: 'shared/context/responses.ts', names: ['jsonResponse'] },
  {
    from: 'shared/code-repositories/code-repositories.ts',
    to: 'shared/applications/code-repository-views.ts',
    names: ['repositoryView', 'visibleApplications'],
  },
  { from: 'shared/scans/scans.ts', to: 'shared/results/scan-repository.ts', names: ['absoluteUrl'] },
  { from: 'shared/applications/applications.ts', to: 'shared/deletions/deletions.ts', names: ['deleteApplication'] },
  { from: 'shared/applications/environments.ts', to: 'shared/deletions/deletions.ts', names: ['deleteEnvironment'] },
  {
    from: 'shared/applications/environments.ts',
    to: 'shared/scans/environment-list-v1.ts',
    names: ['listEnvironmentsV1'],
  },
  {
    from: 'shared/results/scan-repository.ts',
    to: 'shared/results/model.ts',
    names: [
      'ScanStatus',
      'ScanStats',
      'ScanRecord',
      'AlertRecord',
      'CountedUri',
      'AlertUriRecord',
      'AlertMessageRecord',
      'ScanLocation',
    ],
  },
  {
    from: 'shared/results/finding-repository.ts',
    to: 'shared/results/model.ts',
    names: ['FindingRecord', 'PendingFindings', 'RuleHistoryEntry', 'TriageRule', 'FindingsBefore'],
  },
  {
    from: 'shared/perch/repository.ts',
    to: 'shared/perch/model.ts',
    names: ['RunState', 'RunError', 'PerchRun', 'PerchDevice', 'DeviceDriver'],
  },
  {
    from: 'shared/trackers/repository.ts',
    to: 'shared/trackers/model.ts',
    names: ['TrackerRecord', 'TicketState', 'TicketRecord'],
  },
  {
    from: 'shared/webhooks/repository.ts',
    to: 'shared/webhooks/model.ts',
    names: ['WebhookRecord'],
  },
  { from: 'shared/audit/activity-types.ts', to: 'shared/audit/model.ts', names: ['ACTIVITY_TYPES', 'ActivityType'] },
  { from: 'shared/audit/entries.ts', to: 'shared/audit/model.ts', names: ['AuditRecord', 'AuditActor'] },
  { from: 'shared/audit/entries.ts', to: 'shared/db/transactions.ts', names: ['transactWrite', 'TransactItem'] },
  {
    from: 'shared/applications/projections/environment-list-entries.ts',
    to: 'shared/applications/model.ts',
    names: ['NO_SCAN_STATUS'],
  },
  {
    from: 'shared/applications/projections/environment-coverage.ts',
    to: 'shared/applications/model.ts',
    names: ['HOUR'],
  },
  {
    from: 'shared/applications/code-repository-store.ts',
    to: 'shared/applications/model.ts',
    names: ['CodeRepositoryRecord', 'codeRepositoryId'],
  },
  { from: 'shared/applications/team-repository.ts', to: 'shared/applications/model.ts', names: ['TeamRecord'] },
  {
    from: 'shared/applications/list-entries.ts',
    to: 'shared/applications/model.ts',
    names: [
      'ListEntry',
      'ListScope',
      'Bucket',
      'EnvironmentListOrder',
      'ApplicationListOrder',
      'NameMatch',
      'visibleTeams',
    ],
  },
  { from: 'shared/applications/access.ts', to: 'shared/applications/model.ts', names: ['canSeeTeamResource'] },
  {
    from: 'shared/applications/environment-creation.ts',
    to: 'shared/applications/model.ts',
    names: ['newEnvironment'],
  },
  {
    from: 'shared/applications/code-repository-views.ts',
    to: 'shared/applications/model.ts',
    names: ['appInfo', 'repositoryView'],
  },
  {
    from: 'shared/applications/list-plan.ts',
    to: 'shared/applications/model.ts',
    names: ['DEPRECATED_ENVIRONMENT_LIST_PLAN'],
  },
  {
    from: 'shared/applications/inputs.ts',
    to: 'shared/applications/model.ts',
    names: ['APPLICATION_TYPES', 'applicationNameSchema', 'environmentNameSchema', 'applicationTypesParam'],
  },
  {
    from: 'shared/applications/inputs.ts',
    to: 'shared/scans/inputs.ts',
    names: [
      'createEnvironmentDefaultConfigBody',
      'CreateEnvironmentDefaultConfig',
      'listEnvironmentsV1Query',
      'ListEnvironmentsV1Query',
    ],
  },
  {
    from: 'shared/applications/application-repository.ts',
    to: 'shared/applications/model.ts',
    names: ['ApplicationRecord', 'ApplicationStatus', 'ApplicationType'],
  },
  {
    from: 'shared/applications/environment-repository.ts',
    to: 'shared/applications/model.ts',
    names: ['EnvironmentRecord', 'EnvironmentStreams', 'LastScan', 'LastScanStatus', 'StreamHead', 'NO_SCAN_STATUS'],
  },
  {
    from: 'shared/results/statuses.ts',
    to: 'shared/results/model.ts',
    names: [
      'TRIAGE_STATUSES',
      'TriageStatus',
      'isUntriaged',
      'reportStatus',
      'CountsBySeverity',
      'StatusCounts',
      'TriageStats',
    ],
  },
  {
    from: 'shared/results/finding-identity.ts',
    to: 'shared/results/model.ts',
    names: [
      'FindingIdentity',
      'ID_SEGMENT',
      'normalizedPath',
      'findingHash',
      'IssueIdentity',
      'weaknessOf',
      'PathTemplates',
      'pathTemplates',
      'issuePath',
      'issueId',
      'issueIdOfUri',
      'issueRepresentatives',
    ],
  },
  {
    from: 'shared/results/streams.ts',
    to: 'shared/results/model.ts',
    names: ['HAWKSCAN_STREAM', 'streamOfTool', 'streamOfLabels', 'streamOf', 'streamHeadedBy'],
  },
  {
    from: 'shared/results/issue-summary.ts',
    to: 'shared/results/model.ts',
    names: ['OpenIssues', 'TOOLS_KEPT', 'issueToolsOf'],
  },
  {
    from: 'shared/results/scan-repository.ts',
    to: 'shared/results/model.ts',
    names: ['committedRanges', 'sortedRanges', 'isCommitted', 'committedNumbers', 'absoluteUrl', 'reportsFull'],
  },
  {
    from: 'shared/results/finding-repository.ts',
    to: 'shared/results/model.ts',
    names: ['MAX_RULE_HISTORY', 'resolvedFinding'],
  },
  {
    from: 'shared/identity/sso-repository.ts',
    to: 'shared/identity/model.ts',
    names: ['SsoProviderRecord', 'SsoSignInRecord', 'SsoSessionRecord'],
  },
  {
    from: 'shared/identity/sso-roles.ts',
    to: 'shared/identity/model.ts',
    names: ['SSO_ROLES', 'SsoRole', 'roleOfGroups', 'teamsOfGroups'],
  },
  {
    from: 'shared/identity/sso-sessions.ts',
    to: 'shared/identity/model.ts',
    names: ['SESSION_PREFIX', 'SSO_SESSION_SECONDS', 'isSsoSessionId'],
  },
  { from: 'shared/identity/member-management.ts', to: 'shared/identity/model.ts', names: ['owningRole'] },
  {
    from: 'shared/hosted-assets/organization-assets.ts',
    to: 'shared/hosted-assets/model.ts',
    names: ['OrganizationAssetRecord'],
  },
  { from: 'shared/hosted-assets/inputs.ts', to: 'shared/hosted-assets/model.ts', names: ['configNameSchema'] },
  {
    from: 'shared/hosted-assets/organization-assets.ts',
    to: 'shared/storage/objects.ts',
    names: ['OrganizationAssetKind'],
  },
  { from: 'shared/webhooks/event-types.ts', to: 'shared/webhooks/model.ts', names: ['WEBHOOK_EVENTS', 'WebhookEvent'] },
  { from: 'shared/webhooks/events.ts', to: 'shared/webhooks/model.ts', names: ['WEBHOOK_EVENTS', 'WebhookEvent'] },
  { from: 'shared/webhooks/inputs.ts', to: 'shared/webhooks/model.ts', names: ['WEBHOOK_FORMATS', 'WebhookFormat'] },
  {
    from: 'shared/webhooks/events.ts',
    to: 'shared/webhooks/model.ts',
    names: ['OutboxEvent', 'derivedId', 'ApplicationContext', 'overdueEventId'],
  },
  {
    from: 'shared/webhooks/deliveries.ts',
    to: 'shared/webhooks/model.ts',
    names: [
      'RESPONSE_EXCERPT_CHARS',
      'DeliveryStatus',
      'DeliveryAttempt',
      'DeliveryRecord',
      'DeliveryRef',
      'DELIVERIES_LISTED',
      'toDelivery',
    ],
  },
  {
    from: 'shared/governance/clock.ts',
    to: 'shared/governance/model.ts',
    names: ['DAY_MS', 'isPausing', 'SlaClock', 'slaClock'],
  },
  {
    from: 'shared/governance/policy.ts',
    to: 'shared/governance/model.ts',
    names: ['SlaDays', 'SlaPolicy', 'DEFAULT_SLA_DAYS', 'severityDays', 'toSlaPolicyView', 'acceptanceExpiry'],
  },
  {
    from: 'shared/governance/expiry-entries.ts',
    to: 'shared/governance/model.ts',
    names: ['EXPIRY_ACTOR', 'RiskExpiryEntry'],
  },
  {
    from: 'shared/trends/figures.ts',
    to: 'shared/trends/model.ts',
    names: [
      'DAY',
      'dayOf',
      'TREND_SEVERITIES',
      'COVERAGE_WINDOWS',
      'TrendField',
      'TREND_FIELDS',
      'Figures',
      'TrendTotal',
      'TrendChange',
      'isOpenStatus',
      'isCurrent',
      'severityOf',
      'coverageScan',
      'coverageRemoval',
    ],
  },
  {
    from: 'shared/trackers/inputs.ts',
    to: 'shared/trackers/model.ts',
    names: ['TRACKER_KINDS', 'TrackerKind', 'AUTO_PROMOTE_SEVERITIES', 'AutoPromoteSeverity'],
  },
  {
    from: 'shared/trackers/events.ts',
    to: 'shared/trackers/model.ts',
    names: ['TrackerJob', 'TrackerOutboxEvent', 'TrackerMessage', 'trackerMessage'],
  },
  {
    from: 'shared/trackers/clients.ts',
    to: 'shared/trackers/model.ts',
    names: ['RemoteIssue', 'TextPiece', 'NewIssue', 'TrackerClient', 'hashLabel'],
  },
  { from: 'shared/trackers/http.ts', to: 'shared/trackers/model.ts', names: ['TrackerRetry', 'TrackerFailure'] },
  { from: 'shared/trackers/views.ts', to: 'shared/trackers/model.ts', names: ['ticketState', 'ticketView'] },
  { from: 'shared/scans/scan-sla.ts', to: 'shared/scans/model.ts', names: ['OverdueFinding', 'mostOverdueFirst'] },
  { from: 'shared/perch/commands.ts', to: 'shared/perch/model.ts', names: ['StartedBy'] },
  { from: 'shared/perch/commands.ts', to: 'shared/perch/model.ts', names: ['RunError'] },
  {
    from: 'shared/scan-configurations/yaml.ts',
    to: 'shared/scan-configurations/model.ts',
    names: ['ParsedConfiguration', 'parseConfiguration'],
  },
  { from: 'shared/findings/scan-findings.ts', to: 'shared/results/model.ts', names: ['StatusCounts', 'TriageStats'] },
  { from: 'shared/sso/link-tickets.ts', to: 'shared/sso/model.ts', names: ['LINK_TICKET_SECONDS', 'LinkTicket'] },
  { from: 'shared/sso/provisioning.ts', to: 'shared/sso/model.ts', names: ['SignedInIdentity', 'LinkRequired'] },
  {
    from: 'shared/code-repositories/code-repositories.ts',
    to: 'shared/code-repositories/model.ts',
    names: ['MAX_APPS_FOR_REPOS'],
  },
  {
    from: 'shared/policies/catalogue.ts',
    to: 'shared/policies/model.ts',
    names: ['ScanRule', 'PluginSetting', 'BuiltInPolicy'],
  },
  { from: 'shared/policies/repository.ts', to: 'shared/policies/model.ts', names: ['ApplicationPolicyRecord'] },
  { from: 'shared/findings/report.ts', to: 'shared/findings/model.ts', names: ['OpenIssuesAt'] },
  { from: 'shared/findings/triage.ts', to: 'shared/findings/model.ts', names: ['TriageOptions', 'PromoteTo'] },
  {
    from: 'shared/delivery/queue.ts',
    to: 'shared/delivery/model.ts',
    names: ['DeliveryMessage', 'QueueMessage', 'QueueRecord', 'DeliverySender', 'DeliveryRetrier', 'DeliveryQueue'],
  },
  { from: 'shared/delivery/consumer.ts', to: 'shared/delivery/model.ts', names: ['ConsumeResult'] },
  { from: 'shared/delivery/table-queue.ts', to: 'shared/delivery/model.ts', names: ['FairShare'] },
  {
    from: 'shared/delivery/tracker-jobs.ts',
    to: 'shared/delivery/model.ts',
    names: ['TRACKER_ACTOR', 'MAX_AUTO_PROMOTIONS'],
  },
  { from: 'shared/delivery/manual-deliveries.ts', to: 'shared/delivery/model.ts', names: ['TEST_EVENT'] },
  {
    from: 'shared/profiles/profiles.ts',
    to: 'shared/profiles/model.ts',
    names: ['DescriptionCheck', 'timeOrderedUuid'],
  },
  { from: 'shared/schedules/inputs.ts', to: 'shared/schedules/model.ts', names: ['SCHEDULE_KINDS', 'ScheduleKind'] },
  {
    from: 'shared/schedules/repository.ts',
    to: 'shared/schedules/model.ts',
    names: ['ScheduleResult', 'ScheduleRecord', 'ScheduleRef'],
  },
  { from: 'shared/schedules/clock.ts', to: 'shared/schedules/model.ts', names: ['ScheduledScanEvent'] },
  { from: 'shared/schedules/fire.ts', to: 'shared/schedules/model.ts', names: ['MISSED_AFTER_MS', 'FireOutcome'] },
  { from: 'shared/overview/coverage.ts', to: 'shared/overview/model.ts', names: ['COVERAGE_LISTED', 'CoverageFacts'] },
  {
    from: 'shared/overview/overview.ts',
    to: 'shared/overview/model.ts',
    names: [
      'RISK_WALK_ENTRIES',
      'RISKIEST_LISTED',
      'OVERDUE_ENVIRONMENTS',
      'OVERDUE_LISTED',
      'COVERAGE_WALK_ENTRIES',
      'OverviewWalks',
    ],
  },
  { from: 'shared/overview/overview.ts', to: 'shared/overview/model.ts', names: ['COVERAGE_LISTED'] },
  { from: 'shared/identity/membership-repository.ts', to: 'shared/context/roles.ts', names: ['Role'] },
  { from: 'shared/scans/inputs.ts', to: 'shared/scans/model.ts', names: ['scanStartedBody', 'ScanStartedBody'] },
  {
    from: 'shared/scan-configurations/inputs.ts',
    to: 'shared/scan-configurations/model.ts',
    names: ['MAX_CONFIGURATION_BYTES', 'upsertScanConfigurationBody', 'UpsertScanConfiguration'],
  },
  {
    from: 'shared/webhooks/events.ts',
    to: 'shared/webhooks/model.ts',
    names: ['outboxItem', 'scanEvents', 'findingEvents', 'riskExpiryEvents', 'overdueEvent'],
  },
  { from: 'shared/trackers/events.ts', to: 'shared/trackers/model.ts', names: ['trackerEvent'] },
  {
    from: 'shared/findings/views.ts',
    to: 'shared/findings/model.ts',
    names: ['ticketFields', 'toAlertRule', 'toRuleHistories'],
  },
  {
    from: 'shared/governance/expiry-entries.ts',
    to: 'shared/governance/model.ts',
    names: ['riskExpiryPut', 'riskExpiryDelete'],
  },
  { from: 'shared/perch/repository.ts', to: 'shared/perch/model.ts', names: ['ACTIVE_STATES', 'isActive'] },
  { from: 'shared/identity/sso-repository.ts', to: 'shared/identity/model.ts', names: ['ssoSealContext'] },
  { from: 'shared/webhooks/repository.ts', to: 'shared/webhooks/model.ts', names: ['webhookSealContext'] },
  { from: 'shared/trackers/repository.ts', to: 'shared/trackers/model.ts', names: ['trackerSealContext'] },
  { from: 'shared/webhooks/subscriptions.ts', to: 'shared/webhooks/model.ts', names: ['auditPayload'] },
];

const SOURCE_FOLDERS = ['shared', 'functions', 'scripts', 'test', 'infra', 'scanner', 'web', '.ci'];
const PROSE_FOLDERS = [...SOURCE_FOLDERS, 'docs'];
const SKIPPED = new Set(['node_modules', 'dist', 'cdk.out', '.data', 'screenshots', 'bench-results']);
const CODE = /\.(ts|tsx|mts|cts)$/;
const TEXT = /\.(ts|tsx|mts|cts|js|mjs|cjs|md|json|ya?ml|sh)$/;

const abs = (path: string) => join(root, path);

function filesUnder(dir: string, pattern: RegExp): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : filesUnder(path, pattern);
    return entry.isFile() && pattern.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const isFile = (path: string) => existsSync(path) && statSync(path).isFile();

/** The files this run moved (their specifiers were written from where they were). */
const madeNow = new Set<string>();

/** Step 1: the file moves not yet made. Returns the moves as absolute paths, made or not. */
function moveFiles(): Map<string, string> {
  const moves = new Map<string, string>();
  for (const [from, to] of FILE_MOVES) {
    moves.set(abs(from), abs(to));
    if (!isFile(abs(from))) continue;
    if (isFile(abs(to))) throw new Error(`both ${from} and ${to} exist: merge them by hand, then run again`);
    mkdirSync(dirname(abs(to)), { recursive: true });
    execFileSync('git', ['mv', from, to], { cwd: root });
    madeNow.add(abs(to));
    console.log(`moved ${from} -> ${to}`);
  }
  return moves;
}

/** A specifier for `target` from `file`, in the style of `original` (./ or ../ prefix, its extension). */
function specifierFor(file: string, target: string, original: string): string {
  let path = relative(dirname(file), target);
  if (!path.startsWith('.')) path = `./${path}`;
  if (original.endsWith('.js')) path = path.replace(/\.ts$/, '.js');
  else if (!/\.[a-z]+$/.test(original)) path = path.replace(/\.tsx?$/, '');
  return path;
}

/** The file a relative specifier names (`.ts`, `.js` for `.ts`, no extension). */
function fileOf(base: string, specifier: string): string {
  const path = resolve(base, specifier);
  for (const candidate of [path, path.replace(/\.js$/, '.ts'), `${path}.ts`, `${path}.tsx`, join(path, 'index.ts')])
    if (isFile(candidate)) return candidate;
  return path;
}

/**
 * Where a relative specifier of `file` points now: a moved target followed; a file moved by this run resolves its
 * specifiers from where it was, one moved by an earlier run from where it is (then from where it was).
 */
function targetOf(file: string, specifier: string, moves: Map<string, string>, movedFrom: Map<string, string>) {
  const old = movedFrom.get(file);
  const bases = [dirname(file), ...(old ? [dirname(old)] : [])];
  if (old && madeNow.has(file)) bases.reverse();
  for (const base of bases) {
    const target = fileOf(base, specifier);
    const moved = moves.get(target) ?? moves.get(target.replace(/\.js$/, '.ts'));
    if (moved) return moved;
    if (isFile(target)) return target;
  }
  return undefined;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Whether `file` declares the export `name` (a declaration, an export list or a re-export). */
function declaresExport(file: string, name: string): boolean {
  if (!isFile(file)) return false;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  return source.statements.some((statement) => {
    if (ts.isExportDeclaration(statement))
      return (
        !!statement.exportClause &&
        ts.isNamedExports(statement.exportClause) &&
        statement.exportClause.elements.some((element) => element.name.text === name)
      );
    const exported = ts.canHaveModifiers(statement)
      ? ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      : false;
    if (!exported) return false;
    if (ts.isVariableStatement(statement))
      return statement.declarationList.declarations.some((d) => ts.isIdentifier(d.name) && d.name.text === name);
    const named = statement as ts.Statement & { name?: ts.Identifier };
    return named.name?.text === name;
  });
}

/** The string-literal module specifiers of a file: imports, exports, import(), vi.mock and friends. */
function specifiersOf(source: ts.SourceFile): ts.StringLiteral[] {
  const found: ts.StringLiteral[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier);
    if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0])) {
      const callee = node.expression.getText(source);
      if (
        node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        /^vi\.(mock|doMock|unmock|importActual)$/.test(callee)
      )
        found.push(node.arguments[0]);
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal))
      found.push(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

type Moved = { to: string; element: string };

/** Named imports and exports of a moved export: the specifiers kept and those that go to the new module. */
function splitNamed(
  declaration: ts.ImportDeclaration | ts.ExportDeclaration,
  target: string,
  source: ts.SourceFile,
): { kept: string[]; moved: Moved[] } | undefined {
  const moves = EXPORT_MOVES.filter((move) => abs(move.from) === target);
  if (moves.length === 0) return undefined;
  const elements = ts.isImportDeclaration(declaration)
    ? declaration.importClause?.namedBindings && ts.isNamedImports(declaration.importClause.namedBindings)
      ? declaration.importClause.namedBindings.elements
      : undefined
    : declaration.exportClause && ts.isNamedExports(declaration.exportClause)
      ? declaration.exportClause.elements
      : undefined;
  if (!elements) return undefined;
  const kept: string[] = [];
  const moved: Moved[] = [];
  for (const element of elements) {
    const name = (element.propertyName ?? element.name).text;
    const move = moves.find((m) => m.names.includes(name) && declaresExport(abs(m.to), name));
    if (move) moved.push({ to: abs(move.to), element: element.getText(source) });
    else kept.push(element.getText(source));
  }
  return moved.length > 0 ? { kept, moved } : undefined;
}

/** The declaration `declaration` becomes once its moved names leave it (or nothing, when none are left). */
function declarationWith(
  declaration: ts.ImportDeclaration | ts.ExportDeclaration,
  elements: string[],
  specifier: string,
  source: ts.SourceFile,
): string {
  if (ts.isExportDeclaration(declaration)) {
    if (elements.length === 0) return '';
    return `export ${declaration.isTypeOnly ? 'type ' : ''}{ ${elements.join(', ')} } from '${specifier}';`;
  }
  const clause = declaration.importClause!;
  const defaultName = clause.name?.getText(source);
  if (elements.length === 0 && !defaultName) return '';
  const parts = [defaultName, elements.length > 0 ? `{ ${elements.join(', ')} }` : undefined].filter(Boolean);
  return `import ${clause.isTypeOnly ? 'type ' : ''}${parts.join(', ')} from '${specifier}';`;
}

/**
 * An edit adding moved `elements` to the file's existing named import of `to`, if it has one that is not changed
 * itself (a type-only one takes only types): one import per module.
 */
function mergeInto(
  source: ts.SourceFile,
  file: string,
  to: string,
  elements: string[],
  moves: Map<string, string>,
  movedFrom: Map<string, string>,
): Edit | undefined {
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const specifier = statement.moduleSpecifier.text;
    if (!specifier.startsWith('.') || targetOf(file, specifier, moves, movedFrom) !== to) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings) || bindings.elements.length === 0) continue;
    if (splitNamed(statement, to, source)) continue;
    const typeOnly = statement.importClause!.isTypeOnly;
    if (typeOnly && !elements.every((element) => element.startsWith('type '))) continue;
    const added = typeOnly ? elements.map((element) => element.replace(/^type /, '')) : elements;
    const end = bindings.elements[bindings.elements.length - 1].getEnd();
    return { start: end, end, text: `, ${added.join(', ')}` };
  }
  return undefined;
}

/** Step 2: one source file's specifiers rewritten to the moved files and exports. Returns whether it changed. */
function rewrite(file: string, moves: Map<string, string>, movedFrom: Map<string, string>): boolean {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const edits: Edit[] = [];
  for (const literal of specifiersOf(source)) {
    const specifier = literal.text;
    if (!specifier.startsWith('.')) continue;
    const target = targetOf(file, specifier, moves, movedFrom);
    if (!target) {
      console.warn(`${relative(root, file)}: cannot resolve '${specifier}'`);
      continue;
    }
    const declaration = literal.parent;
    const split =
      ts.isImportDeclaration(declaration) || ts.isExportDeclaration(declaration)
        ? splitNamed(declaration, target, source)
        : undefined;
    const newSpecifier = specifierFor(file, target, specifier);
    if (split && (ts.isImportDeclaration(declaration) || ts.isExportDeclaration(declaration))) {
      const groups = new Map<string, string[]>();
      for (const { to, element } of split.moved) groups.set(to, [...(groups.get(to) ?? []), element]);
      const added = [...groups].flatMap(([to, elements]) => {
        if (to === file) return [];
        const merged = ts.isImportDeclaration(declaration) && mergeInto(source, file, to, elements, moves, movedFrom);
        if (merged) {
          edits.push(merged);
          return [];
        }
        return [declarationWith(declaration, elements, specifierFor(file, to, specifier), source)];
      });
      const kept = declarationWith(declaration, split.kept, newSpecifier, source);
      const replacement = [kept, ...added].filter(Boolean).join('\n');
      // A declaration left empty goes with its line break.
      const end = declaration.getEnd() + (replacement === '' && text[declaration.getEnd()] === '\n' ? 1 : 0);
      edits.push({ start: declaration.getStart(source), end, text: replacement });
    } else if (newSpecifier !== specifier) {
      edits.push({ start: literal.getStart(source) + 1, end: literal.getEnd() - 1, text: newSpecifier });
    }
  }
  if (edits.length === 0) return false;
  let result = text;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    result = result.slice(0, edit.start) + edit.text + result.slice(edit.end);
  writeFileSync(file, result);
  return true;
}

/** Step 3: repository paths of moved files named in comments and docs (`shared/context/logger.ts`). */
function rewriteProse(file: string): boolean {
  const text = readFileSync(file, 'utf8');
  let result = text;
  for (const [from, to] of FILE_MOVES)
    result = result.replace(new RegExp(`(?<![\\w./-])${from.replace(/[.]/g, '\\.')}`, 'g'), to);
  if (result === text) return false;
  writeFileSync(file, result);
  return true;
}

function main() {
  const moves = moveFiles();
  const movedFrom = new Map([...moves].map(([from, to]) => [to, from]));
  const changed = new Set<string>();
  for (const file of SOURCE_FOLDERS.flatMap((folder) => filesUnder(abs(folder), CODE)))
    if (rewrite(file, moves, movedFrom)) changed.add(file);
  const prose = [...PROSE_FOLDERS.flatMap((folder) => filesUnder(abs(folder), TEXT)), abs('README.md')];
  // Not this script: its tables name the old paths.
  for (const file of prose) if (file !== import.meta.filename && isFile(file) && rewriteProse(file)) changed.add(file);
  const formatted = [...changed].filter((file) => /\.(ts|tsx)$/.test(file));
  if (formatted.length > 0)
    execFileSync(join(root, 'node_modules/.bin/prettier'), ['--write', '--log-level', 'warn', ...formatted], {
      cwd: root,
      stdio: 'inherit',
    });
  console.log(`${changed.size} files rewritten`);
}

main();
