import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
/** The KV bindings of the project's wrangler.toml, backed by the state `wrangler dev` reads. */
export interface LocalEnv {
  env: Pick<Env, "CATALOG" | "TOKENS" | "BROWSE" | "BROWSE_SNAPSHOTS" | "ORDERS">;
  dispose: () => Promise<void>;
}

/** What `wrangler dev` persists into by default (`--persist-to DIR` makes it DIR/v3). */
export const DEFAULT_STATE = ".wrangler/state/v3";

/**
 * Opens the local state that `wrangler dev` uses (`.wrangler/state/v3`, or `persistPath`), so
 * operator tools write exactly where the dev server reads. Always `dispose()` when done.
 *
 * The tools only need KV, so this runs an empty worker with just the KV namespaces wrangler.toml
 * declares (read through wrangler, so ids never drift). wrangler's getPlatformProxy would also
 * bind the Cart Durable Object to a worker that cannot export it, which makes workerd warn that
 * carts "will fail at runtime"; and `cf: false` keeps Miniflare from fetching Request.cf data
 * from the internet (a stack trace when offline) for a worker that never serves a request.
 */
export async function openLocalEnv(persistPath: string = DEFAULT_STATE): Promise<LocalEnv> {
  assertWritableState(persistPath);
  // Loaded here, not at the top: they take seconds, and --help or a usage error should not wait.
  const [{ convertV4MiniflareOptions, Log, LogLevel, Miniflare }, { unstable_getMiniflareWorkerOptions }] =
    await Promise.all([import("miniflare"), import("wrangler")]);
  await bindWorkerdToParent();
  const { workerOptions } = quietly(() => unstable_getMiniflareWorkerOptions("wrangler.toml"));
  const kvNamespaces = (workerOptions as { kvNamespaces?: Record<string, string | { id: string }> }).kvNamespaces ?? {};
  // The browse index (D1) is written by every publish beside the KV entries.
  const d1Databases = (workerOptions as { d1Databases?: Record<string, string | { id: string }> }).d1Databases ?? {};
  // And its snapshot (R2), which the engines load first.
  const r2Buckets = (workerOptions as { r2Buckets?: Record<string, string | { id: string }> }).r2Buckets ?? {};
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      cf: false,
      log: new Log(LogLevel.WARN),
      resourcePersistencePath: persistPath,
      workers: [
        {
          name: "storefront-local-state",
          modules: true,
          script: "export default {};",
          kvNamespaces,
          d1Databases,
          r2Buckets,
        },
      ],
    }),
  );
  const env = await mf.getBindings<Pick<Env, "CATALOG" | "TOKENS" | "BROWSE" | "BROWSE_SNAPSHOTS" | "ORDERS">>();
  return {
    env: {
      CATALOG: retrying(env.CATALOG, RETRIED_CALLS.kv),
      TOKENS: retrying(env.TOKENS, RETRIED_CALLS.kv),
      BROWSE: retrying(env.BROWSE, RETRIED_CALLS.d1),
      BROWSE_SNAPSHOTS: retrying(env.BROWSE_SNAPSHOTS, RETRIED_CALLS.r2),
      ORDERS: retrying(env.ORDERS, RETRIED_CALLS.d1),
    },
    dispose: () => mf.dispose(),
  };
}

/** The calls of each kind of binding a publish makes through Miniflare's proxy, all safe to repeat. */
export const RETRIED_CALLS = {
  kv: ["get", "getWithMetadata", "put", "delete", "list"],
  d1: ["batch", "exec"],
  r2: ["get", "head", "put", "delete", "list"],
} as const;

/**
 * `binding` with each of `calls` retried (four times, after 1, 2, 3 and 4 waits of `waitMs`) when
 * Miniflare's proxy loses its socket ("fetch failed": "other side closed", "write EPIPE"): on a
 * loaded machine (load 4-6) a 100k publish died so in the browse index's D1 batches, and a 1M
 * publish, its passes yielding, in a KV or R2 call after 57,000 of 63,345 entries (24 minutes
 * of work lost). Every call retried is safe to repeat: a KV or R2 put writes the same value, a
 * delete deletes, a read reads; a D1 batch is one transaction, so a lost one was not applied (a
 * retry of one that was would fail loudly on its CREATE TABLE or primary keys, not double rows).
 */
