// Polls a probe until it answers something other than null (a throw counts as "not yet"), or fails
// after `timeoutMs` naming what it waited for and the last error. The e2e tests' one waiting loop.
export async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | null>,
  everyMs = 150,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < end) {
    try {
      const v = await probe();
      if (v !== null) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
