import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { firstFreePort } from "./ports.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where the e2e suite's own `npm run dev` server listens, and the file its output goes to. */
    e2eBaseUrl: string;
    e2eLogFile: string;
    /** The e2e server's state directory (its --persist-to). */
    e2eStateDir: string;
    /** The same for the browser suite's server. */
    browserApiUrl: string;
    browserApiLog: string;
  }
}

/** A `wrangler dev` server started the way the README says, with its own local state. */
export interface DevServer {
  baseUrl: string;
  /** The file everything the server prints goes to (its request log lines among it). */
  logFile: string;
  /** SIGTERM to the whole process group, as Ctrl-C would; waits for it to exit. */
  stop: () => Promise<void>;
  /** SIGKILL to the whole process group: a crash, with no chance to flush anything. */
  kill: () => Promise<void>;
}

const READY_TIMEOUT_MS = 180_000;
const GRACE_MS = 15_000;

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(2_000) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

/** Signals the server's whole process group (npm, node, wrangler, workerd); SIGKILL after a grace period. */
async function signalGroup(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }, GRACE_MS);
  await exited(child);
  clearTimeout(timer);
}

/**
 * Runs `npm run dev -- --persist-to <state>` with `PORT` (and `env`, e.g. ORDER_WEBHOOK_URL), as a new user would (the dev script
 * publishes the seed catalog and the dev tokens into that state, then serves), appends what it
 * prints to `logFile`, and waits until `GET /api/v1/health` answers. The state is left in place,
 * so a server stopped or killed can be started again on it.
 */
export async function runDevServer(
  state: string,
  port: number,
  logFile: string,
  env: Record<string, string> = {},
): Promise<DevServer> {
  const child = spawn("npm", ["run", "dev", "--", "--persist-to", state], {
    cwd: process.cwd(),
    env: { ...process.env, PORT: String(port), WRANGLER_SEND_METRICS: "false", CI: "true", FORCE_COLOR: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const log = createWriteStream(logFile, { flags: "a" });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const stop = () => signalGroup(child, "SIGTERM");
  const kill = () => signalGroup(child, "SIGKILL");
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null) {
    for (const url of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      if (await healthy(url)) return { baseUrl: url, logFile, stop, kill };
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await kill();
  const printed = await readFile(logFile, "utf8").catch(() => "");
  throw new Error(`npm run dev did not answer GET /api/v1/health on port ${port}:\n${printed.slice(-4000)}`);
}

/**
 * The e2e suite's server: `runDevServer` on the first free port of `ports`, with a fresh state
 * directory and log that are removed on stop.
 */
export async function startDevServer(ports: readonly number[]): Promise<DevServer & { stateDir: string }> {
  const port = await firstFreePort("127.0.0.1", ports);
  const state = await mkdtemp(join(tmpdir(), "storefront-e2e-"));
  const logDir = await mkdtemp(join(tmpdir(), "storefront-e2e-log-"));
  const cleanUp = async () => {
    await rm(state, { recursive: true, force: true });
    await rm(logDir, { recursive: true, force: true });
  };
  let server: DevServer;
  try {
    server = await runDevServer(state, port, join(logDir, "dev-server.log"));
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const end = (how: () => Promise<void>) => async () => {
    await how();
    await cleanUp();
  };
  return { ...server, stop: end(server.stop), kill: end(server.kill), stateDir: state };
}

/**
 * A suite's global setup: one real dev server for the whole suite (the first free port of
 * `ports`), its URL and log file handed to the tests under the suite's own keys, stopped after.
 */
export async function provideDevServer(
  project: TestProject,
  ports: readonly number[],
  keys: { url: "e2eBaseUrl" | "browserApiUrl"; log: "e2eLogFile" | "browserApiLog" },
): Promise<() => Promise<void>> {
  const server = await startDevServer(ports);
  project.provide(keys.url, server.baseUrl);
  project.provide(keys.log, server.logFile);
  if (keys.url === "e2eBaseUrl") project.provide("e2eStateDir", server.stateDir);
  return server.stop;
}
