import { type ChildProcess, spawn } from "node:child_process";

/** What an operator sees from one CLI run. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A V8 stack frame, the mark of a stack trace printed for a user's mistake. */
export const STACK_FRAME = /\n\s+at\s|\bat\s[^\s]+\s\([^)]*:\d+:\d+\)/;

/**
 * Runs `node src/cli/<name>.ts …args` as `npm run <script>` does (same Node, from the project
 * root), optionally feeding `stdin`, and collects its output and exit code.
 */
export function runCli(
  name: string,
  args: readonly string[],
  options: { stdin?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`src/cli/${name}.ts`, ...args], {
      cwd: process.cwd(),
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", FORCE_COLOR: "0", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
      timeout: options.timeoutMs ?? 60_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
  });
}

/** Starts a CLI and resolves once its stdout matches `ready`, with what it printed so far. */
export function startUntil(
  name: string,
  args: string[],
  ready: RegExp,
): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, [`src/cli/${name}.ts`, ...args], {
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", FORCE_COLOR: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} never printed ${ready}: ${stdout}`)), 150_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (ready.test(stdout)) {
        clearTimeout(timer);
        resolve({ child, out: () => stdout });
      }
    });
    child.stderr?.resume();
    child.on("exit", () => {
      clearTimeout(timer);
      if (!ready.test(stdout)) reject(new Error(`${name} exited before ${ready}: ${stdout}`));
    });
  });
}
