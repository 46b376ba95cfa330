// Job-API run identities (spec 03 §6): each run is registered with the job API (its token, the
// variables it gets, its staged secrets) before it launches. A registry failure never prevents a run.
import type { JobConfig } from '../../config/types.ts';
import type { RunRegistry } from '../../jobapi/registry.ts';
import { resolveRunSecrets, type SecretWarning } from '../../jobapi/secrets.ts';
import type { Logger } from '../../util/log.ts';
import type { LaunchContext, RunGrant } from '../control.ts';
import { iso, storeFailed } from './context.ts';

export async function registerRun(
  registry: RunRegistry | null,
  log: Logger,
  job: JobConfig,
  run: LaunchContext,
): Promise<RunGrant> {
  if (!registry) return {};
  try {
    const warnings: SecretWarning[] = [];
    const secrets = await resolveRunSecrets(job.secrets, process.env, warnings);
    for (const w of warnings) log.warning(`Job ${job.name}: secret '${w.name}' is not staged: ${w.reason}`);
    const reg = registry.register({
      runId: run.id,
      jobName: job.name,
      attempt: run.attempt,
      scheduledAt: iso(run.scheduledAt),
      defaultScope: job.name,
      allowedScopes: job.stateAllowedScopes,
      secrets,
    });
    return {
      env: reg.env,
      secretValues: Object.values(secrets),
      release: () => registry.unregister(reg.token),
    };
  } catch (e) {
    storeFailed({ log }, `registering job ${job.name} with the job API`, e);
    return {};
  }
}
