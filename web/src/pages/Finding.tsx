import { Link, useParams, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { ActionForm, text } from '../components/ui';
import { api, unwrap } from '../api/client';
import { QueryView } from '../components/states';
import { SeverityBadge, formatTime, useTitle } from '../components/ui';
import { TriageForm } from '../components/Triage';
import { RetestSection } from '../components/Retest';
import { statusLabel } from '../components/triage-status';
import { useHasPermission } from '../permissions';

// A finding's request and response are attacker-influenced text: they are only ever rendered as text nodes
// inside <pre>, never as HTML (no dangerouslySetInnerHTML anywhere in the dashboard).
export default function FindingPage() {
  const { orgId = '', scanId = '', alertUriId = '', messageId = '' } = useParams();
  const [params] = useSearchParams();
  const pluginId = params.get('plugin') ?? '';
  const page = Math.max(0, Number(params.get('page')) || 0);
  const canTriage = useHasPermission(orgId, 'WRITE_TRIAGE');
  const canScan = useHasPermission(orgId, 'WRITE_SCAN');
  const message = useQuery({
    queryKey: ['message', scanId, alertUriId, messageId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/scan/{scanId}/uri/{alertUriId}/messages/{messageId}', {
          params: { path: { scanId, alertUriId, messageId }, query: { includeValidationCommand: 'true' } },
        }),
      ),
  });
  // The finding's triage status and history come with its alert's page of findings (the page it was opened from,
  // the same query as the alert page, so usually cached); the application and environment with the scan.
  const alertPage = useQuery({
    queryKey: ['alert', scanId, pluginId, page],
    enabled: pluginId !== '',
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/scan/{scanId}/alert/{pluginId}', {
          params: { path: { scanId, pluginId }, query: { pageSize: '50', pageToken: String(page) } },
        }),
      ),
  });
  const uri = alertPage.data?.applicationScanAlertUris?.find((u) => u.alertUriId === alertUriId);
  const scan = alertPage.data?.alert?.scan;
  useTitle('Finding');
  return (
    <QueryView query={message} what="the finding">
      {(m) => (
        <>
          <p className="crumbs">
            <Link to={`/org/${orgId}/scan/${scanId}`}>Scan</Link> /{' '}
            {pluginId && (
              <>
                <Link
                  to={`/org/${orgId}/scan/${scanId}/alert/${encodeURIComponent(pluginId)}${page ? `?page=${page}` : ''}`}
                >
                  {alertPage.data?.alert?.name ?? 'Alert'}
                </Link>{' '}
                /
              </>
            )}
          </p>
          <h1 className="wrap">Finding at {m.uri}</h1>
          <dl className="facts">
            {alertPage.data?.alert?.severity && (
              <>
                <dt>Severity</dt>
                <dd data-testid="finding-severity">
                  <SeverityBadge severity={alertPage.data.alert.severity} />
                </dd>
              </>
            )}
            {uri && (
              <>
                <dt>Status</dt>
                <dd data-testid="finding-status">
                  {statusLabel(uri.status)}
                  {uri.matchedRuleNote && <span className="muted wrap"> “{uri.matchedRuleNote}”</span>}
                </dd>
                <dt>Due</dt>
                <dd data-testid="finding-due">{dueText(uri)}</dd>
              </>
            )}
            {uri?.ticketKey && (
              <>
                <dt>Ticket</dt>
                <dd data-testid="finding-ticket">
                  {/^https?:\/\//.test(uri.statusLink ?? '') ? (
                    <a href={uri.statusLink} target="_blank" rel="noopener noreferrer">
                      {uri.ticketKey}
                    </a>
                  ) : (
                    uri.ticketKey
                  )}{' '}
                  <span className="muted">{TICKET_STATES[uri.ticketStatus ?? ''] ?? uri.ticketStatus}</span>
                </dd>
              </>
            )}
            {uri && !uri.ticketKey && uri.ticketStatus && (
              <>
                <dt>Ticket</dt>
                <dd data-testid="finding-ticket">{TICKET_STATES[uri.ticketStatus] ?? uri.ticketStatus}</dd>
              </>
            )}
            {m.param && (
              <>
                <dt>Parameter</dt>
                <dd className="wrap">{m.param}</dd>
              </>
            )}
            <dt>Evidence</dt>
            <dd className="wrap">
              <code>{m.evidence || '—'}</code>
            </dd>
            {m.otherInfo && (
              <>
                <dt>Other information</dt>
                <dd className="wrap">{m.otherInfo}</dd>
              </>
            )}
          </dl>
          {m.description && <p className="prose">{m.description}</p>}
          {canTriage && m.findingHash && scan?.applicationId && scan.envId && (
            <TriageForm
              target={{ orgId, appId: scan.applicationId, envId: scan.envId }}
              hashes={[m.findingHash]}
              legend="Triage this finding (every URI of it in this environment)"
            />
          )}
          {canScan && m.findingHash && scan?.applicationId && scan.env && (
            <RetestSection appId={scan.applicationId} env={scan.env} findingHash={m.findingHash} />
          )}
          {canTriage && uri && !uri.ticketKey && scan?.applicationId && scan.envId && (
            <PromoteForm
              appId={scan.applicationId}
              orgId={orgId}
              rule={{
                environmentId: scan.envId,
                pluginId,
                requestMethod: uri.requestMethod ?? 'GET',
                path: m.uri ?? '',
              }}
              onDone={() => alertPage.refetch()}
            />
          )}
          {canTriage && m.findingHash && !pluginId && (
            <p className="help">
              Open this finding from its alert's list to triage it here, or{' '}
              <Link to={`/org/${orgId}/scan/${scanId}`}>go to the scan</Link>.
            </p>
          )}
          {canTriage === false && <p className="help">Your role cannot triage findings (it lacks write:triage).</p>}
          {uri && uri.ruleHistories!.length > 0 && (
            <section aria-labelledby="history">
              <h2 id="history">Triage history</h2>
              <ol className="rows history">
                {[...uri.ruleHistories!].reverse().map((h, i) => (
                  <li key={i}>
                    <span>{formatTime(h.timestamp)}</span>
                    <span>
                      {statusLabel(h.oldResult)} → {statusLabel(h.newResult)}
                    </span>
                    {h.note && <span className="wrap">“{h.note}”</span>}
                  </li>
                ))}
              </ol>
            </section>
          )}
          <h2>Request</h2>
          <Message
            label="Request"
            header={m.scanMessage?.requestHeader}
            body={m.scanMessage?.requestBody}
            scanner={scan?.version}
          />
          <h2>Response</h2>
          <Message
            label="Response"
            header={m.scanMessage?.responseHeader}
            body={m.scanMessage?.responseBody}
            scanner={scan?.version}
          />
          {m.validationCommand && (
            <>
              <h2>Reproduce</h2>
              <pre className="code" tabIndex={0} role="region" aria-label="curl command">
                {m.validationCommand}
              </pre>
            </>
          )}
        </>
      )}
    </QueryView>
  );
}

