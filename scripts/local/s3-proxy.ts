import { createHash, timingSafeEqual } from 'node:crypto';
import { request as httpRequest, type ServerResponse } from 'node:http';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import { readBoundedBody } from './bounded-body.ts';
import type { LocalHook } from './hook.ts';

// The local stack's S3 front door. s3rver ignores signatures, keys and methods, so it listens only on a Unix
// socket in a private directory, and every S3 request (the handlers' own calls and the presigned URLs clients
// follow) comes through the local server, which checks its AWS Signature V4 with the AWS SDK's own signer before
// passing it on: a presigned URL works only for its method and key until it expires, as on AWS.

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const CLOCK_SKEW_MS = 15 * 60 * 1000; // S3's tolerance for a request's signing time
const PRESIGN_PARAMS = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
];
const sha256 = Hash.bind(null, 'sha256');

type Verdict = { ok: true } | { ok: false; code: string; message: string };
const deny = (code: string, message: string): Verdict => ({ ok: false, code, message });

/** `20261122T130102Z` -> Date. */
function amzDate(value: string | undefined): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6])) : undefined;
}

const sameSignature = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

interface Parsed {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: Buffer;
}

function signable(parsed: Parsed, signedHeaders: string[], query: Record<string, string | string[]>) {
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) if (parsed.headers[name] !== undefined) headers[name] = parsed.headers[name];
  const [hostname, port] = (parsed.headers.host ?? '').split(':');
  return {
    method: parsed.method,
    protocol: 'http:',
    hostname,
    port: port ? Number(port) : undefined,
    path: parsed.path,
    query,
    headers,
  };
}

function queryObject(params: URLSearchParams, without: string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of new Set(params.keys())) {
    if (without.includes(name)) continue;
    const values = params.getAll(name);
    out[name] = values.length === 1 ? values[0] : values;
  }
  return out;
}

/** Checks a request's SigV4 signature (presigned query or Authorization header) against the local credentials. */
export async function verifySignature(
  parsed: Parsed,
  credentials: S3Credentials,
  region: string,
  now = new Date(),
): Promise<Verdict> {
  const { query } = parsed;
  if (query.has('X-Amz-Signature')) {
    if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256')
      return deny('AuthorizationQueryParametersError', 'X-Amz-Algorithm must be AWS4-HMAC-SHA256');
    const [accessKeyId, , signedRegion] = (query.get('X-Amz-Credential') ?? '').split('/');
    if (accessKeyId !== credentials.accessKeyId || signedRegion !== region)
      return deny('InvalidAccessKeyId', 'The AWS access key Id you provided does not exist in our records.');
    const signingDate = amzDate(query.get('X-Amz-Date') ?? undefined);
    const expiresIn = Number(query.get('X-Amz-Expires'));
    if (!signingDate || !Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > 604_800)
      return deny('AuthorizationQueryParametersError', 'X-Amz-Date or X-Amz-Expires is invalid');
    if (now.getTime() > signingDate.getTime() + expiresIn * 1000) return deny('AccessDenied', 'Request has expired');
    if (signingDate.getTime() > now.getTime() + CLOCK_SKEW_MS) return deny('AccessDenied', 'Request is not yet valid');
    const signedHeaders = (query.get('X-Amz-SignedHeaders') ?? '').split(';');
    const presigner = new S3RequestPresigner({ credentials, region, sha256 });
    const expected = await presigner.presign(signable(parsed, signedHeaders, queryObject(query, PRESIGN_PARAMS)), {
      signingDate,
      expiresIn,
    });
    return sameSignature(String(expected.query?.['X-Amz-Signature']), query.get('X-Amz-Signature')!)
      ? { ok: true }
      : deny('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
  }
  const authorization = parsed.headers.authorization ?? '';
  const m = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(
    authorization,
  );
  if (!m) return deny('AccessDenied', 'Access Denied: requests must be signed (AWS Signature Version 4)');
  const [accessKeyId, , signedRegion] = m[1].split('/');
  if (accessKeyId !== credentials.accessKeyId || signedRegion !== region)
    return deny('InvalidAccessKeyId', 'The AWS access key Id you provided does not exist in our records.');
  const signingDate = amzDate(parsed.headers['x-amz-date']);
  if (!signingDate || Math.abs(now.getTime() - signingDate.getTime()) > CLOCK_SKEW_MS)
    return deny('RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
  const payloadHash = parsed.headers['x-amz-content-sha256'];
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== createHash('sha256').update(parsed.body).digest('hex')) {
    return deny(
      'XAmzContentSHA256Mismatch',
      'The provided x-amz-content-sha256 header does not match what was computed.',
    );
  }
  const signedHeaders = m[2].split(';');
  const signer = new SignatureV4({
    credentials,
    region,
    service: 's3',
    sha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const signed = await signer.sign(signable(parsed, signedHeaders, queryObject(query, [])), {
    signingDate,
    signableHeaders: new Set(signedHeaders),
  });
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization))?.[1] ?? '';
  return sameSignature(expected, m[3])
    ? { ok: true }
    : deny('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
}

function s3Error(res: ServerResponse, status: number, code: string, message: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/** The hook that serves `/<bucket>/...` (path-style S3) after the signature check, from s3rver on `socketPath`. */
export function s3ProxyHook(options: {
  bucket: string;
  socketPath: string;
  credentials: S3Credentials;
  region: string;
}): LocalHook {
  const prefix = `/${options.bucket}`;
  return async (req, res, url) => {
    if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return false;
    const body = await readBoundedBody(req, MAX_BODY_BYTES);
    if (!body) {
      s3Error(res, 400, 'EntityTooLarge', `Your proposed upload exceeds ${MAX_BODY_BYTES} bytes`);
      return true;
    }
    const target = req.url ?? '/';
    const at = target.indexOf('?');
    const parsed: Parsed = {
      method: req.method ?? 'GET',
      path: at === -1 ? target : target.slice(0, at),
      query: new URLSearchParams(at === -1 ? '' : target.slice(at + 1)),
      headers: Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]),
      ),
      body,
    };
    const verdict = await verifySignature(parsed, options.credentials, options.region);
    if (!verdict.ok) {
      s3Error(res, 403, verdict.code, verdict.message);
      return true;
    }
    // Verified: s3rver gets the request without the credentials it would try to check itself.
    const forwardedQuery = new URLSearchParams(
      [...parsed.query].filter(([name]) => !PRESIGN_PARAMS.includes(name) && name !== 'X-Amz-Content-Sha256'),
    );
    const headers = { ...req.headers };
    delete headers.authorization;
    await new Promise<void>((resolve, reject) => {
      const upstream = httpRequest(
        {
          socketPath: options.socketPath,
          method: parsed.method,
          path: `${parsed.path}${forwardedQuery.size ? `?${forwardedQuery}` : ''}`,
          headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on('end', resolve);
          answer.on('error', reject);
        },
      );
      upstream.on('error', reject);
      upstream.end(body);
    });
    return true;
  };
}
