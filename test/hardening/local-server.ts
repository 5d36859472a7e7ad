import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { type DevServer, runDevServer } from "../helpers/dev-server.ts";
import { firstFreePort } from "../helpers/ports.ts";

/**
 * The crash and restart tests' server: the same `npm run dev` as the e2e suite's, on a state
 * directory the test owns, so it can be stopped or killed and started again on the same state.
 */
export interface SuiteServer {
  /** The server running now (the last one started). */
  readonly server: DevServer;
  /** `path` on the server running now. */
  url(path: string): string;
  /** Starts the server again on the same state and port, once the test has stopped or killed it. */
  restart(): Promise<DevServer>;
}

/**
 * Registers, in the calling `describe`, a server started before its tests on a fresh state
 * directory and the first free port of `ports` (waiting for `/api/v1/health`), with the
 * environment `env` answers when it starts, killed and its state removed after them.
 */
export function localServerForSuite(
  ports: readonly number[],
  env: () => Record<string, string> = () => ({}),
): SuiteServer {
  let state: string;
  let port: number;
  let current: DevServer | undefined;
  const start = async () => {
    current = await runDevServer(state, port, join(state, "server.log"), env());
    return current;
  };
  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), "storefront-restart-"));
    port = await firstFreePort("127.0.0.1", ports);
    await start();
  }, 200_000);
  afterAll(async () => {
    await current?.kill();
    await rm(state, { recursive: true, force: true });
  }, 60_000);
  return {
    get server() {
      if (!current) throw new Error("the suite's server has not started");
      return current;
    },
    url: (path) => `${current?.baseUrl}${path}`,
    restart: start,
  };
}
