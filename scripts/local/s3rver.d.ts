// s3rver ships no types; this is the part of its API the local stack uses.
declare module 's3rver' {
  import type { Server } from 'node:http';
  import type { Readable } from 'node:stream';
  interface S3rverOptions {
    directory: string;
    silent?: boolean;
    configureBuckets?: { name: string; configs?: unknown[] }[];
  }
  /** An object as the store receives it (lib/models/object.js). */
  export interface StoredObject {
    bucket: string;
    key: string;
    content: Readable | Buffer;
    metadata: Record<string, string>;
  }
  /** The file store behind every object operation (lib/stores/filesystem.js). */
  export interface FilesystemStore {
    getResourcePath(bucket: string, key: string, resource: string): string;
    putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5?: string): Promise<void>;
    getObject(bucket: string, key: string, options?: unknown): Promise<unknown>;
    putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
    deleteObject(bucket: string, key: string): Promise<void>;
    copyObject(
      srcBucket: string,
      srcKey: string,
      destBucket: string,
      destKey: string,
      metadata?: Record<string, string>,
    ): Promise<unknown>;
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    store: FilesystemStore;
    configureBuckets(): Promise<void>;
    /** Listens like http.Server#listen (here: on a Unix socket path). */
    listen(path: string): Promise<Server>;
  }
}
