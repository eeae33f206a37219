// s3rver ships no types; this is the part of its API the local stack uses.
declare module 's3rver' {
  import type { Server } from 'node:http';
  interface S3rverOptions {
    directory: string;
    silent?: boolean;
    configureBuckets?: { name: string; configs?: unknown[] }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    configureBuckets(): Promise<void>;
    /** Listens like http.Server#listen (here: on a Unix socket path). */
    listen(path: string): Promise<Server>;
  }
}
