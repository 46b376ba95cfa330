// Bodies of the light Request/Response: what a body may be, and reading one whole.
export type RawBody = string | Uint8Array | ReadableStream<Uint8Array> | Blob;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The raw form of a BodyInit, or null; `other` marks a kind the platform would stream. */
export function rawBody(body: unknown): { raw: RawBody | null; type: string | null; other: boolean } {
  if (body === null || body === undefined) return { raw: null, type: null, other: false };
  if (typeof body === 'string') return { raw: body, type: null, other: false };
  if (body instanceof Uint8Array) return { raw: body, type: null, other: false };
  if (body instanceof ArrayBuffer) return { raw: new Uint8Array(body), type: null, other: true };
  if (ArrayBuffer.isView(body))
    return { raw: new Uint8Array(body.buffer, body.byteOffset, body.byteLength), type: null, other: true };
  if (body instanceof Blob) return { raw: body, type: body.type || null, other: false };
  if (body instanceof URLSearchParams)
    return { raw: body.toString(), type: 'application/x-www-form-urlencoded;charset=UTF-8', other: true };
  if (typeof (body as ReadableStream).getReader === 'function')
    return { raw: body as ReadableStream<Uint8Array>, type: null, other: false };
  throw new TypeError('this server supports string, binary, Blob and ReadableStream bodies');
}

/** A stream over a raw body (a stream is returned as it is). */
export function toStream(raw: RawBody): ReadableStream<Uint8Array> {
  if (typeof raw !== 'string' && !(raw instanceof Uint8Array) && !(raw instanceof Blob)) return raw;
  if (raw instanceof Blob) return raw.stream() as ReadableStream<Uint8Array>;
  const bytes = typeof raw === 'string' ? encoder.encode(raw) : raw;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

export async function readStream(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The whole body as bytes. */
export async function readBytes(raw: RawBody | null): Promise<Uint8Array> {
  if (raw === null) return new Uint8Array(0);
  if (typeof raw === 'string') return encoder.encode(raw);
  if (raw instanceof Uint8Array) return raw;
  if (raw instanceof Blob) return new Uint8Array(await raw.arrayBuffer());
  return readStream(raw);
}

export async function readText(raw: RawBody | null): Promise<string> {
  if (typeof raw === 'string') return raw;
  return decoder.decode(await readBytes(raw));
}

/** A copy in a fresh ArrayBuffer (a view's buffer may be shared, e.g. Buffer's pool). */
export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

export function bodyUnusable(): TypeError {
  return new TypeError('Body is unusable: Body has already been read');
}
