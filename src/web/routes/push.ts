// /push/devices (spec 10 §6.4): the device registry. The routes always exist; without a `push:`
// section they answer 404. The auth layer already refuses anonymous callers here (spec 10 §2.3).
import type { Hono } from 'hono';
import type { ApiDeps } from '../../api/deps.ts';
import { listDevices, pairDevice, revokeDevice, testDevice } from '../../api/push.ts';
import { answer, type Ctx, json, jsonError, param, type WebEnv } from '../respond.ts';

const callerLabel = (c: Ctx): string | null => c.get('caller')?.label ?? null;

export function pushRoutes(app: Hono<WebEnv>, d: ApiDeps): void {
  app.get('/push/devices', async () => answer(await listDevices(d)));

  app.post('/push/devices', async (c) => {
    const r = await pairDevice(d, await c.req.text(), callerLabel(c));
    if (!r.ok) return jsonError(r.status, r.error);
    return json(r.body, r.body.created ? 201 : 200);
  });

  app.delete('/push/devices/:id', async (c) => answer(await revokeDevice(d, param(c, 'id'), callerLabel(c))));

  app.post('/push/devices/:id/test', async (c) => {
    const r = await testDevice(d, param(c, 'id'));
    if (!r.ok) return jsonError(r.status, r.error);
    return json(r.body, r.body.error === null ? 200 : 502);
  });
}
