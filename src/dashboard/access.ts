// What the presented token lets the dashboard offer (spec 10 §5.4), from `GET /whoami`. Until the daemon has
// answered (or when it has no `/whoami`), everything shows: the daemon still refuses what the token may not do.
import type { WhoamiBody } from '../api/wire/access.schema.ts';

export type ApiWhoami = WhoamiBody;

export interface Access {
  /** Run, Stop, Pause/Resume, run-failing, mitigate, DAG Trigger/Backfill, their palette entries and keys */
  control: boolean;
  /** Approve / Reject on a waiting gate */
  approve: boolean;
  /** anonymous read-only visitor: the token button reads `view only`, no token prompt */
  publicView: boolean;
}

export const FULL_ACCESS: Access = { control: true, approve: true, publicView: false };

/** The token button's tooltip in the public view. */
export const VIEW_ONLY_TITLE = 'Read-only public view. Set a token to run and pause jobs.';

/** The access the `/whoami` answer grants; null (not answered) grants everything. */
export function accessOf(
  who: Pick<ApiWhoami, 'authenticated' | 'scopes' | 'allScopes'> | null,
  hasToken: boolean,
): Access {
  if (who === null || who.allScopes) return FULL_ACCESS;
  return {
    control: who.scopes.includes('control'),
    approve: who.scopes.includes('approve'),
    publicView: !hasToken && !who.authenticated,
  };
}
