// A minimal ustar writer/reader for state backups: a few regular files in, a `.tar.gz` out,
// streamed through node:zlib. The reader accepts only the expected regular-file members
// (plain names, no paths, no links, no duplicates): an archive can never write elsewhere.
import {
  closeSync,
  createReadStream,
  createWriteStream,
  fstatSync,
  fsyncSync,
  openSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';

const BLOCK = 512;
const OCTAL_SIZE_LIMIT = 8 ** 11;

export interface TarMember {
  /** Name inside the archive (a plain file name). */
  name: string;
  /** File on disk to copy in. */
  path: string;
}

function writeString(buf: Buffer, offset: number, length: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > length) throw new Error(`tar field too long: ${text}`);
  bytes.copy(buf, offset);
}

function writeOctal(buf: Buffer, offset: number, length: number, value: number): void {
  writeString(buf, offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
}

/** Sizes of 8 GiB and more use the GNU base-256 encoding. */
function writeSize(buf: Buffer, offset: number, size: number): void {
  if (size < OCTAL_SIZE_LIMIT) {
    writeOctal(buf, offset, 12, size);
    return;
  }
  buf[offset] = 0x80;
  let v = BigInt(size);
  for (let i = 11; i >= 1; i--) {
    buf[offset + i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

function checksum(header: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return sum;
}

function header(name: string, size: number, mtimeSeconds: number): Buffer {
  if (!isPlainName(name)) throw new Error(`tar member name must be a plain file name: ${name}`);
  const h = Buffer.alloc(BLOCK);
  writeString(h, 0, 100, name);
  writeOctal(h, 100, 8, 0o600);
  writeOctal(h, 108, 8, 0);
  writeOctal(h, 116, 8, 0);
  writeSize(h, 124, size);
  writeOctal(h, 136, 12, Math.floor(mtimeSeconds));
  h[156] = 0x30; // '0': regular file
  writeString(h, 257, 6, 'ustar\0');
  writeString(h, 263, 2, '00');
  writeString(h, 148, 8, `${checksum(h).toString(8).padStart(6, '0')}\0 `);
  return h;
}

function isPlainName(name: string): boolean {
  return /^[A-Za-z0-9._-]+$/.test(name) && name !== '.' && name !== '..';
}

async function* tarStream(members: TarMember[]): AsyncGenerator<Buffer> {
  for (const m of members) {
    const fd = openSync(m.path, 'r');
    let size: number;
    let mtime: number;
    try {
      const st = fstatSync(fd);
      size = st.size;
      mtime = st.mtimeMs / 1000;
    } finally {
      closeSync(fd);
    }
    yield header(m.name, size, mtime);
    let written = 0;
    for await (const chunk of createReadStream(m.path)) {
      const buf = chunk as Buffer;
      const take = Math.min(buf.length, size - written);
      if (take > 0) yield take === buf.length ? buf : buf.subarray(0, take);
      written += take;
    }
    if (written !== size) throw new Error(`${m.path} changed size while archiving`);
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad) yield Buffer.alloc(pad);
  }
  yield Buffer.alloc(BLOCK * 2);
}

/** Writes `dest` (mode 0600) as a gzip-compressed ustar archive of `members`. */
export async function writeTarGz(dest: string, members: TarMember[]): Promise<void> {
  await pipeline(Readable.from(tarStream(members)), createGzip(), createWriteStream(dest, { mode: 0o600 }));
}

function readOctal(buf: Buffer, offset: number, length: number): number {
  if ((buf[offset]! & 0x80) !== 0) {
    let v = 0n;
    for (let i = 1; i < length; i++) v = (v << 8n) | BigInt(buf[offset + i]!);
    return Number(v);
  }
  const text = buf
    .toString('latin1', offset, offset + length)
    .replace(/[\0 ]+$/g, '')
    .trim();
  return text === '' ? 0 : Number.parseInt(text, 8);
}

function readName(buf: Buffer, offset: number, length: number): string {
  const end = buf.indexOf(0, offset);
  return buf.toString('utf8', offset, end < 0 || end > offset + length ? offset + length : end);
}

/**
 * Extracts the members named in `allowed` into `outDir`; any other member (other names,
 * directories, links, paths) fails the whole read. Returns the extracted names.
 */
export async function readTarGz(
  src: string,
  outDir: string,
  allowed: ReadonlySet<string>,
): Promise<string[]> {
  const extracted: string[] = [];
  let pending: Buffer = Buffer.alloc(0);
  let current: { name: string; fd: number; remaining: number; pad: number } | null = null;
  let zeroBlocks = 0;
  let ended = false;

  const closeCurrent = () => {
    if (!current) return;
    fsyncSync(current.fd);
    closeSync(current.fd);
    extracted.push(current.name);
    current = null;
  };

  try {
    for await (const chunk of createReadStream(src).pipe(createGunzip())) {
      pending = pending.length ? Buffer.concat([pending, chunk as Buffer]) : (chunk as Buffer);
      for (;;) {
        if (ended) break;
        if (current) {
          const c: { name: string; fd: number; remaining: number; pad: number } = current;
          if (c.remaining > 0) {
            if (pending.length === 0) break;
            const take = Math.min(c.remaining, pending.length);
            writeSync(c.fd, pending, 0, take);
            c.remaining -= take;
            pending = pending.subarray(take);
            continue;
          }
          if (pending.length < c.pad) break;
          pending = pending.subarray(c.pad);
          closeCurrent();
          continue;
        }
        if (pending.length < BLOCK) break;
        const h = pending.subarray(0, BLOCK);
        pending = pending.subarray(BLOCK);
        if (h.every((b) => b === 0)) {
          if (++zeroBlocks === 2) ended = true;
          continue;
        }
        zeroBlocks = 0;
        if (readOctal(h, 148, 8) !== checksum(h)) throw new Error('corrupt archive (bad header checksum)');
        const name = readName(h, 0, 100);
        const type = h[156];
        const prefix = readName(h, 345, 155);
        if (prefix || !isPlainName(name) || !allowed.has(name))
          throw new Error(`unexpected archive member '${prefix ? `${prefix}/` : ''}${name}'`);
        if (type !== 0x30 && type !== 0) throw new Error(`archive member '${name}' is not a regular file`);
        if (extracted.includes(name)) throw new Error(`archive member '${name}' appears twice`);
        const size = readOctal(h, 124, 12);
        current = {
          name,
          fd: openSync(join(outDir, name), 'wx', 0o600),
          remaining: size,
          pad: (BLOCK - (size % BLOCK)) % BLOCK,
        };
      }
    }
    if (current) throw new Error('truncated archive');
  } finally {
    if (current) closeSync((current as { fd: number }).fd);
  }
  return extracted;
}
