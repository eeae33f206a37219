import { s3 } from './s3.ts';
import { config } from '../config.ts';

/** Deletes every object of the assets bucket under a prefix (cascade deletes; idempotent, so retries resume). */
export async function deleteObjectsUnder(prefix: string): Promise<void> {
  const { DeleteObjectsCommand, ListObjectsV2Command } = await import('@aws-sdk/client-s3'); // loaded on use: see s3.ts
  const client = await s3();
  for (;;) {
    const listed = await client.send(
      new ListObjectsV2Command({ Bucket: config.assetsBucket, Prefix: prefix, MaxKeys: 1000 }),
    );
    const objects = (listed.Contents ?? []).map((o) => ({ Key: o.Key! }));
    if (objects.length === 0) return;
    await client.send(
      new DeleteObjectsCommand({ Bucket: config.assetsBucket, Delete: { Objects: objects, Quiet: true } }),
    );
  }
}
