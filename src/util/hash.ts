// SHA-256 for every caller (schedule H seeds, artifact digests, the dashboard bundle):
// @noble/hashes is synchronous, audited and runs in the browser, unlike node:crypto.
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';

// One encoder for every call: noble's utf8ToBytes builds a new TextEncoder and copies its output,
// a fifth of the cost of hashing a short H-seed string (schedule.cold_build_100k).
const encoder = new TextEncoder();

/** SHA-256 digest of bytes, or of a string's UTF-8 encoding. */
export function sha256Digest(data: string | Uint8Array): Uint8Array {
  return sha256(typeof data === 'string' ? encoder.encode(data) : data);
}

/** Lower-case hex of the SHA-256 digest of bytes, or of a string's UTF-8 encoding. */
export function sha256Hex(data: string | Uint8Array): string {
  return bytesToHex(sha256Digest(data));
}
