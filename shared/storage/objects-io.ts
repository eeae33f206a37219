import { s3 } from './s3.ts';
import { config } from '../config.ts';
import { logger } from '../context/logger.ts';

// Single-object reads and writes of the assets bucket, for assets stored as immutable versions: a new version is
// written under a key of its own, a DynamoDB transaction (with the audit entry) makes it current, and only then is
// the replaced version deleted, so readers see the old asset or the new one and a failed commit changes nothing.

export async function putObject(Key: string, Body: string | Buffer, ContentType: string): Promise<void> {
  const { PutObjectCommand } = await import('@aws-sdk/client-s3'); // loaded on use: see s3.ts
  await (await s3()).send(new PutObjectCommand({ Bucket: config.assetsBucket, Key, Body, ContentType }));
}

/** The object's text, or undefined when there is no such object. */
export async function readObjectText(Key: string): Promise<string | undefined> {
  const { GetObjectCommand, NoSuchKey } = await import('@aws-sdk/client-s3');
  try {
    const object = await (await s3()).send(new GetObjectCommand({ Bucket: config.assetsBucket, Key }));
    return await object.Body!.transformToString('utf8');
  } catch (error) {
    if (error instanceof NoSuchKey) return undefined;
    throw error;
  }
}

/**
 * Deletes a version nothing refers to any more. Not fatal when it fails: the object is unreferenced, and the
 * owner's cascade delete removes its whole prefix.
 */
export async function deleteUnreferencedObject(Key: string): Promise<void> {
  const { DeleteObjectCommand } = await import('@aws-sdk/client-s3');
  try {
    await (await s3()).send(new DeleteObjectCommand({ Bucket: config.assetsBucket, Key }));
  } catch (error) {
    logger.warn('could not delete an unreferenced object', { objectKey: Key, error });
  }
}
