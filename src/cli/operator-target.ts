// Where an operator tool sends its calls: the local dev server (started for the one command when
// none answers) or the deployed worker at --url with OPERATOR_SECRET. Shared by npm run token and
// npm run stock, which both go through the worker's operator surface, never straight to storage.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { UsageError } from "./args.ts";
import { quietWranglerEnv } from "./local-env.ts";
import { localStateDir, recordedDevServerUrl } from "./dev-server-record.ts";
import { localOperatorSecret } from "./dev-vars.ts";

/** Where `npm run dev` serves (it honours PORT too). */
export const DEFAULT_LOCAL_URL = `http://localhost:${process.env.PORT || "8787"}`;
/** What `npm run dev` passes as OPERATOR_SECRET; override with the OPERATOR_SECRET variable. */
export { DEV_OPERATOR_SECRET } from "./dev-vars.ts";
const START_TIMEOUT_MS = 90_000;

export async function answers(url: string): Promise<boolean> {
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

/** Starts `wrangler dev` (both Workers, as npm run dev) on the local state with a one-off operator secret. */
export async function startLocalWorker(
  persistTo: string | undefined,
): Promise<{ url: string; secret: string; stop: () => void }> {
  const port = await freePort();
  const secret = randomBytes(32).toString("base64url");
  const wranglerBin = join(
    dirname(createRequire(import.meta.url).resolve("wrangler/package.json")),
    "bin",
    "wrangler.js",
  );
  const child: ChildProcess = spawn(
    process.execPath,
    [
      wranglerBin,
      "dev",
      // As npm run dev serves it: the storefront and, beside it, the catalog writer (its release clock).
      "src/dev.ts",
      "--config",
      "wrangler.toml",
      "--config",
      "writer/wrangler.toml",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--var",
      `OPERATOR_SECRET:${secret}`,
      "--var",
      "ENVIRONMENT:development",
      "--show-interactive-dev-session=false",
      ...(persistTo ? ["--persist-to", persistTo] : []),
    ],
    { stdio: ["ignore", "ignore", "pipe"], detached: true, env: quietWranglerEnv() },
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

/** Hosts a plain `http:` URL may name: this machine only. */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The --remote URL, checked before the operator secret is sent to it: `https:`, or plain `http:`
 * only to this machine (a worker under `wrangler dev`), never in clear text across a network.
 */
export function remoteUrl(url: string): string {
  if (!URL.canParse(url)) throw new UsageError(`--url is not a URL: ${JSON.stringify(url)}.`);
  const { protocol, hostname } = new URL(url);
  if (protocol === "https:" || (protocol === "http:" && LOOPBACK.has(hostname))) return url;
  throw new UsageError(
    `--remote sends the operator secret, so --url must be https:// (plain http:// only for ` +
      `localhost, 127.0.0.1 or [::1]); got ${protocol}//${hostname}.`,
  );
}

/** Where a command goes and how: `--remote` with a URL, or the local dev server (or one started for it). */
export interface OperatorTarget {
  target: "local" | "remote";
  url?: string;
  persistTo?: string;
}

/** The target the common flags name (`--remote`, `--url`, `--persist-to`), refusing `--persist-to` with `--remote`. */
export function operatorTargetFrom(values: { remote?: boolean; url?: string; "persist-to"?: string }): OperatorTarget {
  const target: OperatorTarget = { target: values.remote ? "remote" : "local" };
  if (values.url !== undefined) target.url = values.url;
  if (values["persist-to"] !== undefined) {
    if (values.remote) throw new UsageError("--persist-to applies to --local only.");
    target.persistTo = values["persist-to"];
  }
  return target;
}

/**
 * Runs `work` against the operator surface `target` names, with its base URL and secret: the
 * deployed worker (--remote: --url or STOREFRONT_URL, OPERATOR_SECRET), the local dev server, or a
 * `wrangler dev` started on the local state for this one command and stopped after it.
 */
export async function withOperator<T>(
  target: OperatorTarget,
  work: (url: string, secret: string) => Promise<T>,
): Promise<T> {
  if (target.target === "remote") {
    const url = target.url ?? process.env.STOREFRONT_URL;
    const secret = process.env.OPERATOR_SECRET;
    if (!url) throw new UsageError("--remote needs --url https://<your worker> (or STOREFRONT_URL).");
    if (!secret)
      throw new UsageError(
        "--remote needs OPERATOR_SECRET in the environment (the value given to `wrangler secret put`).",
      );
    return work(remoteUrl(url), secret);
  }
  // The dev server of this state directory, on whatever port `npm run dev` chose (it records it).
  const state = localStateDir(target.persistTo);
  const recorded = target.url === undefined ? recordedDevServerUrl(state) : undefined;
  const url = target.url ?? (recorded !== undefined && (await answers(recorded)) ? recorded : DEFAULT_LOCAL_URL);
  if (await answers(url)) return work(url, localOperatorSecret());
  if (target.url) throw new Error(`Nothing answers at ${url}. Start it with npm run dev, or leave out --url.`);
  process.stderr.write(`No dev server at ${url}; starting wrangler dev on the local state for this command...\n`);
  const worker = await startLocalWorker(state);
  try {
    return await work(worker.url, worker.secret);
  } finally {
    worker.stop();
  }
}