export function retrying<T extends object>(
  binding: T,
  calls: readonly string[],
  say: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  waitMs = 1000,
): T {
  return new Proxy(binding, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      const call = (value as (...a: unknown[]) => unknown).bind(target);
      if (typeof prop !== "string" || !calls.includes(prop)) return call;
      return async (...args: unknown[]) => {
        for (let attempt = 0; ; attempt++) {
          try {
            return await call(...args);
          } catch (error) {
            if (attempt >= 4 || !(error instanceof TypeError && /fetch failed/.test(error.message))) throw error;
            say(`${prop} lost Miniflare's socket (${String(error.cause ?? error)}); retrying`);
            await new Promise((resolve) => setTimeout(resolve, waitMs * (attempt + 1)));
          }
        }
      };
    },
  });
}

/**
 * Runs `read` with wrangler's logger at errors only. Reading wrangler.toml warns that the secrets
 * of `[secrets] required` are missing, but the tools open only the storage bindings (KV, D1, R2)
 * and never run the API, so that warning would only bury the tool's own first line.
 */
function quietly<T>(read: () => T): T {
  const before = process.env.WRANGLER_LOG;
  process.env.WRANGLER_LOG = "error";
  try {
    return read();
  } finally {
    if (before === undefined) delete process.env.WRANGLER_LOG;
    else process.env.WRANGLER_LOG = before;
  }
}

/**
 * The environment for a `wrangler dev` the tools start: no metrics, and no fetch of Request.cf
 * data from workers.cloudflare.com (offline it fails with two stack traces per start; the
 * worker never reads `request.cf`, so Miniflare's placeholder is enough; set
 * CLOUDFLARE_CF_FETCH_ENABLED=true to fetch it anyway).
 */
export function quietWranglerEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    CLOUDFLARE_CF_FETCH_ENABLED: process.env.CLOUDFLARE_CF_FETCH_ENABLED ?? "false",
  };
}

const SETPRIV = "/usr/bin/setpriv";

/**
 * Makes every workerd this process (and the wrangler it starts) spawns die with its parent, where
 * the platform allows it: on Linux with util-linux's setpriv, Miniflare runs workerd through
 * workerd-bound.sh, which sets PR_SET_PDEATHSIG. A SIGTERM or SIGINT already ends workerd
 * (Miniflare's exit hook kills it); this covers kill -9 and crashes, which left workerd running
 * with the state's SQLite files open. Elsewhere, or when MINIFLARE_WORKERD_PATH is set, nothing
 * changes.
 */
export async function bindWorkerdToParent(): Promise<void> {
  if (process.platform !== "linux" || process.env.MINIFLARE_WORKERD_PATH || !existsSync(SETPRIV)) return;
  // The package's binary path (its default export); named through a variable: it ships no types.
  const name = "workerd";
  const workerd = ((await import(name)) as { default: { default: string } | string }).default;
  const binary = typeof workerd === "string" ? workerd : workerd.default;
  if (typeof binary !== "string" || !existsSync(binary)) return;
  process.env.STOREFRONT_WORKERD = binary;
  process.env.MINIFLARE_WORKERD_PATH = join(dirname(fileURLToPath(import.meta.url)), "workerd-bound.sh");
}

/** The state can be written where it matters: one line naming the path and what to do, never workerd's stack traces. */
export class StateNotWritableError extends Error {
  constructor(path: string, code: string | undefined) {
    const why = code === "EROFS" ? "it is on a read-only file system" : "this user may not write there";
    super(
      `Local state ${path} is not writable (${why}): the tools keep the catalog, tokens and carts there. ` +
        `Run as its owner, make it writable, or give --persist-to a writable directory.`,
    );
    this.name = "StateNotWritableError";
  }
}

/** Directories deeper than this are not walked (the state's storage directories are 2-3 levels down). */
const STATE_DEPTH = 3;

/**
 * Checks, before a lock file or Miniflare touches it, that the state directory (or the nearest
 * existing directory above it) and every directory and SQLite file of its storage can be written
 * (issue 33: a read-only state printed 16 stack traces from workerd). access(2) reports a
 * read-only file system even to root.
 */
export function assertWritableState(dir: string): void {
  let existing = dir;
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  const check = (path: string) => {
    try {
      accessSync(path, constants.W_OK);
    } catch (error) {
      throw new StateNotWritableError(path, (error as NodeJS.ErrnoException).code);
    }
  };
  check(existing);
  if (existing !== dir) return;
  const walk = (path: string, depth: number) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) {
        check(full);
        if (depth < STATE_DEPTH && entry.name !== "blobs") walk(full, depth + 1);
      } else if (/\.sqlite(-wal|-shm)?$/.test(entry.name)) check(full);
    }
  };
  walk(dir, 1);
}
