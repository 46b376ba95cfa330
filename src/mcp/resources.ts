// MCP resources (spec 07 §5): fixed URIs and templates, each read by calling a visible tool in
// process (rows unbounded), never over HTTP. A resource is listed only while its tool is visible.
import type { ToolRegistry } from './registry.ts';
import { isPlainObject, RESOURCE_NOT_FOUND, RpcError } from './rpc.ts';

const MIME = 'application/json';

interface FixedResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  tool: string;
  pick(structured: Record<string, unknown>): unknown;
}

interface TemplateResource {
  uriTemplate: string;
  name: string;
  title: string;
  description: string;
  tool: string;
  pattern: RegExp;
  /** Tool arguments from the decoded captures. */
  args(captures: string[]): Record<string, unknown>;
  pick(structured: Record<string, unknown>, captures: string[]): unknown;
}

const whole = (s: Record<string, unknown>) => s;

const FIXED: FixedResource[] = [
  {
    uri: 'cronstable://status',
    name: 'status',
    title: 'Job status',
    description: 'Every configured job with its state, last run and next fire (unpaged).',
    tool: 'cron_get_status',
    pick: (s) => ({ status: s.status }),
  },
  {
    uri: 'cronstable://cluster',
    name: 'cluster',
    title: 'Cluster view',
    description: 'Leadership, quorum and peers of this node.',
    tool: 'cron_get_cluster',
    pick: whole,
  },
  {
    uri: 'cronstable://fleet',
    name: 'fleet',
    title: 'Fleet view',
    description: 'The nodes of the gossip mesh and their health.',
    tool: 'cron_get_fleet',
    pick: whole,
  },
  {
    uri: 'cronstable://version',
    name: 'version',
    title: 'Version',
    description: 'Daemon version, job set fingerprint and job count.',
    tool: 'cron_get_version',
    pick: whole,
  },
];

const SEGMENT = '([^/]+)';

const TEMPLATES: TemplateResource[] = [
  {
    uriTemplate: 'cronstable://jobs/{name}',
    name: 'job',
    title: 'Job detail',
    description: 'One job as cron_list_jobs shows it.',
    tool: 'cron_get_job',
    pattern: new RegExp(`^cronstable://jobs/${SEGMENT}$`),
    args: ([name]) => ({ name }),
    pick: whole,
  },
  {
    uriTemplate: 'cronstable://jobs/{name}/runs',
    name: 'job-runs',
    title: 'Job run history',
    description: 'Every retained run of one job, oldest first, with statistics.',
    tool: 'cron_list_runs',
    pattern: new RegExp(`^cronstable://jobs/${SEGMENT}/runs$`),
    args: ([name]) => ({ name }),
    pick: (s) => ({ name: s.name, runs: s.runs, stats: s.stats }),
  },
  {
    uriTemplate: 'cronstable://dags/{name}',
    name: 'dag',
    title: 'DAG detail',
    description: 'One DAG as cron_list_dags shows it.',
    tool: 'cron_list_dags',
    pattern: new RegExp(`^cronstable://dags/${SEGMENT}$`),
    args: () => ({}),
    pick: (s, [name]) => {
      const dags = Array.isArray(s.dags) ? s.dags : [];
      return dags.find((d) => isPlainObject(d) && d.name === name);
    },
  },
  {
    uriTemplate: 'cronstable://dags/{name}/runs/{run_key}',
    name: 'dag-run',
    title: 'DAG run',
    description: 'One DAG run document with its task states.',
    tool: 'cron_get_dag_run',
    pattern: new RegExp(`^cronstable://dags/${SEGMENT}/runs/${SEGMENT}$`),
    args: ([dag, run_key]) => ({ dag, run_key }),
    pick: whole,
  },
  {
    uriTemplate: 'cronstable://state/{ns}',
    name: 'state-ns',
    title: 'State namespace',
    description:
      'The documents of one kv/, cursor/ or idem/ namespace; kv values are redacted to size and type.',
    tool: 'cron_inspect_state',
    // `{ns}` may itself contain `/` (kv/reports).
    pattern: /^cronstable:\/\/state\/(.+)$/,
    args: ([ns]) => ({ ns }),
    pick: whole,
  },
];

/** Percent-decodes a captured segment (spec 07 §5 "Do better"); a malformed escape stays as written. */
function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The listing fields every resource and template shares (after its `uri` / `uriTemplate`). */
const listed = ({ name, title, description }: { name: string; title: string; description: string }) => ({
  name,
  title,
  description,
  mimeType: MIME,
});

const notFound = (uri: string) => new RpcError(RESOURCE_NOT_FOUND, `resource not found: ${uri}`);

export class ResourceCatalogue {
  private readonly fixed: FixedResource[];
  private readonly templates: TemplateResource[];

  constructor(private readonly registry: ToolRegistry) {
    this.fixed = FIXED.filter((r) => registry.has(r.tool));
    this.templates = TEMPLATES.filter((r) => registry.has(r.tool));
  }

  get empty(): boolean {
    return this.fixed.length === 0 && this.templates.length === 0;
  }

  list() {
    return { resources: this.fixed.map((r) => ({ uri: r.uri, ...listed(r) })) };
  }

  listTemplates() {
    return { resourceTemplates: this.templates.map((t) => ({ uriTemplate: t.uriTemplate, ...listed(t) })) };
  }

  async read(uri: string) {
    const body = await this.payload(uri);
    if (body === undefined || body === null) throw notFound(uri);
    return { contents: [{ uri, mimeType: MIME, text: JSON.stringify(body) }] };
  }

  private async payload(uri: string): Promise<unknown> {
    const fixed = this.fixed.find((r) => r.uri === uri);
    if (fixed) {
      const result = await this.registry.read(fixed.tool, {});
      return result?.ok ? fixed.pick(result.structured) : undefined;
    }
    for (const t of this.templates) {
      const m = t.pattern.exec(uri);
      if (!m) continue;
      const captures = m.slice(1).map(decode);
      const result = await this.registry.read(t.tool, t.args(captures));
      if (!result) return undefined;
      if (!result.ok) {
        // A state-layer refusal says why (not configured, not an inspectable namespace).
        if (t.name === 'state-ns') throw new RpcError(RESOURCE_NOT_FOUND, result.text);
        return undefined;
      }
      return t.pick(result.structured, captures);
    }
    return undefined;
  }
}
