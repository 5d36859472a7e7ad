import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstFreePort } from "./ports.ts";

/** A `wrangler dev` server started the way the README says, with its own local state. */
export interface DevServer {
  baseUrl: string;
  /** The file everything the server prints goes to (its request log lines among it). */
  logFile: string;
  stop: () => Promise<void>;
}

const READY_TIMEOUT_MS = 180_000;

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

/** Ends the server's whole process group (npm, node, wrangler, workerd) that this helper started. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }, 10_000);
  await exited(child);
  clearTimeout(timer);
}

/**
 * Runs `npm run dev -- --persist-to <fresh tmpdir>` with `PORT`, as a new user would (the dev
 * script publishes the seed catalog and the dev tokens into that state, then serves), and waits
 * until `GET /api/v1/health` answers, on the first free port of `ports`. The state directory is
 * removed on stop.
 */
export async function startDevServer(ports: readonly number[]): Promise<DevServer> {
  const port = await firstFreePort("127.0.0.1", ports);
  const state = await mkdtemp(join(tmpdir(), "storefront-e2e-"));
  const child = spawn("npm", ["run", "dev", "--", "--persist-to", state], {
    cwd: process.cwd(),
    env: { ...process.env, PORT: String(port), WRANGLER_SEND_METRICS: "false", CI: "true", FORCE_COLOR: "0" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const logDir = await mkdtemp(join(tmpdir(), "storefront-e2e-log-"));
  const logFile = join(logDir, "dev-server.log");
  const log = createWriteStream(logFile);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const stop = async () => {
    await stopGroup(child);
    await rm(state, { recursive: true, force: true });
    await rm(logDir, { recursive: true, force: true });
  };
  const candidates = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    for (const url of candidates) {
      if (await healthy(url)) return { baseUrl: url, logFile, stop };
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const printed = await readFile(logFile, "utf8").catch(() => "");
  await stop();
  throw new Error(`npm run dev did not answer GET /api/v1/health on port ${port}:\n${printed.slice(-4000)}`);
}
