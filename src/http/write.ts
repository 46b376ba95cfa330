// Writing a Response (the light one, or a platform Response from fetch or a library) to a
// node:http ServerResponse. The wire format is @hono/node-server 2.1.9's, kept byte for byte
// (header order and spelling, when Content-Length is set and how, chunking): a light response
// that was never read takes node-server's "cached" path, anything else its platform path.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { ChunkStream, pipeChunks } from './chunk-stream.ts';
import { bodyWritten } from './collect-after.ts';
import { LightHeaders, type LightHeadersInit } from './headers.ts';
import { releaseWhenWritten } from './lent-chunks.ts';
import {
  DEFAULT_CONTENT_TYPE,
  LightResponse,
  type LightResponseState,
  type ResponseLike,
} from './response.ts';

/** node:http internals node-server relies on to let Node place Content-Length itself. */
type Http1Outgoing = ServerResponse & {
  _contentLength: number | null;
  _hasBody: boolean;
  useChunkedEncodingByDefault: boolean;
  _removedContLen: boolean;
};

type HeaderRecord = Record<string, string | string[] | number>;

interface HeadersLike {
  has(name: string): boolean;
  [Symbol.iterator](): Iterator<[string, string]>;
}

const isHeadersLike = (h: unknown): h is HeadersLike =>
  typeof h === 'object' && h !== null && !Array.isArray(h) && typeof (h as HeadersLike).has === 'function';

/** Lower-cased names in the Headers' (sorted) order; set-cookie values kept apart, last. */
export function outgoingHeaders(headers: HeadersLike, defaultType?: string): HeaderRecord {
  const res: HeaderRecord = {};
  const cookies: string[] = [];
  for (const [k, v] of headers as Iterable<[string, string]>)
    if (k === 'set-cookie') cookies.push(v);
    else res[k] = v;
  if (cookies.length > 0) res['set-cookie'] = cookies;
  if (defaultType) res['content-type'] ??= defaultType;
  return res;
}

function flushHeaders(outgoing: ServerResponse): void {
  if (outgoing.writable) outgoing.flushHeaders();
}

function trySetContentLength(outgoing: ServerResponse, status: number, length: number): boolean {
  const o = outgoing as Http1Outgoing;
  if (
    o._contentLength === null &&
    o._hasBody &&
    o.useChunkedEncodingByDefault &&
    !o._removedContLen &&
    status >= 200 &&
    status !== 204 &&
    status !== 304 &&
    !outgoing.hasHeader('content-length') &&
    !outgoing.hasHeader('transfer-encoding') &&
    !outgoing.hasHeader('trailer')
  ) {
    o._contentLength = length;
    return true;
  }
  return false;
}

function writeDefaultHeaders(outgoing: ServerResponse, status: number, length: number): void {
  if (trySetContentLength(outgoing, status, length))
    outgoing.writeHead(status, { 'Content-Type': DEFAULT_CONTENT_TYPE });
  else outgoing.writeHead(status, { 'Content-Type': DEFAULT_CONTENT_TYPE, 'Content-Length': length });
}

export function handleResponseError(e: unknown, outgoing: ServerResponse): void {
  const err = e instanceof Error ? e : new Error('unknown error', { cause: e });
  if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE')
    console.info('The user aborted a request.');
  else {
    console.error(e);
    if (!outgoing.headersSent) {
      (outgoing as Http1Outgoing)._contentLength = null;
      outgoing.writeHead(500, { 'Content-Type': 'text/plain' });
    }
    outgoing.end(`Error: ${err.message}`);
    outgoing.destroy(err);
  }
}

/**
 * Pipes a web stream into the response with backpressure; a closed socket cancels the stream. A lent
 * chunk goes back to its producer once written.
 */
