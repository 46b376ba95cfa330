// The only globals the shared model may use: the timer and abort primitives and TextEncoder, which Node and
// browsers both provide. src/dashboard/tsconfig.json type-checks the model with these and nothing else (no DOM,
// no Node), so a stray `window`, `localStorage`, `fetch` or `node:` import fails `npm run check`. The main and
// the browser tsconfig leave this file out and use their own, richer declarations.
declare function setTimeout(handler: () => void, ms?: number): unknown;
declare function clearTimeout(id: unknown): void;

interface AbortSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

declare class TextEncoder {
  encode(input?: string): Uint8Array;
}
