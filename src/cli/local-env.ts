import { getPlatformProxy } from "wrangler";

/** The bindings of the project's wrangler.toml, backed by the state `wrangler dev` reads. */
export interface LocalEnv {
  env: Env;
  dispose: () => Promise<void>;
}

/**
 * Opens the local state that `wrangler dev` uses (`.wrangler/state/v3`, or `persistPath`), so
 * operator tools write exactly where the dev server reads. Always `dispose()` when done.
 */
export async function openLocalEnv(persistPath?: string): Promise<LocalEnv> {
  const proxy = await getPlatformProxy<Env>({
    configPath: "wrangler.toml",
    persist: persistPath ? { path: persistPath } : true,
    remoteBindings: false,
  });
  return { env: proxy.env, dispose: () => proxy.dispose() };
}
