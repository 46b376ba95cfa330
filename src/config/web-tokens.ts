// Load-time checks of the scoped web tokens (spec 10 §2.1): what `-v` can already tell, so an
// operator learns of a misleading anonymous grant or a clashing label before the daemon starts.
import type { WebSection } from './file-schema.ts';

type Bad = (keys: string[], message: string) => void;

/** Labels a token table reserves: `anonymous` for the credential-less grant, `authToken` for the single token. */
const RESERVED: Record<string, string> = {
  anonymous:
    "web.authTokens label 'anonymous' is reserved: /whoami and the pairing audit log use it for the credential-less grant (web.anonymousScopes). Pick another label.",
  authToken:
    "web.authTokens label 'authToken' is reserved: it names the single web.authToken in /whoami and in 403 answers. Pick another label.",
};

export function checkWebTokens(web: WebSection, bad: Bad): void {
  const tokens = web.authTokens ?? [];
  const hasToken = (web.authToken !== null && web.authToken !== undefined) || tokens.length > 0;
  if ((web.anonymousScopes?.length ?? 0) > 0 && !hasToken)
    bad(
      ['anonymousScopes'],
      'web.anonymousScopes is set but no web.authToken or web.authTokens entry is configured; with no tokens the web API installs no auth middleware and every request already holds every scope, so an anonymous grant would only mislead. Configure at least one token, or remove anonymousScopes.',
    );
  const labels = new Map<string, number>();
  const values = new Map<string, number>();
  tokens.forEach((t, i) => {
    if (t.scopes.length === 0)
      bad(
        ['authTokens', String(i), 'scopes'],
        `web.authTokens[${i}].scopes must list at least one of view, control, approve`,
      );
    const label = t.label ?? '';
    if (label !== '') {
      const reserved = RESERVED[label];
      if (reserved) bad(['authTokens', String(i), 'label'], reserved);
      const first = labels.get(label);
      if (first !== undefined)
        bad(
          ['authTokens', String(i), 'label'],
          `web.authTokens[${i}] repeats the label '${label}' of web.authTokens[${first}]; labels name tokens in logs and answers, so each must be unique`,
        );
      else labels.set(label, i);
    }
    const value = t.value ?? '';
    if (value !== '') {
      const first = values.get(value);
      if (first !== undefined)
        bad(
          ['authTokens', String(i), 'value'],
          `web.authTokens[${i}] has the same value as web.authTokens[${first}]; duplicate secrets are refused because requests match tokens by secret, so only one entry's scopes could apply`,
        );
      else values.set(value, i);
    }
  });
}
