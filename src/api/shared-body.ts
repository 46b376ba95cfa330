// A JSON body shared between requests (spec 10 §4.4, §4.10): built once, served to every caller for
// at most MAX_AGE_MS, and rebuilt at once after a local change (a run starts or ends, a slot gets
// its outcome, a pause changes, the config is reloaded, a manual start or cancel). Polling dashboards
// and conditional GETs then cost a comparison, not a rebuild of thousands of rows.
import { createHash } from 'node:crypto';
import { constants, gzipSync } from 'node:zlib';
import type { WebContext } from './context.ts';

export const SHARED_BODY_MAX_AGE_MS = 1000;

const enc = new TextEncoder();

/** One rendering: the bytes, their entity tag and, once asked for, their gzip. */
export interface SharedBody {
  bytes: Uint8Array;
  /** `"` + 32 lowercase hex + `"` (spec 10 §4.10). */
  tag: string;
  gzipped(): Uint8Array;
}

/** The tag of the form a body is compared by (its bytes, or a canonical form without countdowns). */
export function tagOf(data: Uint8Array | string): string {
  return `"${createHash('sha256').update(data).digest('hex').slice(0, 32)}"`;
}

export function sharedBody(bytes: Uint8Array, tag: string): SharedBody {
  let packed: Uint8Array | null = null;
  return {
    bytes,
    tag,
    gzipped() {
      packed ??= gzipSync(bytes, { level: constants.Z_BEST_SPEED });
      return packed;
    },
  };
}

/** A text as a shared body tagged by its own bytes. */
export function textBody(text: string): SharedBody {
  const bytes = enc.encode(text);
  return sharedBody(bytes, tagOf(bytes));
}

/** A JSON value as a shared body tagged by its own bytes. */
export function jsonBody(value: unknown): SharedBody {
  return textBody(JSON.stringify(value));
}

/**
 * Tells whether something rendered earlier still stands: it is younger than MAX_AGE_MS, the config it
 * saw is still the running one, and no local change happened since (a run started or ended, a slot
 * got its outcome, a pause changed).
 */
export class ChangeWatch {
  private generation = 0;
  private readonly detach: (() => void)[] = [];

  constructor(private readonly ctx: WebContext) {
    const bump = () => {
      this.generation++;
    };
    this.detach.push(
      ctx.scheduler.subscribe((e) => {
        if (e.type === 'run-started' || e.type === 'run-finished' || e.type === 'slot') bump();
      }),
      ctx.scheduler.pauses.onChange(bump),
    );
  }

  /** What a rendering made now depends on. */
  stamp(): Stamp {
    return { at: this.ctx.clock.now(), generation: this.generation, config: this.ctx.config() };
  }

  fresh(s: Stamp): boolean {
    const now = this.ctx.clock.now();
    return (
      s.generation === this.generation &&
      s.config === this.ctx.config() &&
      now >= s.at &&
      now - s.at < SHARED_BODY_MAX_AGE_MS
    );
  }

  close(): void {
    for (const d of this.detach.splice(0)) d();
  }
}

export interface Stamp {
  at: number;
  generation: number;
  config: unknown;
}

/** The newest rendering of one payload while the watch says it stands; `build` renders anew. */
export class SharedBodyCache<B extends SharedBody = SharedBody> {
  private current: { stamp: Stamp; body: B } | null = null;

  constructor(
    private readonly watch: ChangeWatch,
    private readonly build: () => B,
  ) {}

  get(): B {
    const c = this.current;
    if (c && this.watch.fresh(c.stamp)) return c.body;
    const stamp = this.watch.stamp();
    const body = this.build();
    this.current = { stamp, body };
    return body;
  }
}
