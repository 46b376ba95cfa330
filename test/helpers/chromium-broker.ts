// The system project's global setup: one headless Chromium for the whole run, started on the
// first file that asks for it (a run of files that never open a page starts none), shared by
// every worker through playwright's browser server. A file connects to it and works in its own
// fresh context (test/helpers/browser.ts), so nothing a page stores leaks into another file.
// Stopped when the run ends.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserServer } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { launchChromiumServer } from '../../scripts/chromium.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** GET it for the shared browser's WebSocket endpoint (the browser starts on the first GET). */
    chromiumBroker: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let launching: Promise<BrowserServer> | null = null;
  const broker = createServer((_req, res) => {
    launching ??= launchChromiumServer();
    launching.then(
      (server) => res.end(server.wsEndpoint()),
      (e: Error) => {
        launching = null;
        res.writeHead(500).end(e.message);
      },
    );
  });
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  project.provide('chromiumBroker', `http://127.0.0.1:${(broker.address() as AddressInfo).port}/`);
  return async () => {
    broker.close();
    const server = await launching?.catch(() => null);
    await server?.close();
  };
}
