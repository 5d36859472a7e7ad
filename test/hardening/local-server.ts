import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DevServer, runDevServer } from "../helpers/dev-server.ts";
import { firstFreePort } from "../helpers/ports.ts";

/**
 * The restart tests' server: the same `npm run dev` as the e2e suite's, on a state directory
 * the test owns, so it can be stopped or killed and started again on the same state.
 */
export type LocalServer = DevServer;

/** The first port of `ports` nothing listens on. */
export function freePort(ports: readonly number[]): Promise<number> {
  return firstFreePort("127.0.0.1", ports);
}

/** A fresh state directory for `--persist-to`. */
export function newStateDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "storefront-restart-"));
}

export function removeState(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}

/** Starts the dev server on `state` and `port` and waits for `/api/v1/health`. */
export function startLocalServer(state: string, port: number, logFile: string): Promise<LocalServer> {
  return runDevServer(state, port, logFile);
}