function pipeReader(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  writable: ServerResponse,
  currentRead?: Promise<ReadableStreamReadResult<Uint8Array>>,
): Promise<void> {
  const cancel = (error?: unknown) => {
    reader.cancel(error).catch(() => {});
  };
  if (writable.destroyed) {
    cancel();
    return reader.closed;
  }
  writable.on('close', cancel);
  writable.on('error', cancel);
  let sent = 0;
  const fail = (error: unknown) => {
    if (error) writable.destroy(error as Error);
  };
  const onDrain = () => {
    reader.read().then(flow, fail);
  };
  function flow({ done, value }: ReadableStreamReadResult<Uint8Array>): void {
    try {
      if (done) {
        writable.end();
        return;
      }
      sent += value.byteLength;
      if (!writable.write(value, releaseWhenWritten(value))) writable.once('drain', onDrain);
      else reader.read().then(flow, fail);
    } catch (e) {
      fail(e);
    }
  }
  (currentRead ?? reader.read()).then(flow, fail);
  return reader.closed.finally(() => {
    bodyWritten(sent);
    writable.off('close', cancel);
    writable.off('error', cancel);
  });
}

function pipeStream(stream: ReadableStream<Uint8Array>, writable: ServerResponse): Promise<void> | undefined {
  if (stream.locked) throw new TypeError('ReadableStream is locked.');
  if (writable.destroyed) {
    stream.cancel().catch(() => {});
    return undefined;
  }
  const chunks = stream instanceof ChunkStream ? ChunkStream.take(stream) : null;
  if (chunks !== null) return pipeChunks(chunks, writable);
  return pipeReader(stream.getReader(), writable);
}

/** Ends the response with a body in memory (its length, in UTF-16 units for a string, counted). */
function endWith(outgoing: ServerResponse, body: string | Uint8Array): void {
  outgoing.end(body);
  bodyWritten(typeof body === 'string' ? body.length : body.byteLength);
}

function byteLength(body: unknown): number | undefined {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  if (body instanceof Blob) return body.size;
  return undefined;
}

/** node-server's path for a response it built itself and nobody read. */
export async function writeCached(s: LightResponseState, outgoing: ServerResponse): Promise<void> {
  const { status, body } = s;
  let header: LightResponseState['headers'] | HeaderRecord = s.headers;
  if (!header) {
    if (body === null) {
      outgoing.writeHead(status);
      outgoing.end();
    } else if (typeof body === 'string' || body instanceof Uint8Array) {
      writeDefaultHeaders(outgoing, status, byteLength(body)!);
      endWith(outgoing, body);
    } else if (body instanceof Blob) {
      writeDefaultHeaders(outgoing, status, body.size);
      endWith(outgoing, new Uint8Array(await body.arrayBuffer()));
    } else {
      outgoing.writeHead(status, { 'Content-Type': DEFAULT_CONTENT_TYPE });
      flushHeaders(outgoing);
      await pipeStream(body, outgoing)?.catch((e) => handleResponseError(e, outgoing));
    }
    return;
  }
  let hasContentLength = false;
  let plainHeaders = false;
  let canAutoLength = true;
  if (isHeadersLike(header)) {
    hasContentLength = header.has('content-length');
    header = outgoingHeaders(header, body === null ? undefined : DEFAULT_CONTENT_TYPE);
  } else if (Array.isArray(header)) {
    const h = new LightHeaders(header as LightHeadersInit);
    hasContentLength = h.has('content-length');
    header = outgoingHeaders(h, body === null ? undefined : DEFAULT_CONTENT_TYPE);
  } else {
    plainHeaders = true;
    for (const key in header) {
      if (key.length === 14 && key.toLowerCase() === 'content-length') {
        hasContentLength = true;
        break;
      }
      if (
        (key.length === 17 && key.toLowerCase() === 'transfer-encoding') ||
        (key.length === 7 && key.toLowerCase() === 'trailer')
      )
        canAutoLength = false;
    }
  }
  let record = header as HeaderRecord;
  if (!hasContentLength) {
    const length = byteLength(body);
    if (
      length !== undefined &&
      (!plainHeaders || !canAutoLength || !trySetContentLength(outgoing, status, length))
    ) {
      if (plainHeaders) record = { ...record };
      record['Content-Length'] = length;
    }
  }
  outgoing.writeHead(status, record as OutgoingHttpHeaders);
  if (body === null) outgoing.end();
  else if (typeof body === 'string' || body instanceof Uint8Array) endWith(outgoing, body);
  else if (body instanceof Blob) endWith(outgoing, new Uint8Array(await body.arrayBuffer()));
  else {
    flushHeaders(outgoing);
    await pipeStream(body, outgoing)?.catch((e) => handleResponseError(e, outgoing));
  }
}

