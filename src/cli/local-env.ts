import { getPlatformProxy } from "wrangler";

/** The bindings of the project's wrangler.toml, backed by the state `wrangler dev` reads. */
export interface LocalEnv {
  env: Env;
  dispose: () => Promise<void>;
}

/**
 * Opens the local state that `wrangler dev` uses (`.wrangler/state/v3`, or `persistPath`), so
 * operator tools write exactly where the dev server reads. Always `dispose()` when done.
 *
 * Only KV is used through it. The proxy cannot run the Cart Durable Object and says so in a
 * warning that would alarm a new user of `npm run dev`, so wrangler's log is kept to errors while
 * it starts (and restored, so a `wrangler dev` started afterwards logs as usual).
 */
export async function openLocalEnv(persistPath?: string): Promise<LocalEnv> {
  const logLevel = process.env.WRANGLER_LOG;
  process.env.WRANGLER_LOG = "error";
  try {
    const proxy = await getPlatformProxy<Env>({
      configPath: "wrangler.toml",
      persist: persistPath ? { path: persistPath } : true,
      remoteBindings: false,
    });
    return { env: proxy.env, dispose: () => proxy.dispose() };
  } finally {
    if (logLevel === undefined) delete process.env.WRANGLER_LOG;
    else process.env.WRANGLER_LOG = logLevel;
  }
}
