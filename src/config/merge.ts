// The deep merge of spec 01 §1.5, used for built-ins -> includes' defaults -> defaults -> job.
// Loaded configs are never mutated, so the result shares every untouched branch with its
// inputs: merging 3,000 jobs over one defaults map copies only what each job overrides.

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Merge lists of maps by one key: first position kept, later value wins, new keys appended. */
function mergeByKey(base: unknown[], over: unknown[], key: string, whole: boolean): unknown[] {
  const out = new Map<unknown, unknown>();
  for (const item of [...base, ...over]) {
    const id = isObj(item) ? item[key] : item;
    const prev = out.get(id);
    out.set(id, !whole && isObj(prev) && isObj(item) ? { ...prev, ...item } : item);
  }
  return [...out.values()];
}

export function mergeConfig<T>(base: T, over: unknown): T {
  if (!isObj(base) || !isObj(over)) return (over === undefined ? base : over) as T;
  const out: Obj = { ...base };
  for (const [key, o] of Object.entries(over)) {
    const b = out[key];
    if (!(key in out)) out[key] = o;
    else if (isObj(b) && isObj(o)) out[key] = mergeConfig(b, o);
    else if (isObj(b) && o === null) {
      // An empty YAML value never wipes a section.
    } else if (Array.isArray(b) && Array.isArray(o)) {
      if (key === 'environment') out[key] = mergeByKey(b, o, 'key', false);
      else if (key === 'secrets') out[key] = mergeByKey(b, o, 'name', true);
      else if (key === 'fingerprint') out[key] = o;
      else out[key] = [...b, ...o];
    } else out[key] = o;
  }
  return out as T;
}
