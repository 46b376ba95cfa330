// MCP prompts (spec 07 §6): canned investigations that name our tools. A prompt is listed when its
// toolset is on, and renders only the steps whose tools are visible (spec "Do better"), so a model is
// never told to call a tool it cannot see.
import { INVALID_PARAMS, isPlainObject, RpcError } from './rpc.ts';
import type { Toolset } from './tool.ts';

interface Step {
  /** Every tool the step names; the step is dropped unless all are visible. */
  tools: string[];
  text: string;
}

interface PromptDef {
  name: string;
  title: string;
  description: string;
  toolset: Toolset;
  arguments: { name: string; description: string }[];
  intro(a: Record<string, string>): string;
  steps(a: Record<string, string>): Step[];
  outro(a: Record<string, string>): string;
}

const PROMPTS: PromptDef[] = [
  {
    name: 'triage_job_failure',
    title: 'Triage a job failure',
    description: 'Investigate why a job failed and propose the safest next step.',
    toolset: 'observe',
    arguments: [{ name: 'job', description: 'Name of the failing job' }],
    intro: (a) => `The cronstable job '${a.job}' is failing. Investigate it step by step:`,
    steps: (a) => [
      {
        tools: ['cron_get_job', 'cron_list_runs'],
        text: `Call cron_get_job and cron_list_runs for '${a.job}' to see its configuration and recent outcomes.`,
      },
      {
        tools: ['cron_get_job_trends'],
        text: 'Call cron_get_job_trends to tell a new failure from a chronic one.',
      },
      {
        tools: ['cron_tail_job_logs'],
        text: 'Call cron_tail_job_logs to read the output of the latest run.',
      },
      {
        tools: ['cron_get_node', 'cron_get_cluster'],
        text: 'Call cron_get_node and cron_get_cluster to rule out node pressure or leadership problems.',
      },
    ],
    outro: () =>
      'Then give a root-cause hypothesis, the blast radius and the safest next step. Do not run or cancel anything without asking the operator first.',
  },
  {
    name: 'blast_radius',
    title: 'Assess blast radius',
    description: 'Work out what else is at risk when a job or node misbehaves.',
    toolset: 'observe',
    arguments: [{ name: 'target', description: 'The job, DAG or node in trouble' }],
    intro: (a) => `Assess the blast radius of a problem with '${a.target}' in cronstable:`,
    steps: () => [
      {
        tools: ['cron_get_status', 'cron_get_fleet'],
        text: 'Call cron_get_status and cron_get_fleet to find the jobs and nodes affected.',
      },
      { tools: ['cron_list_dags'], text: 'Call cron_list_dags to find DAGs that depend on it.' },
      {
        tools: ['cron_inspect_state'],
        text: 'Call cron_inspect_state to find shared locks, cursors or streams it touches.',
      },
    ],
    outro: () => 'Summarise what else is at risk, most serious first.',
  },
  {
    name: 'fleet_health_summary',
    title: 'Fleet health summary',
    description: 'Summarise the health of the jobs, the cluster and the nodes.',
    toolset: 'observe',
    arguments: [],
    intro: () => 'Summarise the health of this cronstable deployment:',
    steps: () => [
      {
        tools: ['cron_get_fleet', 'cron_get_cluster'],
        text: 'Call cron_get_fleet and cron_get_cluster for node health, quorum and leadership.',
      },
      {
        tools: ['cron_get_status'],
        text: 'Call cron_get_status to separate failing jobs from healthy ones.',
      },
      { tools: ['cron_get_node'], text: 'Call cron_get_node to spot a stressed node.' },
    ],
    outro: () =>
      'Report failing versus healthy jobs, quorum and leadership, and stressed nodes, leading with the most important item.',
  },
  {
    name: 'why_did_dag_run_fail',
    title: 'Diagnose a failed DAG run',
    description: 'Find the failed task of a DAG run, why it failed and what it blocked.',
    toolset: 'dags',
    arguments: [
      { name: 'dag', description: 'Name of the DAG' },
      { name: 'run_key', description: 'Key of the failed run' },
    ],
    intro: (a) => `Run '${a.run_key}' of the cronstable DAG '${a.dag}' failed. Diagnose it:`,
    steps: () => [
      { tools: ['cron_get_dag_run'], text: 'Call cron_get_dag_run to find the failed tasks.' },
      {
        tools: ['cron_tail_dag_task_logs'],
        text: 'Call cron_tail_dag_task_logs for their output (task logs exist only while a task is running).',
      },
      { tools: ['cron_get_dag_xcom'], text: 'Call cron_get_dag_xcom to see the data the tasks exchanged.' },
    ],
    outro: () => 'Explain which task failed, why, and which downstream tasks were blocked.',
  },
  {
    name: 'backfill_plan',
    title: 'Plan a DAG backfill',
    description: 'Dry-run a backfill of a DAG over a window and explain what it would do.',
    toolset: 'dags',
    arguments: [
      { name: 'dag', description: 'Name of the scheduled DAG' },
      { name: 'from', description: 'Start of the window (ISO 8601)' },
      { name: 'to', description: 'End of the window (ISO 8601)' },
    ],
    intro: (a) => `Plan a backfill of the cronstable DAG '${a.dag}' from ${a.from} to ${a.to}:`,
    steps: () => [
      {
        tools: ['cron_backfill_dag'],
        text: 'Call cron_backfill_dag with its default dry run to check the DAG and the window.',
      },
    ],
    outro: () =>
      'Explain what a real backfill would do. Propose dry_run=false with confirm=true only after the operator agrees.',
  },
];

export class PromptCatalogue {
  private readonly prompts: PromptDef[];

  constructor(
    toolsets: readonly Toolset[],
    private readonly visibleTool: (name: string) => boolean,
  ) {
    this.prompts = PROMPTS.filter((p) => toolsets.includes(p.toolset));
  }

  get empty(): boolean {
    return this.prompts.length === 0;
  }

  list() {
    return {
      prompts: this.prompts.map((p) => ({
        name: p.name,
        title: p.title,
        description: p.description,
        arguments: p.arguments.map((a) => ({ ...a, required: true })),
      })),
    };
  }

  get(name: unknown, rawArgs: unknown) {
    const prompt = this.prompts.find((p) => p.name === name);
    if (!prompt) throw new RpcError(INVALID_PARAMS, `unknown prompt: ${String(name)}`);
    const given = isPlainObject(rawArgs) ? rawArgs : {};
    const args: Record<string, string> = {};
    const missing: string[] = [];
    for (const a of prompt.arguments) {
      const v = given[a.name];
      if (v === undefined || v === null || v === '') missing.push(a.name);
      else args[a.name] = typeof v === 'string' ? v : JSON.stringify(v);
    }
    if (missing.length > 0)
      throw new RpcError(
        INVALID_PARAMS,
        `prompt ${prompt.name} requires argument(s): ${missing.map((m) => `'${m}'`).join(', ')}`,
      );
    const steps = prompt.steps(args).filter((s) => s.tools.every(this.visibleTool));
    const text = [prompt.intro(args), ...steps.map((s, i) => `${i + 1}. ${s.text}`), prompt.outro(args)].join(
      '\n',
    );
    return {
      description: prompt.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }],
    };
  }
}
