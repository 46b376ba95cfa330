// A Response class complete enough for Hono 4, our routes and the MCP SDK, without undici.
// Like @hono/node-server's lightweight Response (whose wire behaviour the writer reproduces), a
// response built from a string, bytes, a Blob or a stream stays "cached": the writer sends its
// raw body and headers directly. Reading it (body, text(), ...) makes it "materialized", which
// the writer then sends the way node-server sends a platform Response.
import { bodyUnusable, type RawBody, rawBody, readBytes, readText, toArrayBuffer, toStream } from './body.ts';
import { LightHeaders, type LightHeadersInit } from './headers.ts';

export const DEFAULT_CONTENT_TYPE = 'text/plain; charset=UTF-8';

/** What the writer reads of a light response. */
export interface LightResponseState {
  cached: boolean;
  status: number;
  body: RawBody | null;
  /** As given (a record, pairs) until someone reads `headers`, then the live LightHeaders. */
  headers: LightHeaders | LightHeadersInit | undefined;
  /** The stream handed out by `body`, when it was read. */
  stream: ReadableStream<Uint8Array> | null;
}

export interface LightResponseInit {
  status?: number;
  statusText?: string;
  headers?: LightHeadersInit | LightHeaders | Headers;
}

/** A Response-like object: ours or the platform's. */
export interface ResponseLike {
  readonly status: number;
  readonly statusText: string;
  readonly headers: { forEach(cb: (value: string, name: string) => void): void; has(name: string): boolean };
  readonly body: ReadableStream<Uint8Array> | null;
}

function isResponseLike(v: unknown): v is ResponseLike {
  return typeof v === 'object' && v !== null && 'status' in v && 'headers' in v && 'body' in v;
}

/**
 * The Content-Type the platform's Response adds to a body that implies one (a string, a typed
 * Blob) when none was given; node-server's writer sends it once a response was read.
 */
function platformContentType(s: LightResponseState): void {
  const body = s.body;
  const type =
    typeof body === 'string'
      ? 'text/plain;charset=UTF-8'
      : body instanceof Blob && body.type
        ? body.type
        : null;
  if (type === null) return;
  const h = s.headers instanceof LightHeaders ? s.headers : new LightHeaders(s.headers as LightHeadersInit);
  if (!h.has('content-type')) h.set('content-type', type);
  s.headers = h;
}

export class LightResponse {
  readonly #s: LightResponseState;
  readonly #statusText: string;
  #used = false;

  constructor(body?: unknown, init?: LightResponseInit | ResponseLike | null) {
    const { raw, type, other } = rawBody(body);
    let status = 200;
    let statusText = '';
    let headers: LightResponseState['headers'];
    let cached = !other;
    let kept: RawBody | null = raw;
    if (init instanceof LightResponse) {
      const from = init.#s;
      status = from.status;
      statusText = init.#statusText;
      headers = new LightHeaders(init.headers as unknown as LightHeadersInit);
      // node-server rebuilds from a read response as a platform Response (the writer's other path).
      if (!from.cached) cached = false;
      // `new Response(res.body, res)` (Hono does this): keep the raw body, not a stream over it.
      if (raw !== null && raw === from.stream && from.body !== null) kept = from.body;
    } else if (isResponseLike(init)) {
      status = init.status;
      statusText = init.statusText;
      headers = new LightHeaders(init.headers as unknown as LightHeadersInit);
      cached = false;
    } else if (init) {
      if (init.status !== undefined) status = init.status;
      statusText = init.statusText ?? '';
      headers = init.headers as LightResponseState['headers'];
    }
    if (!Number.isInteger(status) || status < 200 || status > 599)
      throw new RangeError('init["status"] must be in the range of 200 to 599, inclusive.');
    if (type !== null) {
      const h = headers instanceof LightHeaders ? headers : new LightHeaders(headers as LightHeadersInit);
      if (!h.has('content-type')) h.set('content-type', type);
      headers = h;
    }
    this.#s = { cached, status, body: kept, headers, stream: null };
    this.#statusText = statusText;
    if (!cached) platformContentType(this.#s);
  }

  /** Read or rebuilt: from now on it is written the way a platform Response is. */
  #materialize(): LightResponseState {
    const s = this.#s;
    if (s.cached) {
      s.cached = false;
      platformContentType(s);
    }
    return s;
  }

  static json(data: unknown, init?: LightResponseInit): LightResponse {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeError('The data is not JSON serializable');
    let headers: LightHeaders | Record<string, string>;
    if (init?.headers) {
      headers = new LightHeaders(init.headers as LightHeadersInit);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    } else headers = { 'content-type': 'application/json' };
    return new LightResponse(text, { status: init?.status ?? 200, statusText: init?.statusText, headers });
  }

  static redirect(url: string | URL, status = 302): LightResponse {
    if (![301, 302, 303, 307, 308].includes(status)) throw new RangeError('Invalid status code');
    return new LightResponse(null, { status, headers: { location: new URL(String(url)).href } });
  }

  static error(): LightResponse {
    throw new TypeError('Response.error() is not supported by this server');
  }

  /** The writer's view (not part of the Fetch API). */
  static state(res: LightResponse): LightResponseState {
    return res.#s;
  }

  get status(): number {
    return this.#s.status;
  }

  get ok(): boolean {
    return this.#s.status >= 200 && this.#s.status < 300;
  }

  get statusText(): string {
    return this.#statusText;
  }

  get headers(): LightHeaders {
    const s = this.#s;
    if (s.headers instanceof LightHeaders) return s.headers;
    const live = new LightHeaders(
      (s.headers as LightHeadersInit | undefined) ??
        (s.body === null ? undefined : { 'content-type': DEFAULT_CONTENT_TYPE }),
    );
    s.headers = live;
    return live;
  }

  get body(): ReadableStream<Uint8Array> | null {
    const s = this.#materialize();
    if (s.body === null) return null;
    s.stream ??= toStream(s.body);
    return s.stream;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  get redirected(): boolean {
    return false;
  }

  get type(): string {
    return 'default';
  }

  get url(): string {
    return '';
  }

  #take(): RawBody | null {
    if (this.#used) throw bodyUnusable();
    this.#used = true;
    const s = this.#materialize();
    return s.stream ?? s.body;
  }

  async text(): Promise<string> {
    return readText(this.#take());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await readText(this.#take()));
  }

  async bytes(): Promise<Uint8Array> {
    return readBytes(this.#take());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return toArrayBuffer(await readBytes(this.#take()));
  }

  async blob(): Promise<Blob> {
    const type = this.headers.get('content-type') ?? '';
    return new Blob([(await readBytes(this.#take())) as Uint8Array<ArrayBuffer>], { type });
  }

  async formData(): Promise<never> {
    throw new TypeError('Response.formData() is not supported by this server');
  }

  clone(): LightResponse {
    const s = this.#s;
    if (this.#used) throw bodyUnusable();
    let body = s.stream ?? s.body;
    if (
      body !== null &&
      typeof body !== 'string' &&
      !(body instanceof Uint8Array) &&
      !(body instanceof Blob)
    ) {
      const [a, b] = body.tee();
      s.body = a;
      s.stream = s.stream ? a : null;
      body = b;
    }
    return new LightResponse(body, { status: s.status, statusText: this.#statusText, headers: this.headers });
  }

  get [Symbol.toStringTag](): string {
    return 'Response';
  }
}
