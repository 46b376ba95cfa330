// The sealed box (spec 10 §6.3): libsodium's crypto_box_seal to a device's X25519 key, a fresh
// ephemeral key pair each time, so only the device's private key opens it. libsodium-wrappers is
// the official libsodium build for JavaScript; it is imported on first use, so a daemon without a
// `push:` section never loads it (nor its WebAssembly heap).

type Sodium = typeof import('libsodium-wrappers');

let loading: Promise<Sodium> | null = null;

async function sodium(): Promise<Sodium> {
  loading ??= import('libsodium-wrappers').then(async (m) => {
    const lib = (m as unknown as { default?: Sodium }).default ?? m;
    await lib.ready;
    return lib;
  });
  return loading;
}

/** The plaintext sealed to `publicKey` (32 raw bytes); throws when the key is unusable. */
export async function seal(plaintext: Uint8Array, publicKey: Uint8Array): Promise<Uint8Array> {
  const lib = await sodium();
  return lib.crypto_box_seal(plaintext, publicKey);
}

/** Whether a trial seal to the key succeeds (libsodium refuses low-order points such as all zeros). */
export async function usablePublicKey(publicKey: Uint8Array): Promise<boolean> {
  try {
    await seal(new Uint8Array([0]), publicKey);
    return true;
  } catch {
    return false;
  }
}
