// crc32 (IEEE) of a text's UTF-8 bytes: the deterministic catch-up jitter every node computes alike,
// for jobs (spec 03 §8.2) and DAGs (spec 09 §9.3).

export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of new TextEncoder().encode(text)) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}
