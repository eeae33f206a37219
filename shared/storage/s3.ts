import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../config.ts';

/** The one S3 client of the process. Locally it talks to s3rver, which needs path-style URLs. */
export const s3 = new S3Client({
  region: config.region,
  endpoint: config.s3Endpoint,
  forcePathStyle: Boolean(config.s3Endpoint),
  ...(config.s3Endpoint ? { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } } : {}),
  // Without these the SDK frames uploads as aws-chunked with a CRC trailer, which s3rver stores verbatim,
  // and presigned PUT URLs carry the checksum of an empty body.
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});
