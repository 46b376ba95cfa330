// Which web listeners serve anyone who can reach them (spec 07 §1.3, spec 10 §3.2): the test that
// gates `/mcp` and `push:` alike. Pure.

/** The parts of the `web:` section the test reads. */
export interface ListenerSection {
  listen: string[];
  authToken?: unknown;
  authTokens?: unknown[] | null;
  tls?: { clientCa?: string | null } | null;
}

const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * A listen address only this host can reach (spec 07 §1.3): `unix://…`, `localhost`, 127.0.0.0/8 or
 * ::1 (brackets accepted). A scheme-less address is read as `http://<addr>`.
 */
export function isLocalListen(text: string): boolean {
  if (text.startsWith('unix://')) return true;
  let host: string;
  try {
    host = new URL(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(text) ? text : `http://${text}`).hostname;
  } catch {
    return false;
  }
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return LOOPBACK_V4.test(bare) && bare.split('.').every((o) => Number(o) <= 255);
}

/**
 * The listen addresses that serve anyone who can reach them (spec 10 §3.2): none while a token is
 * configured; else every routable address except an https one that requires client certificates.
 */
export function openListeners(web: ListenerSection): string[] {
  const hasToken =
    (web.authToken !== null && web.authToken !== undefined) || (web.authTokens?.length ?? 0) > 0;
  if (hasToken) return [];
  const mtls = (l: string) => Boolean(web.tls?.clientCa) && l.startsWith('https://');
  return web.listen.filter((l) => !isLocalListen(l) && !mtls(l));
}
