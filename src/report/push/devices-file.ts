// The single-node device registry (spec 10 §6.2): one JSON file,
// `{"version":1,"devices":[…],"collapseSalt":"<32 hex>"}`. Every change writes a unique 0600 temp
// file beside it and renames it into place, so a reader never sees half a file; a file that does
// not parse is never overwritten (it may hold pairings an operator wants back), and temp files a
// crash left behind are swept once they are a day old.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { errorText } from '../../util/errors.ts';
import { byCreatedAt, type DeviceRegistry, newSalt, type PushDevice } from './device.ts';

interface FileBody {
  version: 1;
  devices: PushDevice[];
  collapseSalt: string;
}

const DAY_MS = 86_400_000;

export class DevicesFile implements DeviceRegistry {
  /** Changes run one at a time: each reads the file its predecessor wrote. */
  private queue: Promise<unknown> = Promise.resolve();
  private swept = false;

  constructor(
    readonly path: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The file's content; a missing file is an empty registry, an unparsable one an error. */
  private async read(): Promise<FileBody | null> {
    let text: string;
    try {
      text = await fs.readFile(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new Error(`push: cannot read the device registry ${this.path}: ${errorText(e)}`);
    }
    try {
      const body = JSON.parse(text) as Partial<FileBody>;
      if (body?.version !== 1 || !Array.isArray(body.devices) || typeof body.collapseSalt !== 'string')
        throw new Error('not a version 1 registry with devices and collapseSalt');
      return body as FileBody;
    } catch (e) {
      throw new Error(
        `push: the device registry ${this.path} is not valid (left untouched): ${errorText(e)}`,
      );
    }
  }

  private async write(body: FileBody): Promise<void> {
    await this.sweep();
    const temp = join(dirname(this.path), `.${basename(this.path)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await fs.writeFile(temp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      await fs.rename(temp, this.path);
    } catch (e) {
      await fs.rm(temp, { force: true });
      throw e;
    }
  }

  /** Removes this file's temp files older than a day (once per process). */
  private async sweep(): Promise<void> {
    if (this.swept) return;
    this.swept = true;
    const prefix = `.${basename(this.path)}.`;
    const dir = dirname(this.path);
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
      const st = await fs.stat(join(dir, name)).catch(() => null);
      if (st && this.now() - st.mtimeMs > DAY_MS) await fs.rm(join(dir, name), { force: true });
    }
  }

  /** Reads, changes and writes the file, after every earlier change. */
  private change<T>(edit: (body: FileBody) => { result: T; write: boolean }): Promise<T> {
    const run = this.queue.then(async () => {
      const body = (await this.read()) ?? { version: 1 as const, devices: [], collapseSalt: newSalt() };
      const { result, write } = edit(body);
      if (write) await this.write(body);
      return result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  async list(): Promise<PushDevice[]> {
    return byCreatedAt((await this.read())?.devices ?? []);
  }

  put(device: PushDevice): Promise<void> {
    return this.change((body) => {
      body.devices = [...body.devices.filter((d) => d.id !== device.id), device];
      return { result: undefined, write: true };
    });
  }

  remove(id: string): Promise<boolean> {
    return this.change((body) => {
      const before = body.devices.length;
      body.devices = body.devices.filter((d) => d.id !== id);
      const removed = body.devices.length < before;
      return { result: removed, write: removed };
    });
  }

  async salt(): Promise<string> {
    const body = await this.read();
    if (body) return body.collapseSalt;
    return this.change((b) => ({ result: b.collapseSalt, write: true }));
  }
}
