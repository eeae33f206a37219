import { randomBytes, randomUUID } from 'node:crypto';
import { auditEntry } from '../audit/entries.ts';
import { transactWrite } from '../db/transactions.ts';
import { failedCondition, retryOnConflict } from '../db/retry.ts';
import { badRequest, conflict, forbidden, notFound } from '../errors.ts';
import { getApplications } from '../applications/application-repository.ts';
import { getTeam } from '../applications/team-repository.ts';
import { seal, unseal } from '../secrets/sealing.ts';
import { ReceiverRefused, receiverUrlProblem, resolveReceiver } from '../outbound/receivers.ts';
import { deleteWebhookItem, getWebhook, putWebhook, webhooksOfOrg } from './repository.ts';
import {
  type WebhookRecord,
  DELIVERIES_LISTED,
  toDelivery,
  type WebhookFormat,
  webhookSealContext,
  auditPayload,
} from './model.ts';
import { getIntegrationSettings, putIntegrationSettings } from '../outbound/settings.ts';
import {
  MAX_WEBHOOKS_PER_ORG,
  type CreateWebhookBody,
  type IntegrationSettingsBody,
  type UpdateWebhookBody,
} from './inputs.ts';
import { deliveriesOfWebhook } from './deliveries.ts';
import type { Caller } from '../context/caller.ts';

// Webhook subscriptions of an organization (docs/WEBHOOKS.md): created, listed, changed and removed through the
// operations createWebhook, listWebhooks, getWebhook, updateWebhook and deleteWebhook, each change atomic with its
// INTEGRATION_* audit entry. The signing secret is shown once, when made; only its sealed form is stored.

/** A change re-read and built again while another request changes the subscription first (a failed condition). */
const changeRetry = (webhookId: string) => ({
  conflict: failedCondition(),
  exhausted: () => conflict(`webhook ${webhookId} is being changed concurrently; retry`),
});

/** A new signing secret: 32 random bytes. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/** What the API shows of a receiver URL: never the query, nor a Slack or Teams URL's path (which is its credential). */
export function displayUrl(raw: string, format: WebhookFormat): string {
  const url = new URL(raw);
  if (format !== 'json') return `${url.origin}/…`;
  return `${url.origin}${url.pathname}${url.search ? '?…' : ''}`;
}

/** The API's view of a subscription: never its secret, URL credentials or custom header value. */
export function toWebhook(webhook: WebhookRecord) {
  return {
    id: webhook.webhookId,
    organizationId: webhook.organizationId,
    name: webhook.name,
    url: webhook.displayUrl,
    events: webhook.events,
    format: webhook.format,
    applicationIds: webhook.applicationIds,
    teamId: webhook.teamId ?? '',
    enabled: webhook.enabled,
    customHeaderName: webhook.customHeader?.name ?? '',
    createdAt: new Date(webhook.createdAt).toISOString(),
    updatedAt: new Date(webhook.updatedAt).toISOString(),
  };
}

/** 400 unless the URL is well formed and, resolved now, reaches an address the organization allows. */
async function checkReceiver(orgId: string, url: string): Promise<void> {
  const problem = receiverUrlProblem(url);
  if (problem) throw badRequest(`url: ${problem}`);
  const { allowPrivateNetworks } = await getIntegrationSettings(orgId);
  try {
    await resolveReceiver(url, allowPrivateNetworks);
  } catch (error) {
    if (error instanceof ReceiverRefused) throw badRequest(`url: ${error.message}`);
    throw error;
  }
}

/** 404 unless every application is the organization's and the team exists in it. */
async function checkScope(orgId: string, applicationIds: string[], teamId: string | undefined): Promise<void> {
  if (applicationIds.length) {
    const found = new Set(
      (await getApplications(applicationIds))
        .filter((app) => app.organizationId === orgId && !app.deleting)
        .map((app) => app.applicationId),
    );
    const missing = applicationIds.find((id) => !found.has(id));
    if (missing) throw notFound(`applicationIds: application ${missing} not found`);
  }
  if (teamId && !(await getTeam(orgId, teamId))) throw notFound(`teamId: team ${teamId} not found`);
}

export async function existingWebhook(orgId: string, webhookId: string): Promise<WebhookRecord> {
  const webhook = await getWebhook(orgId, webhookId);
  if (!webhook) throw notFound(`webhook ${webhookId} not found`);
  return webhook;
}

/** POST /api/v1/org/{orgId}/webhooks (createWebhook): the new subscription and its secret, shown only here. */
export async function createWebhook(caller: Caller, orgId: string, body: CreateWebhookBody) {
  if ((await webhooksOfOrg(orgId)).length >= MAX_WEBHOOKS_PER_ORG)
    throw badRequest(`the organization has ${MAX_WEBHOOKS_PER_ORG} webhooks, the most it may: remove one first`);
  await checkReceiver(orgId, body.url);
  await checkScope(orgId, body.applicationIds ?? [], body.teamId);
  const now = Date.now();
  const webhookId = randomUUID();
  const format = body.format ?? 'json';
  const secret = newSecret();
  const ids = { organizationId: orgId, webhookId };
  const webhook: WebhookRecord = {
    ...ids,
    name: body.name ?? '',
    sealedUrl: await seal(body.url, webhookSealContext(ids, 'url')),
    displayUrl: displayUrl(body.url, format),
    events: body.events,
    format,
    applicationIds: body.applicationIds ?? [],
    ...(body.teamId ? { teamId: body.teamId } : {}),
    enabled: body.enabled ?? true,
    sealedSecret: await seal(secret, webhookSealContext(ids, 'secret')),
    ...(body.customHeader
      ? {
          customHeader: {
            name: body.customHeader.name,
            sealedValue: await seal(body.customHeader.value, webhookSealContext(ids, 'header')),
          },
        }
      : {}),
    createdAt: now,
    updatedAt: now,
    revision: 1,
  };
  await transactWrite([
    putWebhook(webhook),
    auditEntry(caller, orgId, 'INTEGRATION_ADDED', auditPayload(webhook), now),
  ]);
  return { webhook: toWebhook(webhook), secret };
}