/**
 * The finding's due date (docs/GOVERNANCE.md, Due dates): given only on its environment's latest scan, and not while
 * the finding is a false positive or an accepted risk (the clock stands still then).
 */
function dueText(uri: { dueDate?: string; daysLeft?: number; overdue?: boolean; status?: string }): string {
  if (uri.dueDate) {
    const date = uri.dueDate.slice(0, 10);
    const days = uri.daysLeft ?? 0;
    if (uri.overdue) return `${date}: overdue by ${-days} day${days === -1 ? '' : 's'}`;
    return `${date} (${days} day${days === 1 ? '' : 's'} left)`;
  }
  if (uri.status === 'FALSE_POSITIVE' || uri.status === 'RISK_ACCEPTED')
    return 'None while it is triaged as not to fix (the clock stands still)';
  return 'None (Info findings have none; an older scan shows none: see the latest one)';
}

/** A finding's ticket states (docs/TRACKERS.md, In the views). */
const TICKET_STATES: Record<string, string> = {
  PENDING: 'being made',
  OPEN: 'open',
  CLOSED_FIXED: 'closed: the finding is gone',
  CLOSED_DONE: 'closed as done in the tracker',
  CLOSED_NOT_PLANNED: 'closed as not planned in the tracker',
  CLOSED_INVALID: 'closed as invalid in the tracker',
  FAILED: 'could not be made (see the tracker connection)',
};

/**
 * Promotes the finding to one of the organization's issue trackers (upsertAlertRule with PROMOTED and the
 * connection's id): shown only to those who can list the connections (read:integration) when there is one.
 */
function PromoteForm({
  orgId,
  appId,
  rule,
  onDone,
}: {
  orgId: string;
  appId: string;
  rule: { environmentId: string; pluginId: string; requestMethod: string; path: string };
  onDone: () => unknown;
}) {
  const trackers = useQuery({
    queryKey: ['trackers', orgId],
    retry: false,
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/integrations/trackers', { params: { path: { orgId } } })),
  });
  const enabled = (trackers.data?.trackers ?? []).filter((t) => t.enabled);
  if (enabled.length === 0) return null;
  return (
    <section aria-labelledby="promote">
      <h2 id="promote">Promote to an issue tracker</h2>
      <ActionForm
        submitLabel="Promote"
        onSubmit={async (data) => {
          await unwrap(
            api.POST('/api/v1/app/{appId}/alerts/rules/{integrationId}', {
              params: { path: { appId, integrationId: text(data, 'tracker') } },
              body: {
                alertRuleWrapper: {
                  alertRule: [
                    {
                      alertCondition: {
                        environmentId: rule.environmentId,
                        pluginId: rule.pluginId,
                        requestMethod: rule.requestMethod,
                      },
                      path: rule.path,
                      result: 'PROMOTED',
                      note: text(data, 'note'),
                    },
                  ],
                },
              } as never,
            }),
          );
          await onDone();
        }}
      >
        <label>
          Tracker{' '}
          <select name="tracker">
            {enabled.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name || t.kind} ({t.kind === 'github' ? t.repository : t.project})
              </option>
            ))}
          </select>
        </label>
        <label>
          Note <input name="note" maxLength={4096} />
        </label>
      </ActionForm>
    </section>
  );
}

/** Why a tool's report has no request or response (docs/IMPORTS.md), from the scan's version field. */
function missingBecause(scanner: string | undefined, label: string): string {
  if (/^wapiti\b|\(wapiti\)$/i.test(scanner ?? ''))
    return label === 'Response' ? ' Wapiti writes no response in its reports.' : '';
  if (/^zap\b/i.test(scanner ?? ''))
    return " ZAP's traditional reports carry none; its xml-plus and json-plus reports do.";
  return '';
}

/** A request or response as text, in a scrollable region keyboard users can reach; or why there is none. */
function Message({
  label,
  header,
  body,
  scanner,
}: {
  label: string;
  header?: string;
  body?: string;
  scanner?: string;
}) {
  if (!header && !body)
    return (
      <p className="muted">
        The scan reported no {label.toLowerCase()} for this finding.{missingBecause(scanner, label)}
      </p>
    );
  return (
    <pre className="code" tabIndex={0} role="region" aria-label={label}>
      {header}
      {body && `\n${body}`}
    </pre>
  );
}
