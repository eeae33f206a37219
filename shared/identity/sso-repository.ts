import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem, named } from '../db/items.ts';
import { getItem } from '../db/query.ts';
import { config } from '../config.ts';
import { putNewItem, type TransactItem } from '../db/transactions.ts';
import type { SsoRole } from './sso-roles.ts';

// The stored form of single sign-on (docs/IDENTITY.md "Single sign-on"): an organization's provider, the sign-ins
// under way, the identities linked to users, and the sessions sign-in started.

export interface SsoProviderRecord {
  organizationId: string;
  issuer: string;
  clientId: string;
  /** The client secret, sealed (shared/secrets/sealing.ts); never shown. */
  sealedClientSecret: string;
  redirectUri: string;
  scopes: string[];
  groupsClaim: string;
  /** Only e-mail addresses of these domains may sign in (empty: any the provider vouches for). */
  allowedEmailDomains: string[];
  /** The role of a member provisioned at sign-in when no group maps to one. */
  defaultRole: SsoRole;
  groupRoles: { group: string; role: SsoRole }[];
  groupTeams: { group: string; teamId: string }[];
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
  /** Incremented by every change: writes are conditional on the revision they read. */
  revision: number;
}

/** A sign-in under way: what the callback checks, kept until used once or expired. */
export interface SsoSignInRecord {
  organizationId: string;
  /** SHA-256 (base64url) of the binding the browser tab keeps: the callback must come from the tab that started. */
  bindingHash: string;
  nonce: string;
  /** The PKCE code verifier, sealed. */
  sealedCodeVerifier: string;
  /** Epoch seconds (the table's TTL attribute). */
  expiresAt: number;
}

/** A session that single sign-on started; its tokens carry `sso.<sessionId>` where an API key's id would be. */
export interface SsoSessionRecord {
  sessionId: string;
  userId: string;
  organizationId: string;
  createdAt: number;
  /** Epoch seconds: refresh is refused from then on (and the table's TTL removes it). */
  expiresAt: number;
}

export const ssoSealContext = (orgId: string, field: string) => `sso:${orgId}:${field}`;

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
