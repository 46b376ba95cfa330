// One POST to the relay (spec 10 §6.3): the relay body, the time limit, no retry. Credentials in
// `relay.url` travel as HTTP Basic (fetch refuses URLs that carry them) and never reach a log text.
import { redactUserinfo } from '../../config/push.ts';
import { describeFetchError } from '../fetcherr.ts';

export interface RelayBody {
  v: 1;
  device: string;
  ciphertext: string;
  collapseId: string;
  priority: 'time-sensitive' | 'passive';
  event: boolean;
}

/** The relay's answer: its status, or null with the reason it was not reached. */
export type RelayOutcome = { status: number | null; error: string | null };

/** Longest relay answer a log line quotes. */
const MAX_QUOTED = 512;

function target(relayUrl: string): { url: string; authorization: string | null } {
  const u = new URL(relayUrl);
  if (!u.username && !u.password) return { url: relayUrl, authorization: null };
  const basic = Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`);
  u.username = '';
  u.password = '';
  return { url: u.href, authorization: `Basic ${basic.toString('base64')}` };
}

/** Posts one sealed alert; never throws. `status` null means the relay was not reached. */
export async function postToRelay(
  relayUrl: string,
  timeoutSeconds: number,
  body: RelayBody,
): Promise<RelayOutcome> {
  const { url, authorization } = target(relayUrl);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization) headers.authorization = authorization;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(Math.ceil(timeoutSeconds * 1000)),
    });
    const text = await res.text().catch(() => '');
    if (res.ok) return { status: res.status, error: null };
    return { status: res.status, error: `relay HTTP ${res.status}: ${text.slice(0, MAX_QUOTED)}` };
  } catch (e) {
    const why = describeFetchError(e).split(relayUrl).join(redactUserinfo(relayUrl));
    return { status: null, error: `relay unreachable: ${why}` };
  }
}
