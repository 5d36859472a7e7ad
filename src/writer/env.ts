import type { EntrySink } from "./target.ts";

/**
 * The catalog writer's bindings: the storefront's catalog namespace, browse database and snapshots
 * bucket, and itself (CATALOG_WRITER: the chunks of a batch's writes go to a new invocation each).
 */
export interface WriterEnv {
  CATALOG: KVNamespace;
  BROWSE: D1Database;
  BROWSE_SNAPSHOTS: R2Bucket;
  CATALOG_WRITER: EntrySink;
  /** The release clock (src/writer/release-clock.ts): one object, named `catalog`, whose alarm switches scheduled releases. */
  CATALOG_RELEASES: DurableObjectNamespace<ReleaseClock>;
  /** How long a batch waits for the lock, in ms (LOCK_WAIT_MS when unset; the tests shorten it). */
  CATALOG_LOCK_WAIT_MS?: string;
}

/** The catalog's one release clock. */
export function releaseClock(env: Pick<WriterEnv, "CATALOG_RELEASES">): DurableObjectStub<ReleaseClock> {
  return env.CATALOG_RELEASES.get(env.CATALOG_RELEASES.idFromName("catalog"));
}

/** What the writer calls on its release clock (src/writer/release-clock.ts implements it). */
export interface ReleaseClock extends Rpc.DurableObjectBranded {
  arm(at: number): Promise<void>;
}