/** A read that answers undefined when the chunk is not there within one microtask turn. */
function readWithoutBlocking<T>(read: Promise<T>): Promise<T | undefined> {
  return Promise.race([read, Promise.resolve().then(() => Promise.resolve(undefined))]);
}

/** node-server's path for any other Response: up to three eager reads to learn the length. */
async function writeResponseObject(res: ResponseLike, outgoing: ServerResponse): Promise<void> {
  const light = res instanceof LightResponse ? LightResponse.state(res) : null;
  const headers = res.headers as unknown as HeadersLike;
  // A light body already in memory: the outcome of the eager reads is known (one chunk, done).
  if (
    light &&
    light.stream === null &&
    (typeof light.body === 'string' || light.body instanceof Uint8Array)
  ) {
    const record = outgoingHeaders(headers, DEFAULT_CONTENT_TYPE);
    const length = byteLength(light.body)!;
    if (record['transfer-encoding'] !== 'chunked' && !('content-length' in record))
      record['content-length'] = length;
    outgoing.writeHead(res.status, record as OutgoingHttpHeaders);
    if (length > 0) outgoing.write(light.body);
    outgoing.end();
    bodyWritten(length);
    return;
  }
  const body = res.body;
  const record = outgoingHeaders(headers, body === null ? undefined : DEFAULT_CONTENT_TYPE);
  if (!body) {
    outgoing.writeHead(res.status, record as OutgoingHttpHeaders);
    outgoing.end();
    return;
  }
  const reader = body.getReader();
  const values: Uint8Array[] = [];
  let done = false;
  let current: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  if (record['transfer-encoding'] !== 'chunked') {
    let maxReads = 2;
    for (let i = 0; i < maxReads; i++) {
      current ||= reader.read();
      const chunk = await readWithoutBlocking(current);
      if (!chunk) {
        if (i === 1) {
          await new Promise((resolve) => setTimeout(resolve));
          maxReads = 3;
          continue;
        }
        break;
      }
      current = undefined;
      if (chunk.value) values.push(chunk.value);
      if (chunk.done) {
        done = true;
        break;
      }
    }
    if (done && !('content-length' in record))
      record['content-length'] = values.reduce((n, v) => n + v.length, 0);
  }
  outgoing.writeHead(res.status, record as OutgoingHttpHeaders);
  let eager = 0;
  for (const v of values) {
    eager += v.byteLength;
    outgoing.write(v, releaseWhenWritten(v));
  }
  bodyWritten(eager);
  if (done) outgoing.end();
  else {
    if (values.length === 0) flushHeaders(outgoing);
    await pipeReader(reader, outgoing, current);
  }
}

/** Whether the response can be written at once, without waiting on a body stream. */
export function immediatelyWritable(res: unknown): res is LightResponse {
  if (!(res instanceof LightResponse)) return false;
  const s = LightResponse.state(res);
  return s.cached && (s.body === null || typeof s.body === 'string' || s.body instanceof Uint8Array);
}

export async function writeResponse(res: ResponseLike, outgoing: ServerResponse): Promise<void> {
  if (res instanceof LightResponse) {
    const s = LightResponse.state(res);
    if (s.cached) return writeCached(s, outgoing);
  }
  return writeResponseObject(res, outgoing);
}
