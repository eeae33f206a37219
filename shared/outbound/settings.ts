import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { getItem } from '../db/query.ts';
import { config } from '../config.ts';
import type { TransactItem } from '../db/transactions.ts';

// The organization's allowance for outbound requests (webhooks, trackers, identity providers): whether its receivers
// may be on private networks (docs/WEBHOOKS.md, Receivers). Below every resource that calls out.

export interface IntegrationSettings {
  /** Receivers on private, loopback and shared addresses are allowed (docs/WEBHOOKS.md, Receivers). */
  allowPrivateNetworks: boolean;
  updatedAt: number;
}

export async function getIntegrationSettings(orgId: string): Promise<IntegrationSettings> {
  const item = fromItem<IntegrationSettings>(await getItem(keys.integrationSettings(orgId)));
  return item ?? { allowPrivateNetworks: false, updatedAt: 0 };
}

export const putIntegrationSettings = (orgId: string, settings: IntegrationSettings): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: { ...keys.integrationSettings(orgId), entity: 'integrationSettings', ...settings },
  },
});
