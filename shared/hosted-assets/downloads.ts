import { s3 } from '../storage/s3.ts';
import { config } from '../config.ts';
import { jsonResponse } from '../context/responses.ts';
import { RawResponse } from '../context/responses.ts';

// Hosted assets (uploaded API descriptions, global scan configurations) are served from S3 through short-lived
// presigned GET URLs, never through the API itself (docs/HOSTED-ASSETS.md).

/** `configuration.GetHostedAssetResponse`: how to fetch the asset, without credentials. */
export interface HostedAsset {
  presignedDownloadUrl: string;
  method: 'GET';
  /** Headers to send with the request, as a JSON object in a string; the URL needs none: "{}". */
  headers: string;
}

export async function presignedDownload(objectKey: string): Promise<HostedAsset> {
  const { GetObjectCommand } = await import('@aws-sdk/client-s3'); // loaded on use: see storage/s3.ts
  const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
  const command = new GetObjectCommand({ Bucket: config.assetsBucket, Key: objectKey });
  const presignedDownloadUrl = await getSignedUrl(await s3(), command, { expiresIn: config.presignedUrlSeconds });
  return { presignedDownloadUrl, method: 'GET', headers: '{}' };
}

/**
 * The answer of a hosted-asset GET: the JSON hosted-asset response, or, when `redirect` is asked for, a 307 to
 * the presigned URL that carries the same JSON body, for clients that read it instead of following.
 */
export function hostedAssetAnswer(asset: HostedAsset, redirect: boolean): HostedAsset | RawResponse {
  if (!redirect) return asset;
  return new RawResponse(
    jsonResponse(307, asset, { location: asset.presignedDownloadUrl, 'cache-control': 'no-store' }),
  );
}
