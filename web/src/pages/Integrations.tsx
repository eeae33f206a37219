import { SecretPanel } from '../components/SecretPanel';
import { useState } from 'react';
import { useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, describeError, unwrap, type Schemas } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { ActionForm, text, useTitle } from '../components/ui';
import { ConfirmButton } from '../components/dialog';
import { RowsTable } from '../components/DataTable';
import { useHasPermission } from '../permissions';

// Integrations: the organization's webhook subscriptions (docs/WEBHOOKS.md): create (the signing secret shown once),
// change, remove, send a test and read each one's delivery log, with redelivery. Issue tracker connections have a
// page of their own beside this one.

type Webhook = Schemas['hawk.Webhook'];
type Delivery = Schemas['hawk.WebhookDelivery'];

const EVENTS = [
  ['scanStarted', 'Scan started'],
  ['scanCompleted', 'Scan completed'],
  ['scanErrored', 'Scan errored'],
  ['findingStatusChanged', 'Finding triaged'],
  ['riskAcceptanceExpired', 'Risk acceptance expired'],
  ['findingOverdue', 'Finding overdue'],
] as const;
const FORMATS = [
  ['json', 'JSON, signed (StackHawk shape)'],
  ['slack', 'Slack incoming webhook'],
  ['teams', 'Microsoft Teams Workflows webhook'],
] as const;
/** Deliveries that can be sent again: the ones whose attempts are over. */
const OVER = new Set(['DELIVERED', 'DEAD', 'DROPPED']);

const ids = (value: string) =>
  value
    .split(/[\s,]+/)
    .map((id) => id.trim())
    .filter(Boolean);

/** The subscription fields a create or edit form holds (FormData of the fields below). */
function subscriptionFields(data: FormData) {
  const events = data.getAll('events').map(String);
  if (events.length === 0) throw new Error('Choose at least one event.');
  const applicationIds = ids(text(data, 'applicationIds'));
  const teamId = text(data, 'teamId');
  return {
    name: text(data, 'name'),
    events,
    format: text(data, 'format') || 'json',
    enabled: data.get('enabled') === 'on',
    applicationIds,
    teamId,
  };
}

