import type { WebhookEvent } from './event-types.ts';
import type { WebhookFormat } from './inputs.ts';

// The record of a webhook subscription (docs/WEBHOOKS.md), as stored.

export interface WebhookRecord {
  webhookId: string;
  organizationId: string;
  name: string;
  /** The receiver's URL, sealed (shared/secrets/sealing.ts): a Slack or Teams URL is itself a credential. */
  sealedUrl: string;
  /** What the API shows of the URL: scheme, host and path (the query and, for Slack and Teams, the path hidden). */
  displayUrl: string;
  events: WebhookEvent[];
  format: WebhookFormat;
  /** Only events of these applications (empty: every application the scope allows). */
  applicationIds: string[];
  /** Only events of the applications this team owns. */
  teamId?: string;
  enabled: boolean;
  /** The HMAC signing secret, sealed. */
  sealedSecret: string;
  /** A fixed header sent with every delivery (StackHawk's custom header): its name, and its value sealed. */
  customHeader?: { name: string; sealedValue: string };
  createdAt: number;
  updatedAt: number;
  /** Incremented by every change: writes are conditional on the revision they read. */
  revision: number;
}
