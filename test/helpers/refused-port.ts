// A loopback port nothing listens on: one the OS just handed out and that was closed again, so a
// connection to it is refused at once (not left to time out).

import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';

export async function refusedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}
