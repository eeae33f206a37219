import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { getItem, queryAll } from '../db/query.ts';
import { config } from '../config.ts';
import type { TransactItem } from '../db/transactions.ts';
import type { WebhookRecord } from './model.ts';

// The stored form of webhook subscriptions and the organization's integration settings (docs/WEBHOOKS.md).

export async function getWebhook(orgId: string, webhookId: string): Promise<WebhookRecord | undefined> {
  return fromItem<WebhookRecord>(await getItem(keys.webhook(orgId, webhookId)));
}

export async function webhooksOfOrg(orgId: string): Promise<WebhookRecord[]> {
  const { pk, skPrefix } = keys.webhooksOfOrg(orgId);
  return (await queryAll({ partition: pk, skPrefix, consistent: true })).map((item) => fromItem<WebhookRecord>(item)!);
}

/** Stores `webhook` (its revision already incremented), provided nobody changed it since revision - 1. */
export const putWebhook = (webhook: WebhookRecord): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: { ...keys.webhook(webhook.organizationId, webhook.webhookId), entity: 'webhook', ...webhook },
    ...(webhook.revision > 1
      ? {
          ConditionExpression: 'revision = :previous',
          ExpressionAttributeValues: { ':previous': webhook.revision - 1 },
        }
      : { ConditionExpression: 'attribute_not_exists(pk)' }),
  },
});

export const deleteWebhookItem = (webhook: WebhookRecord): TransactItem => ({
  Delete: {
    TableName: config.tableName,
    Key: keys.webhook(webhook.organizationId, webhook.webhookId),
    ConditionExpression: 'revision = :revision',
    ExpressionAttributeValues: { ':revision': webhook.revision },
  },
});
