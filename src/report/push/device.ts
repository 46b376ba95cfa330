// A paired device (spec 10 §6.2) and the registry interface both homes implement.
import { randomBytes } from 'node:crypto';

export interface PushDevice {
  id: string;
  name: string;
  platform: string;
  /** Canonical base64 of the 32-byte X25519 public key. */
  publicKey: string;
  pushToken: string;
  /** UTC ISO-8601, whole seconds. */
  createdAt: string;
  /** The label of the token that paired it, or null. */
  createdBy: string | null;
}

export interface DeviceRegistry {
  /** Every device, oldest pairing first. */
  list(): Promise<PushDevice[]>;
  /** Adds the device, or (same public key) updates its name, platform and token. */
  put(device: PushDevice): Promise<void>;
  remove(id: string): Promise<boolean>;
  /** The collapse salt (32 hex), made and kept on first use. */
  salt(): Promise<string>;
}

export const newSalt = (): string => randomBytes(16).toString('hex');

export function byCreatedAt(devices: PushDevice[]): PushDevice[] {
  return [...devices].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}
