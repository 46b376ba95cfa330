// DagConfigs built directly, without the loader: the dag unit tests use them for generated shapes and the
// DAG benches for their 10k-task runs. No vitest imports here, so the benches can load it too.
import { TASK_NODE_DEFAULTS } from '../../src/config/task-template.ts';
import type { DagConfig, DagTaskConfig } from '../../src/config/types.ts';

export type TaskSpec = Partial<Omit<DagTaskConfig, 'id'>> & { id: string };

/**
 * A DagConfig built directly, for generated shapes (loading thousands of YAML files would dominate the
 * property tests). The node defaults are the loader's own (TASK_NODE_DEFAULTS, spec 04 §2.2).
 */
export function makeDag(name: string, tasks: TaskSpec[], extra: Partial<DagConfig> = {}): DagConfig {
  return {
    name,
    tasks: tasks.map(
      (t) =>
        ({
          ...TASK_NODE_DEFAULTS,
          command: t.type === 'approval' ? null : `echo ${t.id}`,
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
