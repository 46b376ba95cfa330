import { Session } from 'node:inspector/promises';
const sess = new Session(); sess.connect(); await sess.post('Profiler.enable'); await sess.post('Profiler.setSamplingInterval', { interval: 100 }); 
(globalThis as any).__startProf = async () => sess.post('Profiler.start');
(globalThis as any).__stopProf = async () => {
  const { profile } = await sess.post('Profiler.stop') as any;
  const self = new Map<string, number>();
  const dt = profile.timeDeltas; const byId = new Map(profile.nodes.map((n: any) => [n.id, n]));
  let total = 0;
  profile.samples.forEach((id: number, i: number) => { const n: any = byId.get(id); const k = `${n.callFrame.functionName}@${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0)); total += dt[i] ?? 0; });
  console.log('total ms', total / 1000);
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((v / 1000).toFixed(1).padStart(8), k);
};
