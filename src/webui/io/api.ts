// The dashboard's HTTP client: the same JSON API a script uses, with the optional bearer token from
// sessionStorage. Any 401 is reported through `onUnauthorized` so the token prompt can open.
import { errorText } from '../../dashboard/format.ts';
import { decodeLogLine, type LogLine, SseParser } from '../../dashboard/sse.ts';

const TOKEN_KEY = 'cronstable_token';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(body || `HTTP ${status}`);
    this.name = 'HttpError';
  }
}

function readToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export class Api {
  private token: string | null = readToken();
  onUnauthorized: () => void = () => {};

  hasToken(): boolean {
    return this.token !== null && this.token !== '';
  }

  /** The token this browser holds (the pairing link carries it, spec 10 §6.5), or null. */
  storedToken(): string | null {
    return this.hasToken() ? this.token : null;
  }

  setToken(token: string | null): void {
    this.token = token === '' ? null : token;
    try {
      if (this.token === null) sessionStorage.removeItem(TOKEN_KEY);
      else sessionStorage.setItem(TOKEN_KEY, this.token);
    } catch {
      // storage disabled: keep the token in memory for this page
    }
  }

  private headers(accept?: string): Record<string, string> {
    const h: Record<string, string> = {};
    if (accept) h.Accept = accept;
    if (this.token) h.Authorization = `Bearer ${this.token}`;
    return h;
  }

  private async request(path: string, init: RequestInit & { accept?: string }): Promise<Response> {
    const res = await fetch(path, {
      ...init,
      cache: 'no-store',
      credentials: 'same-origin',
      headers: this.headers(init.accept),
    });
    if (res.status === 401) {
      this.onUnauthorized();
      throw new HttpError(401, 'unauthorized');
    }
    return res;
  }

  async json<T>(path: string, signal?: AbortSignal): Promise<T> {
    const res = await this.request(path, { accept: 'application/json', signal: signal ?? null });
    if (!res.ok) throw new HttpError(res.status, await res.text().catch(() => ''));
    return (await res.json()) as T;
  }

  async text(path: string, accept = 'text/plain'): Promise<string> {
    const res = await this.request(path, { accept });
    if (!res.ok) throw new HttpError(res.status, await res.text().catch(() => ''));
    return res.text();
  }

  /** POST with an empty body; resolves with the status and body text (409s are answers, not errors). */
  async post(path: string): Promise<{ ok: boolean; status: number; text: string }> {
    const res = await this.request(path, { method: 'POST' });
    return { ok: res.ok, status: res.status, text: await res.text().catch(() => '') };
  }

  /** POST a JSON body; resolves with the status and body text (409s are answers, not errors). */
  async postJson(path: string, body: unknown): Promise<{ ok: boolean; status: number; text: string }> {
    const res = await fetch(path, {
      method: 'POST',
      cache: 'no-store',
      credentials: 'same-origin',
      headers: { ...this.headers('application/json'), 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status === 401) {
      this.onUnauthorized();
      throw new HttpError(401, 'unauthorized');
    }
    return { ok: res.ok, status: res.status, text: await res.text().catch(() => '') };
  }

  /** `.ics` links cannot carry a header, so the token rides in the query (accepted on `.ics` paths only). */
  icsHref(path: string): string {
    return this.token ? `${path}?token=${encodeURIComponent(this.token)}` : path;
  }

  /**
   * Tails `/jobs/{name}/logs` through a fetch stream. Calls `onLine` per line and `onEnd` once when the
   * stream ends (run finished, no output, or a network error). Abort with the signal.
   */
  tail(
    name: string,
    signal: AbortSignal,
    onLine: (line: LogLine) => void,
    onEnd: (reason: 'finished' | 'no-output' | 'error', detail?: string) => void,
  ): Promise<void> {
    return this.tailPath(`/jobs/${encodeURIComponent(name)}/logs`, signal, onLine, onEnd);
  }

  /** Tails any log SSE route of the same shape (job logs, DAG task logs). */
  async tailPath(
    path: string,
    signal: AbortSignal,
    onLine: (line: LogLine) => void,
    onEnd: (reason: 'finished' | 'no-output' | 'error', detail?: string) => void,
  ): Promise<void> {
    let ended = false;
    const end = (reason: 'finished' | 'no-output' | 'error', detail?: string): void => {
      if (!ended) {
        ended = true;
        onEnd(reason, detail);
      }
    };
    try {
      const res = await this.request(path, {
        accept: 'text/event-stream',
        signal,
      });
      if (!res.ok || res.body === null) {
        end('error', res.status === 404 ? 'no log stream for this job' : `HTTP ${res.status}`);
        return;
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = new SseParser();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const ev of parser.push(value)) {
          if (ev.event === 'line') {
            const line = decodeLogLine(ev.data);
            if (line !== null) onLine(line);
          } else if (ev.event === 'end') {
            let reason: 'finished' | 'no-output' = 'finished';
            try {
              if ((JSON.parse(ev.data || '{}') as { reason?: string }).reason === 'no-output')
                reason = 'no-output';
            } catch {
              // an end without a readable body is a plain end
            }
            end(reason);
            await reader.cancel().catch(() => {});
            return;
          }
        }
      }
      end('finished');
    } catch (err) {
      if (signal.aborted) return;
      end('error', errorText(err));
    }
  }
}
