// The schemas of the device registry routes (spec 10 §6.4) and their RouteDocs. Loaded only by
// src/web/openapi.ts, never by a daemon serving the routes.
import { z } from 'zod';
import type { RouteDoc } from './route-doc.ts';

export const PushDeviceSchema = z.object({
  id: z.string(),
  name: z.string(),
  platform: z.string(),
  publicKey: z.string(),
  fingerprint: z.string(),
  pushToken: z.string(),
  createdAt: z.string(),
  createdBy: z.string().nullable(),
});

const PairBody = z.object({
  name: z.string(),
  platform: z.string(),
  publicKey: z.string(),
  pushToken: z.string(),
});

export const docs: RouteDoc[] = [
  {
    method: 'get',
    path: '/push/devices',
    summary: 'The paired phones, oldest first (never served anonymously)',
    response: z.object({ devices: z.array(PushDeviceSchema) }),
    errors: [404, 503],
  },
  {
    method: 'post',
    path: '/push/devices',
    summary:
      'Pair a phone by its X25519 public key; the same key again updates its name, platform and token (200)',
    body: PairBody,
    response: z.object({ device: PushDeviceSchema, created: z.boolean() }),
    status: 201,
    errors: [400, 404, 503],
  },
  {
    method: 'delete',
    path: '/push/devices/{id}',
    summary: 'Revoke a paired phone',
    response: z.object({ revoked: z.string() }),
    errors: [404, 503],
  },
  {
    method: 'post',
    path: '/push/devices/{id}/test',
    summary: "Send a test alert to one phone; 502 with the relay's error when the relay refuses it",
    response: z.object({
      device: z.string(),
      status: z.number().int().nullable(),
      error: z.string().nullable(),
    }),
    errors: [404, 502, 503],
  },
];
