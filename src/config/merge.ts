// The deep merge of spec 01 §1.5, used for built-ins -> includes' defaults -> defaults -> job.

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function clone<T>(v: T): T {
  if (Array.isArray(v)) return v.map(clone) as T;
  if (isObj(v)) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) out[k] = clone(x);
    return out as T;
  }
  return v;
}

/** Merge lists of maps by one key: first position kept, later value wins, new keys appended. */
function mergeByKey(base: unknown[], over: unknown[], key: string, whole: boolean): unknown[] {
  const out = new Map<unknown, unknown>();
  for (const item of [...base, ...over]) {
    const id = isObj(item) ? item[key] : item;
    const prev = out.get(id);
    if (prev !== undefined && isObj(prev) && isObj(item) && !whole) out.set(id, { ...prev, ...clone(item) });
    else out.set(id, clone(item));
  }
  return [...out.values()];
}

export function mergeConfig<T>(base: T, over: unknown): T {
  if (!isObj(base) || !isObj(over)) return (over === undefined ? clone(base) : clone(over)) as T;
  const out: Obj = clone(base);
  for (const [key, o] of Object.entries(over)) {
    const b = out[key];
    if (!(key in out)) out[key] = clone(o);
    else if (isObj(b) && isObj(o)) out[key] = mergeConfig(b, o);
    else if (isObj(b) && o === null) {
      // An empty YAML value never wipes a section.
    } else if (Array.isArray(b) && Array.isArray(o)) {
      if (key === 'environment') out[key] = mergeByKey(b, o, 'key', false);
      else if (key === 'secrets') out[key] = mergeByKey(b, o, 'name', true);
      else if (key === 'fingerprint') out[key] = clone(o);
      else out[key] = [...b, ...clone(o)];
    } else out[key] = clone(o);
  }
  return out as T;
}
