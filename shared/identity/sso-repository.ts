import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem, named } from '../db/items.ts';
import { getItem } from '../db/query.ts';
import { config } from '../config.ts';
import { putNewItem, type TransactItem } from '../db/transactions.ts';
import { type SsoProviderRecord, type SsoSignInRecord, type SsoSessionRecord } from './model.ts';

// The stored form of single sign-on (docs/IDENTITY.md "Single sign-on"): an organization's provider, the sign-ins
// under way, the identities linked to users, and the sessions sign-in started.

export async function getSsoProvider(orgId: string): Promise<SsoProviderRecord | undefined> {
  return fromItem<SsoProviderRecord>(await getItem(keys.ssoProvider(orgId)));
}

/** Stores the provider (revision already incremented), provided nobody changed it since revision - 1. */
export const putSsoProvider = (provider: SsoProviderRecord): TransactItem =>
  named('ssoChanged', {
    Put: {
      TableName: config.tableName,
      Item: { ...keys.ssoProvider(provider.organizationId), entity: 'ssoProvider', ...provider },
      ...(provider.revision > 1
        ? {
            ConditionExpression: 'revision = :previous',
            ExpressionAttributeValues: { ':previous': provider.revision - 1 },
          }
        : { ConditionExpression: 'attribute_not_exists(pk)' }),
    },
  });

export const deleteSsoProviderItem = (provider: SsoProviderRecord): TransactItem =>
  named('ssoChanged', {
    Delete: {
      TableName: config.tableName,
      Key: keys.ssoProvider(provider.organizationId),
      ConditionExpression: 'revision = :revision',
      ExpressionAttributeValues: { ':revision': provider.revision },
    },
  });

export const putSsoSignIn = (stateHash: string, signIn: SsoSignInRecord): TransactItem =>
  putNewItem({ ...keys.ssoSignIn(stateHash), entity: 'ssoSignIn', ...signIn });

/** Takes the sign-in out of the table: the first caller gets it, any later one (a replay) gets nothing. */
export async function takeSsoSignIn(stateHash: string): Promise<SsoSignInRecord | undefined> {
  const out = await db.send(
    new DeleteCommand({ TableName: config.tableName, Key: keys.ssoSignIn(stateHash), ReturnValues: 'ALL_OLD' }),
  );
  return fromItem<SsoSignInRecord>(out.Attributes);
}

export async function getSsoIdentity(orgId: string, issuer: string, subject: string): Promise<string | undefined> {
  const item = await getItem(keys.ssoIdentity(orgId, issuer, subject));
  return item ? String(item.userId) : undefined;
}

export const putSsoIdentity = (orgId: string, issuer: string, subject: string, userId: string): TransactItem =>
  putNewItem({ ...keys.ssoIdentity(orgId, issuer, subject), entity: 'ssoIdentity', userId, organizationId: orgId });

export const putSsoSession = (session: SsoSessionRecord): TransactItem =>
  putNewItem({ ...keys.ssoSession(session.userId, session.sessionId), entity: 'ssoSession', ...session });

export async function getSsoSession(userId: string, sessionId: string): Promise<SsoSessionRecord | undefined> {
  return fromItem<SsoSessionRecord>(await getItem(keys.ssoSession(userId, sessionId)));
}

export const deleteSsoSessionItem = (userId: string, sessionId: string): TransactItem => ({
  Delete: { TableName: config.tableName, Key: keys.ssoSession(userId, sessionId) },
});
