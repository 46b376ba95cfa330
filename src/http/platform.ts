// Installing the light Headers/Request/Response as the process's globals, and reaching the
// platform's own classes afterwards. Node defines its fetch classes as lazy getters that load the
// bundled undici on first read (issue 23: 3-5 MB of RSS on a tour node, 7-12 MB in a bare one); the
// replacement reads no getter, so undici loads only if something calls fetch() or asks here.
const NAMES = ['Headers', 'Request', 'Response'] as const;
type Name = (typeof NAMES)[number];

const saved = new Map<Name, PropertyDescriptor>();
let installed = false;

/**
 * Makes `Headers`, `Request` and `Response` the light classes for the whole process (what Hono
 * builds its responses with). Idempotent. fetch() keeps working: it returns platform Responses
 * and accepts the light Headers (any iterable of pairs) as its headers.
 */
export function installLightGlobals(classes: Record<Name, unknown>): void {
  if (installed) return;
  installed = true;
  for (const name of NAMES) {
    const d = Object.getOwnPropertyDescriptor(globalThis, name);
    if (d) saved.set(name, d);
    Object.defineProperty(globalThis, name, {
      value: classes[name],
      writable: true,
      configurable: true,
      enumerable: false,
    });
  }
}

/** The platform's own class (loads undici on Node when it was not loaded yet). */
export function platformClass(name: Name): unknown {
  const d = saved.get(name);
  if (!d) return (globalThis as Record<string, unknown>)[name];
  return d.get ? d.get.call(globalThis) : d.value;
}
