// The environment frame of the spawner protocol (spawner.pl): `V envc ("K=V")*`. A spawner
// keeps the last environment it was sent and gives it to every process it starts after it, so a
// herd of jobs with the same environment sends (and the spawner sets) it once, not once per job.
// Enumerating process.env is the costly part of encoding (each variable is a call into the
// runtime), so the frame of one environment object is built once per turn of the event loop: a
// herd's launches in one scheduler tick or pacer slice share it, and a variable the daemon sets
// is seen from the next turn on.

/** The frame for `env` (length prefix included); null when a variable holds a NUL byte (Node's spawn rejects that itself). */
export function envFrame(env: NodeJS.ProcessEnv): Buffer | null {
  if (cached && cached.env === env) return cached.frame;
  const frame = encodeEnv(env);
  cached = { env, frame };
  if (!clearing) {
    clearing = true;
    setImmediate(() => {
      clearing = false;
      cached = null;
    }).unref();
  }
  return frame;
}

let cached: { env: NodeJS.ProcessEnv; frame: Buffer | null } | null = null;
let clearing = false;

function encodeEnv(env: NodeJS.ProcessEnv): Buffer | null {
  const entries: string[] = [];
  let size = 1 + 4;
  for (const key in env) {
    const value = env[key];
    if (value === undefined) continue;
    const entry = `${key}=${value}`;
    if (entry.includes('\0')) return null;
    entries.push(entry);
    size += 4 + Buffer.byteLength(entry, 'utf8');
  }
  const out = Buffer.allocUnsafe(4 + size);
  let o = out.writeUInt32BE(size, 0);
  o += out.write('V', o, 'latin1');
  o = out.writeUInt32BE(entries.length, o);
  for (const entry of entries) {
    const n = out.write(entry, o + 4, 'utf8');
    out.writeUInt32BE(n, o);
    o += 4 + n;
  }
  return out;
}
