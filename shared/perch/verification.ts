import { createHash } from 'node:crypto';
import { resolveTxt } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { pinnedAddress, TargetRefused } from '@hawk-api/scanner/net';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { config } from '../config.ts';
import { isAllowlisted } from '../applications/scan-domains.ts';
import type { ApplicationRecord } from '../applications/model.ts';

// Whose target it is (docs/HOSTED-SCANS.md, Verification): a hosted scan reaches a CLOUD application's target only
// when the organization showed it controls the host, by a DNS TXT record or a file under /.well-known/ carrying
// the organization's token, or when an operator allowlisted the host for the organization (which also lets hosted
// scans reach it at a private address). Checked again when each scan starts.

const WELL_KNOWN_PATH = '/.well-known/hawk-verification.txt';
const DNS_LABEL = '_hawk-verification';
const CHECK_TIMEOUT_MS = 3000;
const MAX_FILE_BYTES = 4096;

/** The organization's verification token: derived from its id, so it needs no storage and never changes. */
export const verificationToken = (orgId: string) =>
  `hawk-verification=${createHash('sha256').update(`hawk-domain-verification\n${orgId.toLowerCase()}`).digest('hex').slice(0, 32)}`;

export interface Verification {
  targetUrl: string;
  host: string;
  verified: boolean;
  /** allowlist, dns or well-known; empty when not verified. */
  method: string;
  /** The host was allowlisted: hosted scans may reach it at a private address. */
  allowPrivate: boolean;
  token: string;
  dnsRecordName: string;
  wellKnownUrl: string;
  /** Why it is not verified, and what to do. */
  problem: string;
}

/** Checks the target now: allowlist, then (on a public address) the DNS TXT record, then the well-known file. */
export async function verifyTarget(orgId: string, targetUrl: string): Promise<Verification> {
  const url = new URL(targetUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const token = verificationToken(orgId);
  const result: Verification = {
    targetUrl,
    host,
    verified: false,
    method: '',
    allowPrivate: false,
    token,
    dnsRecordName: `${DNS_LABEL}.${host}`,
    wellKnownUrl: `${url.origin}${WELL_KNOWN_PATH}`,
    problem: '',
  };
  if (await isAllowlisted(orgId, host)) return { ...result, verified: true, method: 'allowlist', allowPrivate: true };
  let address: string;
  try {
    address = await pinnedAddress(host, { allowPrivate: false });
  } catch (error) {
    const reason = error instanceof TargetRefused ? error.message : `${host} does not resolve`;
    return { ...result, problem: `${reason}; ask an operator to allowlist it (npm run admin -- allow-scan-domain)` };
  }
  if (await hasTxtRecord(result.dnsRecordName, token)) return { ...result, verified: true, method: 'dns' };
  if (await hasWellKnownFile(url, address, token)) return { ...result, verified: true, method: 'well-known' };
  return {
    ...result,
    problem: `neither a DNS TXT record ${result.dnsRecordName} nor ${result.wellKnownUrl} carries "${token}": publish one of them, then verify again`,
  };
}

async function hasTxtRecord(name: string, token: string): Promise<boolean> {
  try {
    const records = await Promise.race([
      resolveTxt(name),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS).unref()),
    ]);
    return records.some((chunks) => chunks.join('').trim() === token);
  } catch {
    return false;
  }
}

/** GET of the well-known file at the pinned address: no redirects, a few KB, a few seconds. */
function hasWellKnownFile(url: URL, address: string, token: string): Promise<boolean> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = send(
      {
        host: address,
        servername: url.protocol === 'https:' ? url.hostname : undefined,
        port: url.port || (url.protocol === 'https:' ? 443 : 80),
        path: WELL_KNOWN_PATH,
        method: 'GET',
        headers: { host: url.host, 'user-agent': 'hawk-api verification' },
        timeout: CHECK_TIMEOUT_MS,
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return resolve(false);
        }
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          if (body.length > MAX_FILE_BYTES) req.destroy();
        });
        res.on('end', () => resolve(body.split(/\s+/).includes(token)));
        res.on('error', () => resolve(false));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** Records the outcome on the application (`cloudScanTarget.isDomainVerified`), when it changed. */
export async function recordVerification(app: ApplicationRecord, verified: boolean): Promise<void> {
  if (!app.cloudScanTarget || app.cloudScanTarget.isDomainVerified === verified) return;
  await db
    .send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.application(app.applicationId),
        UpdateExpression: 'SET cloudScanTarget.isDomainVerified = :verified',
        ConditionExpression: 'attribute_exists(cloudScanTarget)',
        ExpressionAttributeValues: { ':verified': verified },
      }),
    )
    .catch(() => undefined); // deleted or changed meanwhile: the next check records it
}
