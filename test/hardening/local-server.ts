import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A local server the restart tests can stop and start again on the same state: `src/cli/dev.ts`
 * (what `npm run dev` runs) with `--persist-to <dir>` and `PORT`. Unlike the e2e suite's server,
 * stopping keeps the state directory; `removeState()` deletes it when the test is done.
 */
export interface LocalServer {
  baseUrl: string;
  /** SIGTERM to the whole process group, as Ctrl-C would; waits for it to exit. */
  stop: () => Promise<void>;
  /** SIGKILL to the whole process group: a crash, with no chance to flush anything. */
  kill: () => Promise<void>;
}

const READY_TIMEOUT_MS = 180_000;

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** The first port of `ports` nothing listens on. */
export async function freePort(ports: readonly number[]): Promise<number> {
  for (const port of ports) if (await isFree(port)) return port;
  throw new Error(`Every port of ${ports.join(", ")} is taken.`);
}

/** A fresh state directory for `--persist-to`. */
export function newStateDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "storefront-restart-"));
}

export function removeState(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

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
  }, 15_000);
  await exited(child);
  clearTimeout(timer);
}

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(2_000) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Starts `node src/cli/dev.ts --persist-to <state>` on `port` and waits for `/api/v1/health`. */
export async function startLocalServer(state: string, port: number, logFile: string): Promise<LocalServer> {
  const child = spawn(process.execPath, ["src/cli/dev.ts", "--persist-to", state], {
    cwd: process.cwd(),
    env: { ...process.env, PORT: String(port), WRANGLER_SEND_METRICS: "false", CI: "true", FORCE_COLOR: "0" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const log = createWriteStream(logFile, { flags: "a" });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const server: LocalServer = {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: () => signalGroup(child, "SIGTERM"),
    kill: () => signalGroup(child, "SIGKILL"),
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null) {
    for (const url of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      if (await healthy(url)) return { ...server, baseUrl: url };
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await server.kill();
  const printed = await readFile(logFile, "utf8").catch(() => "");
  throw new Error(`src/cli/dev.ts did not answer on port ${port}:\n${printed.slice(-3000)}`);
}
