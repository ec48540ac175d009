/** s3rver 3.7 ships no types: the part tests/helpers/s3-server-main.ts uses. */
declare module 's3rver' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export default class S3rver {
    constructor(options: { silent?: boolean; directory: string; configureBuckets?: { name: string }[] });
    configureBuckets(): Promise<void>;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