/** GET /api/v1/org/{orgId}/webhooks (listWebhooks). */
export async function listWebhooks(orgId: string) {
  const webhooks = await webhooksOfOrg(orgId);
  return { webhooks: webhooks.sort((a, b) => a.createdAt - b.createdAt).map(toWebhook) };
}

/** GET /api/v1/org/{orgId}/webhooks/{webhookId} (getWebhook). */
export async function getWebhookView(orgId: string, webhookId: string) {
  return { webhook: toWebhook(await existingWebhook(orgId, webhookId)) };
}

/**
 * PUT /api/v1/org/{orgId}/webhooks/{webhookId} (updateWebhook): the fields given change, with INTEGRATION_MODIFIED.
 * `rotateSecret` replaces the signing secret; the new one is in the answer, shown only there.
 */
export async function updateWebhook(caller: Caller, orgId: string, webhookId: string, body: UpdateWebhookBody) {
  if (body.url !== undefined) await checkReceiver(orgId, body.url);
  return retryOnConflict(changeRetry(webhookId), async () => {
    const current = await existingWebhook(orgId, webhookId);
    const applicationIds = body.applicationIds === undefined ? current.applicationIds : (body.applicationIds ?? []);
    const teamId = body.teamId === undefined ? current.teamId : (body.teamId ?? undefined);
    await checkScope(orgId, body.applicationIds ? applicationIds : [], body.teamId ? teamId : undefined);
    const format = body.format ?? current.format;
    const now = Date.now();
    const secret = body.rotateSecret ? newSecret() : undefined;
    const { teamId: _team, customHeader: _header, ...kept } = current;
    const next: WebhookRecord = {
      ...kept,
      name: body.name ?? current.name,
      events: body.events ?? current.events,
      format,
      applicationIds,
      ...(teamId ? { teamId } : {}),
      enabled: body.enabled ?? current.enabled,
      updatedAt: now,
      revision: current.revision + 1,
    };
    if (body.url !== undefined) {
      next.sealedUrl = await seal(body.url, webhookSealContext(current, 'url'));
      next.displayUrl = displayUrl(body.url, format);
    } else if (format !== current.format) {
      next.displayUrl = displayUrl(await unseal(current.sealedUrl, webhookSealContext(current, 'url')), format);
    }
    if (secret) next.sealedSecret = await seal(secret, webhookSealContext(current, 'secret'));
    if (body.customHeader)
      next.customHeader = {
        name: body.customHeader.name,
        sealedValue: await seal(body.customHeader.value, webhookSealContext(current, 'header')),
      };
    else if (body.customHeader === undefined && current.customHeader) next.customHeader = current.customHeader;
    await transactWrite([
      putWebhook(next),
      auditEntry(caller, orgId, 'INTEGRATION_MODIFIED', auditPayload(next, secret ? { secretRotated: true } : {}), now),
    ]);
    return { webhook: toWebhook(next), secret: secret ?? '' };
  });
}

/** DELETE /api/v1/org/{orgId}/webhooks/{webhookId} (deleteWebhook): pending deliveries to it are dropped. */
export async function deleteWebhook(caller: Caller, orgId: string, webhookId: string) {
  return retryOnConflict(changeRetry(webhookId), async () => {
    const current = await existingWebhook(orgId, webhookId);
    await transactWrite([
      deleteWebhookItem(current),
      auditEntry(caller, orgId, 'INTEGRATION_REMOVED', auditPayload(current)),
    ]);
    return {};
  });
}

/** GET /api/v1/org/{orgId}/webhooks/{webhookId}/deliveries (listWebhookDeliveries): the delivery log, newest first. */
export async function listWebhookDeliveries(orgId: string, webhookId: string) {
  await existingWebhook(orgId, webhookId); // another organization's subscription is not found
  return { deliveries: (await deliveriesOfWebhook(webhookId, DELIVERIES_LISTED)).map(toDelivery) };
}

/** GET /api/v1/org/{orgId}/integrations/settings (getIntegrationSettings). */
export async function getIntegrationSettingsView(orgId: string) {
  const settings = await getIntegrationSettings(orgId);
  return { allowPrivateNetworks: settings.allowPrivateNetworks };
}

/**
 * PUT /api/v1/org/{orgId}/integrations/settings (updateIntegrationSettings): allowing receivers on private networks
 * is an owner's or administrator's decision (the role, on top of write:integration).
 */
export async function updateIntegrationSettings(caller: Caller, orgId: string, body: IntegrationSettingsBody) {
  const membership = await caller.authorize(orgId);
  if (membership.role !== 'OWNER' && membership.role !== 'ADMIN')
    throw forbidden('only an owner or administrator of the organization can change its integration settings');
  const now = Date.now();
  await transactWrite([
    putIntegrationSettings(orgId, { allowPrivateNetworks: body.allowPrivateNetworks, updatedAt: now }),
    auditEntry(
      caller,
      orgId,
      'INTEGRATION_MODIFIED',
      { integration: 'settings', allowPrivateNetworks: body.allowPrivateNetworks },
      now,
    ),
  ]);
  return { allowPrivateNetworks: body.allowPrivateNetworks };
}
