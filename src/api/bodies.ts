// The bodies a web server shares between requests (spec 10 §4.4, §4.10): `/jobs` and the default
// `/activity`, each rebuilt after a local change or once a second; `/metrics` keys its shared product
// on the same watch.
import { activityBody } from './activity.ts';
import type { WebContext } from './context.ts';
import type { ApiDeps } from './deps.ts';
import { jobsSharedBody } from './jobs.ts';
import { ChangeWatch, jsonBody, SharedBodyCache } from './shared-body.ts';

/** `deps` is read lazily: the caches are part of the deps they build from. */
export function apiBodies(ctx: WebContext, deps: () => ApiDeps): ApiDeps['bodies'] {
  const watch = new ChangeWatch(ctx);
  return {
    watch,
    jobs: new SharedBodyCache(watch, () => jobsSharedBody(deps())),
    activity: new SharedBodyCache(watch, () => jsonBody(activityBody(ctx))),
  };
}
