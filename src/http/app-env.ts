/** How a catalog response was served, for the request log. */
export type CacheStatus = "hit" | "miss" | "bypass";

/** The Hono environment every route module shares. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    cacheStatus?: CacheStatus;
  };
}
