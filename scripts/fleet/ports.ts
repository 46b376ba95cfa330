// Free TCP ports on loopback addresses, for nodes, proxies and etcd started by the fleet.
import { type AddressInfo, createServer } from 'node:net';

/** A port the OS just handed out on `host` (racy by nature: bind it soon). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, host, resolve);
  });
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Whether `host:port` can be bound right now. */
export async function canBind(host: string, port: number): Promise<boolean> {
  const srv = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, host, resolve);
    });
    await new Promise((r) => srv.close(r));
    return true;
  } catch {
    return false;
  }
}
