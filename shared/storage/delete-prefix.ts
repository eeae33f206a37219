import { DeleteObjectsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3 } from './s3.ts';
import { config } from '../config.ts';

/** Deletes every object of the assets bucket under a prefix (cascade deletes; idempotent, so retries resume). */
export async function deleteObjectsUnder(prefix: string): Promise<void> {
  for (;;) {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: config.assetsBucket, Prefix: prefix, MaxKeys: 1000 }));
    const objects = (listed.Contents ?? []).map((o) => ({ Key: o.Key! }));
    if (objects.length === 0) return;
    await s3.send(new DeleteObjectsCommand({ Bucket: config.assetsBucket, Delete: { Objects: objects, Quiet: true } }));
  }
}
