// npm run token -- issue|revoke|rotate|list [--local|--remote] [--label NAME] [--id ID] [--url URL] [--persist-to DIR]
//
// Every command goes through the worker's operator surface (/api/v1/operator/tokens), never
// straight to KV: revocation must reach the holder's cart Durable Object, and only the running
// worker can reach it (getPlatformProxy cannot). For --local with no dev server answering, this
// starts `wrangler dev` for the one command, on the same persisted local state, and stops it.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { OperatorClient, OperatorError, parseTokenArgs, runTokenCommand, USAGE, UsageError, type TokenCommand } from "../auth/operator-client.ts";

/** Where `npm run dev` serves (it honours PORT too). */
const DEFAULT_LOCAL_URL = `http://localhost:${process.env.PORT ?? "8787"}`;
/** What `npm run dev` passes as OPERATOR_SECRET; override with the OPERATOR_SECRET variable. */
const DEV_OPERATOR_SECRET = "dev-operator-secret";
const START_TIMEOUT_MS = 90_000;

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(3000) });
    return res.ok;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts `wrangler dev` on the default local state with a one-off operator secret. */
async function startLocalWorker(persistTo: string | undefined): Promise<{ url: string; secret: string; stop: () => void }> {
  const port = await freePort();
  const secret = randomBytes(32).toString("base64url");
  const wranglerBin = join(dirname(createRequire(import.meta.url).resolve("wrangler/package.json")), "bin", "wrangler.js");
  const child: ChildProcess = spawn(
    process.execPath,
    [wranglerBin, "dev", "--ip", "127.0.0.1", "--port", String(port), "--var", `OPERATOR_SECRET:${secret}`, "--var", "ENVIRONMENT:development", "--show-interactive-dev-session=false", ...(persistTo ? ["--persist-to", persistTo] : [])],
    { stdio: ["ignore", "ignore", "pipe"], detached: true, env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const stop = () => {
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        child.kill("SIGTERM");
      }
    }
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${stderr}`);
    if (await answers(url)) return { url, secret, stop };
    await new Promise((r) => setTimeout(r, 500));
  }
  stop();
  throw new Error(`wrangler dev did not answer within ${START_TIMEOUT_MS / 1000} s:\n${stderr}`);
}

async function run(command: TokenCommand): Promise<string[]> {
  if (command.target === "remote") {
    const url = command.url ?? process.env.STOREFRONT_URL;
    const secret = process.env.OPERATOR_SECRET;
    if (!url) throw new UsageError("--remote needs --url https://<your worker> (or STOREFRONT_URL).");
    if (!secret) throw new UsageError("--remote needs OPERATOR_SECRET in the environment (the value given to `wrangler secret put`).");
    return runTokenCommand(command, new OperatorClient(url, secret));
  }
  const url = command.url ?? DEFAULT_LOCAL_URL;
  if (await answers(url)) {
    return runTokenCommand(command, new OperatorClient(url, process.env.OPERATOR_SECRET ?? DEV_OPERATOR_SECRET));
  }
  if (command.url) throw new Error(`Nothing answers at ${url}. Start it with npm run dev, or leave out --url.`);
  process.stderr.write(`No dev server at ${url}; starting wrangler dev on the local state for this command...\n`);
  const worker = await startLocalWorker(command.persistTo);
  try {
    return await runTokenCommand(command, new OperatorClient(worker.url, worker.secret));
  } finally {
    worker.stop();
  }
}

try {
  const lines = await run(parseTokenArgs(process.argv.slice(2)));
  for (const line of lines) process.stdout.write(`${line}\n`);
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    process.exitCode = 2;
  } else if (error instanceof OperatorError) {
    process.stderr.write(`The operator surface answered ${error.status}: ${error.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
