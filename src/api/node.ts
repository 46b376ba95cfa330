// This node's CPU and memory (spec 06 §5.6 `/node`, `/node/history`): the reading (shared with
// the cluster's node stats) and a background sampler that runs only while the web server runs.
import { NodeLoad, type NodeResources } from '../cluster/node-stats.ts';
import type { WebSection } from '../config/file-schema.ts';

export type { NodeResources } from '../cluster/node-stats.ts';

export class NodeSampler {
  private readonly load = new NodeLoad();
  private timer: NodeJS.Timeout | null = null;
  readonly points: [number, number, number][] = [];

  constructor(
    readonly enabled: boolean,
    readonly interval: number,
    readonly maxPoints: number,
  ) {}

  static fromConfig(web: WebSection): NodeSampler {
    const h = web.nodeHistory;
    if (h === false) return new NodeSampler(false, 5, 720);
    if (h === true || h === undefined || h === null) return new NodeSampler(true, 5, 720);
    return new NodeSampler(h.enabled ?? true, h.interval ?? 5, h.points ?? 720);
  }

  /** The current reading; CPU figures are averaged since the previous reading. */
  read(): NodeResources {
    return this.load.read();
  }

  start(): void {
    if (!this.enabled || this.timer) return;
    this.timer = setInterval(() => {
      const r = this.read();
      this.points.push([Date.now() / 1000, r.cpu_percent, r.mem_percent]);
      if (this.points.length > this.maxPoints) this.points.splice(0, this.points.length - this.maxPoints);
    }, this.interval * 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
