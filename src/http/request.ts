// A Request class complete enough for Hono 4, our routes and the MCP SDK, without undici. A
// request from the wire reads its body straight from node:http's IncomingMessage (text, json,
// arrayBuffer without a web stream); `body` is a stream over it for code that wants one.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { bodyUnusable, type RawBody, rawBody, readBytes, readText, toArrayBuffer, toStream } from './body.ts';
import { LightHeaders, type LightHeadersInit } from './headers.ts';
import { platformClass } from './platform.ts';

export interface LightRequestInit {
  method?: string;
  headers?: LightHeadersInit | LightHeaders | Headers;
  body?: unknown;
  signal?: AbortSignal | null;
  duplex?: 'half';
}

/** A Request-like input (ours or the platform's). */
interface RequestLike {
  readonly url: string;
  readonly method: string;
  readonly headers: unknown;
  readonly signal?: AbortSignal;
}

const isRequestLike = (v: unknown): v is RequestLike =>
  typeof v === 'object' && v !== null && 'url' in v && 'method' in v && 'headers' in v;

function readIncoming(incoming: IncomingMessage): Promise<Uint8Array> {
  if (incoming.readableEnded && !incoming.readableDidRead) return Promise.resolve(new Uint8Array(0));
  if (incoming.readableDidRead || incoming.destroyed) return Promise.reject(bodyUnusable());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const done = (err: Error | null) => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onData = (c: Buffer | string) => chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
    const onEnd = () => done(null);
    const onError = (e: Error) => done(e);
    const onClose = () =>
      incoming.readableEnded ? done(null) : done(new Error('Client connection prematurely closed.'));
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

/** A stream over the request body; cancelling it leaves the socket to the server's drain. */
function incomingStream(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        reader ??= (Readable.toWeb(incoming) as ReadableStream<Uint8Array>).getReader();
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (e) {
        controller.error(e);
      }
    },
  });
}

/** Set while fromIncoming constructs: the URL was built and checked from the request line. */
let wireUrl: string | null = null;

export class LightRequest {
  readonly #url: string;
  readonly #method: string;
  #headers: LightHeaders | null;
  #incoming: IncomingMessage | null = null;
  #body: RawBody | null = null;
  #stream: ReadableStream<Uint8Array> | null = null;
  #used = false;
  #controller: AbortController | null = null;
  #signal: AbortSignal | null = null;

  constructor(input: string | URL | RequestLike, init: LightRequestInit = {}) {
    let headers: LightHeaders | null = null;
    if (isRequestLike(input)) {
      this.#url = input.url;
      this.#method = init.method ?? input.method;
      headers = new LightHeaders((init.headers ?? input.headers) as LightHeadersInit);
      this.#signal = init.signal ?? input.signal ?? null;
      if (input instanceof LightRequest && !('body' in init)) {
        this.#incoming = input.#incoming;
        this.#body = input.#body;
        this.#stream = input.#stream;
        input.#used = true;
      }
    } else {
      this.#url = wireUrl ?? new URL(String(input)).href;
      this.#method = init.method ?? 'GET';
      headers = new LightHeaders(init.headers as LightHeadersInit | undefined);
      this.#signal = init.signal ?? null;
    }
    if ('body' in init && init.body !== undefined && init.body !== null) {
      const upper = this.#method.toUpperCase();
      if (upper === 'GET' || upper === 'HEAD')
        throw new TypeError('Request with GET/HEAD method cannot have body.');
      const { raw, type } = rawBody(init.body);
      this.#body = raw;
      this.#incoming = null;
      this.#stream = null;
      if (type !== null && !headers.has('content-type')) headers.set('content-type', type);
    }
    this.#headers = headers;
  }

  /** A request read from node:http; headers are built from the raw list on first use. */
  static fromIncoming(incoming: IncomingMessage, url: string, method: string): LightRequest {
    wireUrl = url;
    let req: LightRequest;
    try {
      req = new LightRequest(url, { method });
    } finally {
      wireUrl = null;
    }
    req.#headers = null;
    if (method !== 'GET' && method !== 'HEAD') req.#incoming = incoming;
    req.#rawHeaders = incoming.rawHeaders;
    return req;
  }

  #rawHeaders: string[] | null = null;

  /** Signals the handler that the client went away (the server calls this). */
  static abort(req: LightRequest, reason: string): void {
    req.#controller ??= new AbortController();
    if (!req.#controller.signal.aborted) req.#controller.abort(reason);
  }

  get url(): string {
    return this.#url;
  }

  get method(): string {
    return this.#method;
  }

  get headers(): LightHeaders {
    if (this.#headers === null) {
      const h = new LightHeaders();
      const raw = this.#rawHeaders ?? [];
      for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i]!;
        if (name.startsWith(':')) continue;
        try {
          h.append(name, raw[i + 1]!);
        } catch {
          // node:http already refused what HTTP does not allow; skip what Fetch would too.
        }
      }
      this.#headers = h;
    }
    return this.#headers;
  }

  get signal(): AbortSignal {
    if (this.#signal) return this.#signal;
    this.#controller ??= new AbortController();
    return this.#controller.signal;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#stream) return this.#stream;
    if (this.#incoming) this.#stream = incomingStream(this.#incoming);
    else if (this.#body !== null) this.#stream = toStream(this.#body);
    return this.#stream;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  get duplex(): 'half' {
    return 'half';
  }

  get keepalive(): boolean {
    return false;
  }

  get redirect(): string {
    return 'follow';
  }

  async #bytes(): Promise<Uint8Array> {
    if (this.#used) throw bodyUnusable();
    this.#used = true;
    if (this.#stream) return readBytes(this.#stream);
    if (this.#incoming) return readIncoming(this.#incoming);
    return readBytes(this.#body);
  }

  async text(): Promise<string> {
    if (!this.#stream && !this.#incoming && typeof this.#body === 'string' && !this.#used) {
      this.#used = true;
      return this.#body;
    }
    return readText(await this.#bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return toArrayBuffer(await this.#bytes());
  }

  async bytes(): Promise<Uint8Array> {
    return this.#bytes();
  }

  async blob(): Promise<Blob> {
    const type = this.headers.get('content-type') ?? '';
    return new Blob([(await this.#bytes()) as Uint8Array<ArrayBuffer>], { type });
  }

  /** Multipart and url-encoded forms are parsed by the platform's Request (loads undici then). */
  async formData(): Promise<FormData> {
    const PlatformRequest = platformClass('Request') as typeof Request;
    const bytes = await this.#bytes();
    const headers: [string, string][] = [...this.headers];
    return new PlatformRequest(this.#url, {
      method: this.#method,
      headers,
      body: bytes as Uint8Array<ArrayBuffer>,
    }).formData();
  }

  clone(): LightRequest {
    if (this.#used) throw bodyUnusable();
    const copy = new LightRequest(this, { headers: this.headers });
    this.#used = false;
    const stream = this.body;
    if (stream) {
      const [a, b] = stream.tee();
      this.#stream = a;
      copy.#stream = b;
      copy.#incoming = null;
    }
    return copy;
  }

  get [Symbol.toStringTag](): string {
    return 'Request';
  }
}