function SubscriptionFields({ webhook, teams }: { webhook?: Webhook; teams: { id?: string; name?: string }[] }) {
  const chosen = new Set(webhook?.events ?? ['scanCompleted']);
  return (
    <>
      <label>
        Name <input name="name" maxLength={255} defaultValue={webhook?.name ?? ''} placeholder="security channel" />
      </label>
      <fieldset>
        <legend>Events</legend>
        {EVENTS.map(([value, label]) => (
          <label key={value} className="check">
            <input type="checkbox" name="events" value={value} defaultChecked={chosen.has(value)} /> {label}
          </label>
        ))}
      </fieldset>
      <label>
        Format
        <select name="format" defaultValue={webhook?.format ?? 'json'}>
          {FORMATS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label className="check">
        <input type="checkbox" name="enabled" defaultChecked={webhook?.enabled ?? true} /> Enabled
      </label>
      <label>
        Only the applications of team
        <select name="teamId" defaultValue={webhook?.teamId ?? ''}>
          <option value="">any team</option>
          {teams.map((team) => (
            <option key={team.id} value={team.id}>
              {team.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Only these applications (ids, comma-separated; empty: all)
        <input name="applicationIds" defaultValue={(webhook?.applicationIds ?? []).join(', ')} />
      </label>
    </>
  );
}

export default function IntegrationsPage() {
  useTitle('Integrations');
  const { orgId = '' } = useParams();
  const queryClient = useQueryClient();
  const writer = useHasPermission(orgId, 'WRITE_INTEGRATION');
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const webhooks = useQuery({
    queryKey: ['webhooks', orgId],
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/webhooks', { params: { path: { orgId } } })),
  });
  const teams = useQuery({
    queryKey: ['integration-teams', orgId],
    queryFn: () =>
      unwrap(api.GET('/api/v1/org/{orgId}/teams', { params: { path: { orgId }, query: { pageSize: '1000' } } })),
  });
  const teamList = teams.data?.teams ?? [];
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['webhooks', orgId] });
  return (
    <>
      <h1>Integrations</h1>
      <p className="help">
        Webhooks send the organization's events (scans started, completed or errored, findings triaged, risk acceptances
        expired) to a receiver: signed JSON, a Slack channel or a Teams channel. Each delivery is retried for a while
        when the receiver fails, and the delivery log shows every attempt.
      </p>
      <PrivateNetworks orgId={orgId} writer={writer === true} />
      <h2>Webhooks</h2>
      {secret && (
        <SecretPanel
          value={secret.secret}
          testId="webhook-secret"
          copyLabel="Copy secret"
          onDone={() => setSecret(null)}
        >
          The signing secret of <strong>{secret.name}</strong>. Copy it now: it will not be shown again. Receivers check{' '}
          <code>X-Hawk-Signature</code> with it.
        </SecretPanel>
      )}
      {writer && (
        <details className="create">
          <summary>New webhook</summary>
          <ActionForm
            submitLabel="Create webhook"
            className="stacked-form"
            onSubmit={async (data) => {
              const fields = subscriptionFields(data);
              const headerName = text(data, 'headerName');
              const answer = await unwrap(
                api.POST('/api/v1/org/{orgId}/webhooks', {
                  params: { path: { orgId } },
                  body: {
                    url: text(data, 'url'),
                    ...fields,
                    ...(fields.teamId ? {} : { teamId: undefined }),
                    ...(headerName ? { customHeader: { name: headerName, value: text(data, 'headerValue') } } : {}),
                  } as never,
                }),
              );
              setSecret({ name: answer.webhook?.name || answer.webhook?.url || 'the webhook', secret: answer.secret! });
              await refresh();
            }}
          >
            <label>
              Receiver URL <input name="url" type="url" required maxLength={2048} placeholder="https://" />
            </label>
            <SubscriptionFields teams={teamList} />
            <label>
              Custom header name (optional) <input name="headerName" maxLength={64} placeholder="X-Api-Token" />
            </label>
            <label>
              Custom header value <input name="headerValue" type="password" maxLength={1024} autoComplete="off" />
            </label>
          </ActionForm>
        </details>
      )}
      <QueryView query={webhooks} what="the webhooks">
        {(data) =>
          (data.webhooks ?? []).length === 0 ? (
            <Empty title="No webhooks yet.">{writer && <p>Create one above.</p>}</Empty>
          ) : (
            (data.webhooks ?? []).map((webhook) => (
              <WebhookCard
                key={webhook.id}
                orgId={orgId}
                webhook={webhook}
                writer={writer === true}
                teams={teamList}
                onChanged={refresh}
              />
            ))
          )
        }
      </QueryView>
    </>
  );
}

/** Whether receivers may be on private networks: owners and administrators change it. */
function PrivateNetworks({ orgId, writer }: { orgId: string; writer: boolean }) {
  const queryClient = useQueryClient();
  const [error, setError] = useState<unknown>(null);
  const settings = useQuery({
    queryKey: ['integration-settings', orgId],
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/integrations/settings', { params: { path: { orgId } } })),
  });
  const allowed = settings.data?.allowPrivateNetworks === true;
  return (
    <p>
      Receivers on private networks and loopback: <strong>{allowed ? 'allowed' : 'not allowed'}</strong>{' '}
      {writer && settings.data && (
        <button
          type="button"
          onClick={async () => {
            setError(null);
            try {
              await unwrap(
                api.PUT('/api/v1/org/{orgId}/integrations/settings', {
                  params: { path: { orgId } },
                  body: { allowPrivateNetworks: !allowed },
                }),
              );
              await queryClient.invalidateQueries({ queryKey: ['integration-settings', orgId] });
            } catch (e) {
              setError(e);
            }
          }}
        >
          {allowed ? 'Refuse private receivers' : 'Allow private receivers'}
        </button>
      )}
      {error !== null && (
        <span role="alert" className="error">
          {' '}
          {describeError(error)}
        </span>
      )}
    </p>
  );
}

const scopeOf = (webhook: Webhook, teams: { id?: string; name?: string }[]) =>
  [
    webhook.teamId ? `team ${teams.find((t) => t.id === webhook.teamId)?.name ?? webhook.teamId}` : '',
    webhook.applicationIds?.length ? `${webhook.applicationIds.length} application(s)` : '',
  ]
    .filter(Boolean)
    .join(', ') || 'every application';

function WebhookCard({
  orgId,
  webhook,
  writer,
  teams,
  onChanged,
}: {
  orgId: string;
  webhook: Webhook;
  writer: boolean;
  teams: { id?: string; name?: string }[];
  onChanged: () => Promise<unknown>;
}) {
  const queryClient = useQueryClient();
  const webhookId = webhook.id!;
  const title = webhook.name || webhook.url || webhookId;
  const headingId = `webhook-${webhookId}`;
  const [testing, setTesting] = useState(false);
  const [outcome, setOutcome] = useState<{ delivery?: Delivery; error?: unknown } | null>(null);
  const deliveriesKey = ['webhook-deliveries', orgId, webhookId];
  const refreshLog = () => queryClient.invalidateQueries({ queryKey: deliveriesKey });
  return (
    <section className="card" aria-labelledby={headingId}>
      <h3 id={headingId}>{title}</h3>
      <dl className="facts">
        <dt>Receiver</dt>
        <dd>
          <code>{webhook.url}</code>
        </dd>
        <dt>Format</dt>
        <dd>{FORMATS.find(([value]) => value === webhook.format)?.[1] ?? webhook.format}</dd>
        <dt>Events</dt>
        <dd>{(webhook.events ?? []).join(', ')}</dd>
        <dt>Scope</dt>
        <dd>{scopeOf(webhook, teams)}</dd>
        <dt>State</dt>
        <dd>{webhook.enabled ? 'enabled' : 'disabled'}</dd>
      </dl>
      {writer && (
        <div className="actions">
          <button
            type="button"
            disabled={testing}
            onClick={async () => {
              setTesting(true);
              setOutcome(null);
              try {
                const answer = await unwrap(
                  api.POST('/api/v1/org/{orgId}/webhooks/{webhookId}/test', {
                    params: { path: { orgId, webhookId } },
                  }),
                );
                setOutcome({ delivery: answer.delivery });
              } catch (error) {
                setOutcome({ error });
              } finally {
                setTesting(false);
                await refreshLog();
              }
            }}
          >
            {testing ? 'Sending test…' : `Send test to ${title}`}
          </button>{' '}
          <ConfirmButton
            label={`Delete ${title}`}
            title={`Delete the webhook ${title}?`}
            onConfirm={async () => {
              await unwrap(
                api.DELETE('/api/v1/org/{orgId}/webhooks/{webhookId}', { params: { path: { orgId, webhookId } } }),
              );
              await onChanged();
            }}
          >
            <p>Its receiver gets nothing more; deliveries still queued for it are dropped.</p>
          </ConfirmButton>
        </div>
      )}
      <div role="status" aria-live="polite" data-testid={`test-outcome-${webhookId}`}>
        {outcome?.error !== undefined && <p className="error">{describeError(outcome.error)}</p>}
        {outcome?.delivery && <p>Test: {describeOutcome(outcome.delivery)}</p>}
      </div>
      {writer && (
        <details>
          <summary>Edit {title}</summary>
          <ActionForm
            submitLabel="Save changes"
            className="stacked-form"
            onSubmit={async (data) => {
              const fields = subscriptionFields(data);
              const url = text(data, 'url');
              await unwrap(
                api.PUT('/api/v1/org/{orgId}/webhooks/{webhookId}', {
                  params: { path: { orgId, webhookId } },
                  body: {
                    ...fields,
                    ...(url ? { url } : {}),
                    teamId: fields.teamId || null,
                    applicationIds: fields.applicationIds.length ? fields.applicationIds : null,
                  } as never,
                }),
              );
              await onChanged();
            }}
          >
            <label>
              New receiver URL (empty: keep <code>{webhook.url}</code>)
              <input name="url" type="url" maxLength={2048} />
            </label>
            <SubscriptionFields webhook={webhook} teams={teams} />
          </ActionForm>
        </details>
      )}
      <DeliveryLog orgId={orgId} webhookId={webhookId} title={title} writer={writer} queryKey={deliveriesKey} />
    </section>
  );
}

/** One sentence on how a delivery went, from its newest attempt. */
function describeOutcome(delivery: Delivery): string {
  const last = delivery.attempts?.[delivery.attempts.length - 1];
  if (!last) return `${delivery.status}: no attempt yet (see the delivery log).`;
  const answer = last.statusCode ? `HTTP ${last.statusCode}` : 'no answer';
  const said = last.responseExcerpt ? `; the receiver said: ${last.responseExcerpt.slice(0, 200)}` : '';
  const error = last.error ? ` (${last.error})` : '';
  const next =
    delivery.status === 'RETRYING'
      ? ', it will be retried'
      : delivery.status === 'DEAD'
        ? ', not retried: check the receiver, then redeliver'
        : '';
  return `${delivery.status}, ${answer} in ${last.latencyMs} ms${error}${said}${next}.`;
}

function DeliveryLog({
  orgId,
  webhookId,
  title,
  writer,
  queryKey,
}: {
  orgId: string;
  webhookId: string;
  title: string;
  writer: boolean;
  queryKey: string[];
}) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const queryClient = useQueryClient();
  const deliveries = useQuery({
    queryKey,
    enabled: open,
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/org/{orgId}/webhooks/{webhookId}/deliveries', { params: { path: { orgId, webhookId } } }),
      ),
    // While a delivery is still under way, look again every few seconds.
    refetchInterval: (query) =>
      query.state.data?.deliveries?.some((d) => d.status === 'PENDING' || d.status === 'RETRYING') ? 3000 : false,
  });
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Delivery log of {title}</summary>
      {error !== null && (
        <p role="alert" className="error">
          {describeError(error)}
        </p>
      )}
      {open && (
        <QueryView query={deliveries} what="the delivery log">
          {(data) =>
            (data.deliveries ?? []).length === 0 ? (
              <Empty title="Nothing delivered yet." />
            ) : (
              <RowsTable
                caption={`Deliveries of ${title}, newest first`}
                columns={['Event', 'Status', 'Attempts', 'Last attempt', 'Response', 'Created', 'Actions']}
              >
                {(data.deliveries ?? []).map((delivery) => {
                  const last = delivery.attempts?.[delivery.attempts.length - 1];
                  return (
                    <tr key={delivery.id} data-delivery={delivery.id}>
                      <td>
                        {delivery.event}
                        {delivery.test && <span className="muted"> (test)</span>}
                        {delivery.redeliveryOf && <span className="muted"> (redelivery)</span>}
                      </td>
                      <td>{delivery.status}</td>
                      <td>{delivery.attemptCount}</td>
                      <td>
                        {last
                          ? `${last.statusCode ? `HTTP ${last.statusCode}` : 'no answer'}, ${last.latencyMs} ms${last.error ? `: ${last.error}` : ''}`
                          : '—'}
                      </td>
                      <td className="wrap">
                        <code>{last?.responseExcerpt || ''}</code>
                      </td>
                      <td>{delivery.createdAt ? new Date(delivery.createdAt).toLocaleString() : '—'}</td>
                      <td>
                        {writer && OVER.has(delivery.status ?? '') && (
                          <button
                            type="button"
                            aria-label={`Redeliver ${delivery.event} of ${new Date(delivery.createdAt ?? 0).toLocaleString()}`}
                            onClick={async () => {
                              setError(null);
                              try {
                                await unwrap(
                                  api.POST(
                                    '/api/v1/org/{orgId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
                                    { params: { path: { orgId, webhookId, deliveryId: delivery.id! } } },
                                  ),
                                );
                              } catch (e) {
                                setError(e);
                              }
                              await queryClient.invalidateQueries({ queryKey });
                            }}
                          >
                            Redeliver
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </RowsTable>
            )
          }
        </QueryView>
      )}
    </details>
  );
}
