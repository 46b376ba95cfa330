// The one SHA-256 (src/util/hash.ts): FIPS 180-4 vectors (the schedule engine's former own
// implementation's vectors, kept), UTF-8 text, and bytes agreeing with text and node:crypto.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Digest, sha256Hex } from '../../src/util/hash.ts';

describe('sha256', () => {
  it('matches the FIPS 180-4 examples and long inputs', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(sha256Hex('a'.repeat(1000))).toBe(
      '41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3',
    );
    expect(sha256Hex('é')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
    expect(sha256Hex('minute\nжоб-1')).toBe(
      '7f9f54413a8f96e60905c0b2bf8cfe33ade63f1566fa2ffbb2a4740b301c767c',
    );
  });

  it('hashes bytes exactly as their text and as node:crypto does', () => {
    const enc = new TextEncoder();
    for (const text of [
      '',
      'abc',
      'minute\nжоб-1',
      'x'.repeat(55),
      'x'.repeat(56),
      'y'.repeat(64),
      '😀'.repeat(40),
    ])
      expect(sha256Hex(enc.encode(text))).toBe(sha256Hex(text));
    const bytes = new Uint8Array(200_003).map((_, i) => (i * 31 + 7) & 0xff);
    expect(sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
    // A view into a larger buffer hashes only its own bytes.
    const view = bytes.subarray(10, 90);
    expect(sha256Hex(view)).toBe(createHash('sha256').update(view).digest('hex'));
  });

  it('returns the 32-byte digest behind the hex', () => {
    const d = sha256Digest('abc');
    expect(d).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(d).toString('hex')).toBe(sha256Hex('abc'));
  });
});
