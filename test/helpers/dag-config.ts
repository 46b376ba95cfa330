// DagConfigs built directly, without the loader: the dag unit tests use them for generated shapes and the
// DAG benches for their 10k-task runs. No vitest imports here, so the benches can load it too.
import type { DagConfig, DagTaskConfig } from '../../src/config/types.ts';

export type TaskSpec = Partial<Omit<DagTaskConfig, 'id'>> & { id: string };

/**
 * A DagConfig built directly, for generated shapes (loading thousands of YAML files would dominate the
 * property tests). Defaults are the loader's (spec 04 §2.2); dag-planner.test.ts checks they agree.
 */
export function makeDag(name: string, tasks: TaskSpec[], extra: Partial<DagConfig> = {}): DagConfig {
  return {
    name,
    tasks: tasks.map(
      (t) =>
        ({
          type: 'task',
          command: t.type === 'approval' ? null : `echo ${t.id}`,
          dependsOn: [],
          triggerRule: 'all_success',
          retries: 0,
          retryDelaySeconds: 0,
          expand: null,
          pokeIntervalSeconds: 30,
          pokeTimeoutSeconds: 3600,
          pokeJitterSeconds: 0,
          onReject: 'fail',
          launchName: `${name}.${t.id}`,
          effectiveEnvironment: [],
          runAs: null,
          ...t,
        }) as DagTaskConfig,
    ),
    schedule: null,
    scheduleText: null,
    cron: null,
    timezone: null,
    utc: true,
    frame: { kind: 'utc' },
    dst: { repeated: 'first', skipped: 'shift' },
    findings: [],
    onMissed: 'skip',
    startingDeadlineSeconds: null,
    catchupJitterSeconds: 0,
    clusterPolicy: 'Leader',
    enabled: true,
    retainRuns: 50,
    source: { file: 'test', line: 1, col: 1 },
    ...extra,
  } as DagConfig;
}
