/**
 * The test's S3-compatible server, in its own process so a test can kill it like a crash:
 * s3rver (a Node implementation of the S3 REST API over a folder) on a loopback port.
 *
 * s3rver 3.7 accepts any SigV4 signature ("Signature version 4 calculation is unimplemented" in
 * its authentication middleware), so a wrong secret would pass. Here every request's signature
 * is checked first with the AWS SDK's own signer (@smithy/signature-v4, which @aws-sdk/client-s3
 * depends on and the product ships) against the one account
 * s3rver knows (S3RVER / S3RVER), and a mismatch is answered 403 SignatureDoesNotMatch as S3
 * answers it.
 *
 * stdout, one JSON line each: `{"port":N}` once listening; `{"req":"PUT","path":"/b/k","status":200}`
 * for every answered request, in the order they ended; `{"held":"PUT /b/k"}` for a request that
 * matched `--hold REGEX` ("METHOD /path", first match only): it is never answered, so the test
 * can kill the server while an upload is under way; `{"corrupted":"b/k"}` for the first object
 * whose "bucket/key" matches `--corrupt REGEX`: stored with trailing bytes it was not sent (as
 * servers that predate the SDK's aws-chunked uploads stored their framing) and answered 200.
 *
 * Usage: node --import tsx s3-server-main.ts --dir DIR --bucket NAME [--port N] [--hold REGEX] [--corrupt REGEX]
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { SignatureV4 } from '@smithy/signature-v4';
import S3rver from 's3rver';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    bucket: { type: 'string', multiple: true },
    port: { type: 'string', default: '0' },
    hold: { type: 'string' },
    corrupt: { type: 'string' },
  },
});
const ACCOUNTS: Record<string, string> = { S3RVER: 'S3RVER' };

function bytes(d: string | ArrayBuffer | ArrayBufferView): string | Uint8Array {
  if (typeof d === 'string') return d;
  return d instanceof ArrayBuffer ? new Uint8Array(d) : new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

class Sha256 {
  private readonly h;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.h = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView) {
    this.h.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.h.digest());
  }
  reset() {}
}

/** Why the request's SigV4 signature is wrong, or undefined when it is right. */
async function badSignature(req: http.IncomingMessage): Promise<string | undefined> {
  const auth = req.headers.authorization;
  if (!auth) return undefined; // anonymous: s3rver decides
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)$/.exec(
      auth,
    );
  if (!m) return 'not a SigV4 header signature';
  const [, akid, , region, signed, signature] = m;
  const secret = ACCOUNTS[akid!];
  if (secret === undefined) return undefined; // s3rver answers InvalidAccessKeyId itself
  const url = new URL(req.url!, 'http://placeholder');
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prior = query[k];
    query[k] = prior === undefined ? v : ([] as string[]).concat(prior, v);
  }
  const headers: Record<string, string> = {};
  for (const name of signed!.split(';')) headers[name] = String(req.headers[name] ?? '');
  const [hostname, port] = String(req.headers.host).split(':');
  const signer = new SignatureV4({
    credentials: { accessKeyId: akid!, secretAccessKey: secret },
    region: region!,
    service: 's3',
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const amzDate = headers['x-amz-date'] ?? '';
  const when = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  const again = await signer.sign(
    {
      method: req.method!,
      protocol: 'http:',
      hostname: hostname!,
      ...(port ? { port: Number(port) } : {}),
      path: url.pathname,
      query,
      headers,
    },
    { signingDate: when },
  );
  const expected = /Signature=([0-9a-f]+)/.exec(String(again.headers.authorization))?.[1];
  return expected === signature ? undefined : 'signature mismatch';
}

interface Store {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(o: { bucket: string; key: string; metadata: unknown; content: Buffer | Readable }): Promise<unknown>;
}

/**
 * s3rver writes an object's bytes in place as they arrive and its metadata after, so a server
 * killed mid-PUT leaves a torn object whose every listing then fails (500) — what S3 never
 * shows: an object is there whole or not at all. Here each object is received whole, written
 * beside the bucket, and moved into place with its object file last (s3rver lists by it).
 */
function makePutsAtomic(store: Store, corrupt?: RegExp) {
  const staging = '.incoming';
  let corrupted = false;
  store.putObject = async (o) => {
    let content = Buffer.isBuffer(o.content) ? o.content : Buffer.concat(await o.content.toArray());
    if (corrupt && !corrupted && corrupt.test(`${o.bucket}/${o.key}`)) {
      corrupted = true; // stored with bytes it was not sent, answered 200 all the same
      content = Buffer.concat([content, Buffer.from('\r\n0;chunk-signature=0\r\n\r\n')]);
      say({ corrupted: `${o.bucket}/${o.key}` });
    }
    const md5 = createHash('md5').update(content).digest('hex');
    const tmpKey = randomUUID();
    const at = (bucket: string, key: string, r: string) => store.getResourcePath(bucket, key, r);
    await mkdir(path.dirname(at(staging, tmpKey, 'object')), { recursive: true });
    await writeFile(at(staging, tmpKey, 'object'), content);
    await store.putMetadata(staging, tmpKey, o.metadata, md5);
    await mkdir(path.dirname(at(o.bucket, o.key, 'object')), { recursive: true });
    for (const r of ['metadata.json', 'object.md5', 'object'])
      await rename(at(staging, tmpKey, r), at(o.bucket, o.key, r));
    return { size: content.length, md5 };
  };
}

const s3 = new S3rver({
  silent: true,
  directory: values.dir!,
  configureBuckets: (values.bucket ?? []).map((name) => ({ name })),
});
await s3.configureBuckets();
makePutsAtomic((s3 as unknown as { store: Store }).store, values.corrupt ? new RegExp(values.corrupt) : undefined);
const handle = s3.callback();
const hold = values.hold ? new RegExp(values.hold) : undefined;
let held = false;
const say = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);

const server = http.createServer((req, res) => {
  const what = `${req.method} ${new URL(req.url!, 'http://x').pathname}`;
  if (hold && !held && hold.test(what)) {
    held = true;
    say({ held: what });
    return; // never answered: the test kills the server now
  }
  res.on('finish', () =>
    say({ req: req.method, path: new URL(req.url!, 'http://x').pathname, status: res.statusCode }),
  );
  void badSignature(req).then((why) => {
    if (!why) return handle(req, res);
    res.statusCode = 403;
    res.setHeader('content-type', 'application/xml');
    res.end(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error>',
    );
  });
});
server.listen(Number(values.port), '127.0.0.1', () => {
  say({ port: (server.address() as { port: number }).port });
});
