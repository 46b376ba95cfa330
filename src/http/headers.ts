// A Headers class with the Fetch standard's observable behaviour (lower-cased names, values
// trimmed, iteration sorted by name with repeated values joined by ", " except set-cookie), small
// enough that serving a request does not load Node's bundled undici (issue 23).
const VALID_NAME = /^[!#$%&'*+\-.^_`|~\dA-Za-z]+$/;
const FORBIDDEN_VALUE = /[\0\r\n]/;
const isHttpWhitespace = (code: number) => code === 9 || code === 10 || code === 13 || code === 32;

function normalizeValue(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isHttpWhitespace(value.charCodeAt(start))) start++;
  while (end > start && isHttpWhitespace(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function checkName(name: string): string {
  const n = String(name);
  if (!VALID_NAME.test(n)) throw new TypeError(`Headers: invalid header name: ${n}`);
  return n.toLowerCase();
}

function checkValue(value: string): string {
  const v = normalizeValue(String(value));
  if (FORBIDDEN_VALUE.test(v)) throw new TypeError(`Headers: invalid header value: ${JSON.stringify(v)}`);
  return v;
}

/** Anything iterable as [name, value] pairs, or a plain record (the Fetch standard's HeadersInit). */
export type LightHeadersInit =
  | Iterable<readonly [string, string]>
  | Iterable<readonly string[]>
  | Record<string, string | readonly string[]>;

export class LightHeaders {
  /** Lower-cased name -> values in append order (joined on read, kept apart for set-cookie). */
  readonly #map = new Map<string, string[]>();

  constructor(init?: LightHeadersInit | null) {
    if (init === undefined || init === null) return;
    if (typeof init !== 'object') throw new TypeError('Headers: init must be an object');
    const iterator = (init as Iterable<unknown>)[Symbol.iterator];
    if (typeof iterator === 'function') {
      for (const pair of init as Iterable<readonly string[]>) {
        if (typeof pair !== 'object' || pair === null || pair.length !== 2)
          throw new TypeError('Headers: each header must be a [name, value] pair');
        this.append(pair[0]!, pair[1]!);
      }
      return;
    }
    for (const [k, v] of Object.entries(init as Record<string, string | readonly string[]>)) {
      if (Array.isArray(v)) for (const one of v) this.append(k, one);
      else this.append(k, v as string);
    }
  }

  append(name: string, value: string): void {
    const key = checkName(name);
    const v = checkValue(value);
    const list = this.#map.get(key);
    if (list) list.push(v);
    else this.#map.set(key, [v]);
  }

  set(name: string, value: string): void {
    this.#map.set(checkName(name), [checkValue(value)]);
  }

  delete(name: string): void {
    this.#map.delete(checkName(name));
  }

  has(name: string): boolean {
    return this.#map.has(checkName(name));
  }

  get(name: string): string | null {
    const key = checkName(name);
    const list = this.#map.get(key);
    if (!list) return null;
    return list.length === 1 ? list[0]! : list.join(key === 'cookie' ? '; ' : ', ');
  }

  getSetCookie(): string[] {
    return [...(this.#map.get('set-cookie') ?? [])];
  }

  /** [name, value] pairs sorted by name; set-cookie values one pair each, others joined. */
  *entries(): IterableIterator<[string, string]> {
    const names = [...this.#map.keys()].sort();
    for (const name of names) {
      const list = this.#map.get(name);
      if (!list) continue;
      if (name === 'set-cookie') for (const v of list) yield [name, v];
      else yield [name, list.length === 1 ? list[0]! : list.join(name === 'cookie' ? '; ' : ', ')];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): IterableIterator<string> {
    for (const [, v] of this.entries()) yield v;
  }

  forEach(callback: (value: string, name: string, parent: LightHeaders) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) callback.call(thisArg, v, k, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}
