import type { S3Client } from '@aws-sdk/client-s3';
import { config } from '../config.ts';

let client: Promise<S3Client> | undefined;

/**
 * The process's S3 client, created on first use: loading the S3 SDK costs about 90 ms of cold start, which the
 * operations that touch S3 only on some paths (environment create with `host`, deletes) should not always pay.
 * Locally it talks to the local server's S3 front door (path-style URLs), signing with the local credentials.
 */
export function s3(): Promise<S3Client> {
  client ??= import('@aws-sdk/client-s3').then(
    ({ S3Client }) =>
      new S3Client({
        region: config.region,
        endpoint: config.s3Endpoint,
        forcePathStyle: Boolean(config.s3Endpoint),
        ...(config.s3Endpoint
          ? { credentials: config.localS3Credentials ?? { accessKeyId: 'unset', secretAccessKey: 'unset' } }
          : {}),
        // Without these the SDK frames uploads as aws-chunked with a CRC trailer, which s3rver stores verbatim,
        // and presigned PUT URLs carry the checksum of an empty body.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
  );
  return client;
}
