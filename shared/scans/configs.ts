import { createHash } from 'node:crypto';
import { s3 } from '../storage/s3.ts';
import { objectKeys } from '../storage/objects.ts';
import { config } from '../config.ts';
import type { ScanType } from '../applications/model.ts';
import { HttpError, badRequest } from '../errors.ts';
import { DocumentRejected, documentValue, parseBoundedYaml } from '../input/documents.ts';
import { SCAN_CONFIG_LIMITS } from '../limits.ts';
import { assertConvertible } from '../proto/encoding.ts';
import { authorizationProblems } from './authorization-config.ts';

// Scan configurations as the scanner reports them (a stackhawk.yml): validated and stored in S3 under their hash,
// as the reported text and as the parsed document that GET /api/v1/app/{appId}/config/{configHash} returns
// (scan-config-reads.ts), so only the reporting function bundles a YAML parser.

const CONF_TYPE = 'hawkscan.HawkscanConf';

/** The reported configuration's hash (hex SHA-256 of the text, so the same text always gets the same hash). */
export function configHashOf(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The parsed configuration; 400 unless the text is one YAML document holding a HawkScan configuration (413 or
 * 400 naming the limit when it is too big, too deep or too aliased: shared/limits.ts).
 */
export function parseScanConfig(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    const doc = parseBoundedYaml(text, SCAN_CONFIG_LIMITS);
    if (doc.errors.length) throw badRequest(`config: not valid YAML: ${doc.errors[0].message.split('\n')[0]}`);
    value = documentValue(doc, SCAN_CONFIG_LIMITS);
  } catch (error) {
    if (error instanceof DocumentRejected) throw new HttpError(error.statusCode, `config: ${error.message}`);
    throw error;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw badRequest('config: must be a YAML mapping (a stackhawk.yml with app, hawk, ...)');
  // Our extension, hawk.authorization, is checked strictly (HawkScan's message would drop it unread).
  const problems = authorizationProblems(value, 'config');
  if (problems.length) throw badRequest(problems.join('; '));
  try {
    assertConvertible(CONF_TYPE, value);
  } catch (error) {
    throw badRequest(`config: not a HawkScan configuration: ${(error as Error).message}`);
  }
  return value as Record<string, unknown>;
}

/** Stores the configuration under its hash, as reported and parsed (content-addressed: writing again changes nothing). */
export async function storeScanConfig(
  appId: string,
  configHash: string,
  text: string,
  parsed: Record<string, unknown>,
): Promise<void> {
  const { PutObjectCommand } = await import('@aws-sdk/client-s3'); // loaded on use: see storage/s3.ts
  await Promise.all([
    (await s3()).send(
      new PutObjectCommand({
        Bucket: config.assetsBucket,
        Key: objectKeys.scanConfig(appId, configHash),
        Body: text,
        ContentType: 'application/x-yaml',
      }),
    ),
    (await s3()).send(
      new PutObjectCommand({
        Bucket: config.assetsBucket,
        Key: objectKeys.parsedScanConfig(appId, configHash),
        Body: JSON.stringify(parsed),
        ContentType: 'application/json',
      }),
    ),
  ]);
}

/** application.Environment.latestScanType a configuration implies: the API description it scans, else DEFAULT. */
export function scanTypeOf(parsed: Record<string, unknown>): ScanType {
  const app = (parsed.app ?? {}) as Record<string, unknown>;
  if (app.openApiConf) return 'REST';
  if (app.graphqlConf) return 'GRAPHQL';
  if (app.grpcConf) return 'GRPC';
  if (app.soapConf) return 'SOAP';
  return 'DEFAULT';
}
