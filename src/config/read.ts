// Reads one config input (a YAML or crontab file, an include, an env_file) without ever blocking
// or ballooning: only regular files, at most MAX_CONFIG_FILE_BYTES each, strict UTF-8.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** Per-file cap. The largest real job sets are a few MB; this bounds a mistaken `/dev/zero`-like input. */
export const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024;

/** A read that failed for a reason the user must fix; `message` is ready for a config error. */
export class ConfigReadError extends Error {
  constructor(
    message: string,
    /** Where in the file the problem is (1-based), when it is inside the text. */
    readonly at?: { line: number; col: number },
  ) {
    super(message);
  }
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'a special file';
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * The text of a regular file. Opening is non-blocking, so a FIFO with no writer is refused
 * rather than waited on; the size is checked before reading and enforced while reading (a file
 * may grow, and some special files report size 0). OS errors are thrown unchanged (callers
 * render them in the reference's `[Errno N] ...` shape).
 */
export function readConfigFile(path: string, limit = MAX_CONFIG_FILE_BYTES): string {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) {
      const err = new Error(`EISDIR: illegal operation on a directory, read`) as NodeJS.ErrnoException;
      err.code = 'EISDIR';
      err.path = path;
      throw err;
    }
    if (!st.isFile()) throw new ConfigReadError(`'${path}' is ${kindOf(st)}, not a regular file`);
    if (st.size > limit) throw new ConfigReadError(tooLarge(path, limit));
    // Read to the end rather than trusting st.size: a file may grow, and some report size 0.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.max(64 * 1024, Math.min(st.size + 1, limit + 1) - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > limit) throw new ConfigReadError(tooLarge(path, limit));
      chunks.push(chunk.subarray(0, n));
    }
    return decode(path, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
  } finally {
    closeSync(fd);
  }
}

function tooLarge(path: string, limit: number): string {
  return `'${path}' is larger than ${limit / (1024 * 1024)} MiB, the limit for one config file`;
}

function decode(path: string, bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    const bad = firstInvalidUtf8(bytes);
    const before = new TextDecoder('utf-8').decode(bytes.subarray(0, bad));
    const lineStart = before.lastIndexOf('\n') + 1;
    const at = { line: before.split('\n').length, col: before.length - lineStart + 1 };
    throw new ConfigReadError(`invalid UTF-8 (byte 0x${bytes[bad]!.toString(16)}) in '${path}'`, at);
  }
}

/** Index of the first byte that does not start or continue a well-formed UTF-8 sequence. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let need: number;
    let min: number;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    let cp = b & (0xff >> (need + 2));
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return bytes.length;
}
