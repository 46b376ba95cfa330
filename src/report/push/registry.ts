// Where paired devices live (spec 10 §6.2): the shared store (one kv entry per device in scope
// `pushdevice`, the collapse salt in `pushmeta`; the store's GC only ever removes run records, so
// neither is collected) or a local `devicesFile`. Both sit behind one small interface.
import type { Store } from '../../store/types.ts';
import { byCreatedAt, type DeviceRegistry, newSalt, type PushDevice } from './device.ts';
import { DevicesFile } from './devices-file.ts';

/** Every store call answers within this or fails (spec 10 §6.2). */
export const STORE_CALL_MS = 10_000;

export function bounded<T>(p: Promise<T>, ms = STORE_CALL_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the state store did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const DEVICE_SCOPE = 'pushdevice';
const META_SCOPE = 'pushmeta';
const SALT_KEY = 'collapseSalt';

class StoreRegistry implements DeviceRegistry {
  constructor(private readonly store: Store) {}

  async list(): Promise<PushDevice[]> {
    const entries = await bounded(this.store.kvList(DEVICE_SCOPE));
    return byCreatedAt(entries.map((e) => e.value as unknown as PushDevice));
  }

  async put(device: PushDevice): Promise<void> {
    await bounded(this.store.kvSet(DEVICE_SCOPE, device.id, device as unknown as Record<string, string>));
  }

  remove(id: string): Promise<boolean> {
    return bounded(this.store.kvDelete(DEVICE_SCOPE, id));
  }

  async salt(): Promise<string> {
    const found = await bounded(this.store.kvGet(META_SCOPE, SALT_KEY));
    if (typeof found?.value === 'string') return found.value;
    const salt = newSalt();
    await bounded(this.store.kvSet(META_SCOPE, SALT_KEY, salt));
    return salt;
  }
}

/** The registry the `push:` section names: its devicesFile when set, else the store. */
export function openRegistry(devicesFile: string | null, store: Store | null): DeviceRegistry | null {
  if (devicesFile) return new DevicesFile(devicesFile);
  return store ? new StoreRegistry(store) : null;
}
