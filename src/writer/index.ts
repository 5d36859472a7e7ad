import { WorkerEntrypoint } from "cloudflare:workers";
import type { ChangesReply, ChangesRequest, ReleaseRequest } from "../catalog/changes-api.ts";
import type { KvEntry } from "../publish/build.ts";
import { bindingTarget } from "../publish/publish.ts";
import { applyChanges } from "./apply.ts";
import { releaseClock, type WriterEnv } from "./env.ts";
import type { EntrySink } from "./target.ts";

/**
 * The catalog writer Worker (docs/decisions/0015-change-batches.md, "The operator's endpoint"): the
 * catalog schema, the description sanitiser and the batch writer, kept out of the storefront
 * Worker's bundle. It has no public route: the storefront's `POST /operator/catalog/changes`
 * authenticates the operator, reads the body and calls `applyChanges` over the service binding
 * `CATALOG_WRITER`.
 */
export class CatalogWriter extends WorkerEntrypoint<WriterEnv> implements EntrySink {
  override fetch(): Response {
    return new Response(null, { status: 404 });
  }

  applyChanges(request: ChangesRequest): Promise<ChangesReply> {
    return applyChanges(this.env, request);
  }

  /**
   * `POST /operator/catalog/releases`: wakes the release clock at a scheduled release's second. The
   * history holds the schedule (src/publish/release.ts); arming twice, or for a release since
   * canceled, only wakes the clock for nothing.
   */
  async armRelease(request: ReleaseRequest): Promise<void> {
    await releaseClock(this.env).arm(Date.parse(request.release_at));
  }

  /** A chunk of a batch's entries, written in an invocation of its own (src/writer/target.ts). */
  async putEntries(entries: KvEntry[]): Promise<void> {
    await bindingTarget(this.env.CATALOG).writeEntries(entries, () => {});
  }

  /** A chunk of a batch's cleanup, deleted in an invocation of its own. */
  deleteEntries(keys: string[]): Promise<void> {
    return bindingTarget(this.env.CATALOG).deleteKeys(keys);
  }
}

export default CatalogWriter;
export { CatalogReleaseClock } from "./release-clock.ts";
