import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FilesystemStore, StoredObject } from 's3rver';

/**
 * Makes s3rver's object writes atomic, as S3's are. Its file store overwrites an object in place: a GET that took the
 * old file's size and then opened the file being rewritten sent fewer bytes than its Content-Length, and the reader
 * waited for the rest until its deadline (a run log read while the agent uploaded the next version answered 503).
 * Here a PUT writes a temporary file beside the bucket folders and renames it over the object, and a key's reads
 * (size, then open) and replacements (rename, then metadata) take turns: an opened file keeps the version it had.
 */
export function makeObjectWritesAtomic(store: FilesystemStore, incomingDirectory: string): void {
  const turns = new Map<string, Promise<unknown>>();
  const inTurn = <T>(bucket: string, key: string, work: () => Promise<T>): Promise<T> => {
    const id = `${bucket}/${key}`;
    const previous = turns.get(id) ?? Promise.resolve();
    const mine = previous.catch(() => undefined).then(work);
    const settled = mine.catch(() => undefined);
    turns.set(id, settled);
    void settled.then(() => {
      if (turns.get(id) === settled) turns.delete(id);
    });
    return mine;
  };

  const getObject = store.getObject.bind(store);
  const deleteObject = store.deleteObject.bind(store);
  const copyObject = store.copyObject.bind(store);
  store.getObject = (bucket, key, options) => inTurn(bucket, key, () => getObject(bucket, key, options));
  store.deleteObject = (bucket, key) => inTurn(bucket, key, () => deleteObject(bucket, key));
  store.copyObject = (srcBucket, srcKey, destBucket, destKey, metadata) =>
    inTurn(destBucket, destKey, () => copyObject(srcBucket, srcKey, destBucket, destKey, metadata));
  store.putObject = async (object: StoredObject) => {
    await mkdir(incomingDirectory, { recursive: true });
    const incoming = join(incomingDirectory, randomUUID());
    const md5 = createHash('md5');
    let size = 0;
    const content: Readable | Buffer = object.content;
    try {
      if (Buffer.isBuffer(content)) {
        md5.update(content);
        size = content.length;
        await pipeline([content], createWriteStream(incoming));
      } else {
        const measure = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            md5.update(chunk);
            size += chunk.length;
            callback(null, chunk);
          },
        });
        await pipeline(content, measure, createWriteStream(incoming));
      }
      const digest = md5.digest('hex');
      const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
      await inTurn(object.bucket, object.key, async () => {
        await mkdir(dirname(objectPath), { recursive: true });
        await rename(incoming, objectPath);
        await store.putMetadata(object.bucket, object.key, object.metadata, digest);
      });
      return { size, md5: digest };
    } finally {
      await rm(incoming, { force: true });
    }
  };
}
