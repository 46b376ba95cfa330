// The presented token's access (src/dashboard/access.ts) for the whole page: probed from `/whoami` on load and
// again whenever the token changes, handed down through a context so each control can hide itself.
import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { type Access, type ApiWhoami, accessOf, FULL_ACCESS } from '../../dashboard/access.ts';
import type { Api } from '../io/api.ts';

export const AccessContext = createContext<Access>(FULL_ACCESS);

/** The access of the current token; `tokenNonce` changes whenever a token is set or cleared. */
export function useAccessProbe(api: Api, tokenNonce: number): Access {
  const [access, setAccess] = useState<Access>(FULL_ACCESS);
  useEffect(() => {
    let live = true;
    setAccess(FULL_ACCESS);
    api
      .json<ApiWhoami>('/whoami')
      .then((who) => {
        if (live) setAccess(accessOf(who, api.hasToken()));
      })
      .catch(() => {}); // an older daemon without /whoami, or a bad token (the 401 prompt handles it)
    return () => {
      live = false;
    };
  }, [api, tokenNonce]);
  return access;
}

export function useAccess(): Access {
  return useContext(AccessContext);
}
