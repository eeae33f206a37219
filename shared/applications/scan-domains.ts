import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { config } from '../config.ts';
import { badRequest } from '../errors.ts';

// An organization's allowlisted scan domains (docs/HOSTED-SCANS.md, Verification): hosts its hosted scans may
// reach without a verification token, private addresses included. Operators add them (npm run admin --
// allow-scan-domain); apart from verification.ts so that creating an application does not bundle its checks.

export async function isAllowlisted(orgId: string, host: string): Promise<boolean> {
  const out = await db.send(new GetCommand({ TableName: config.tableName, Key: keys.scanDomain(orgId, host) }));
  return Boolean(out.Item);
}

/** `npm run admin -- allow-scan-domain`: the host counts as verified for the organization, private addresses included. */
export async function allowScanDomain(orgId: string, host: string): Promise<{ organizationId: string; host: string }> {
  const normalized = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (!/^[a-z0-9.:-]{1,253}$/.test(normalized))
    throw badRequest(`--domain must be a host name or address, got "${host}"`);
  const org = await db.send(new GetCommand({ TableName: config.tableName, Key: keys.organization(orgId) }));
  if (!org.Item) throw badRequest(`--org: no organization ${orgId}`);
  await db.send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...keys.scanDomain(orgId, normalized), entity: 'scanDomain', host: normalized, createdAt: Date.now() },
    }),
  );
  return { organizationId: orgId, host: normalized };
}
