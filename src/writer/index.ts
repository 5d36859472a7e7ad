import { WorkerEntrypoint } from "cloudflare:workers";
import type { CatalogWriterService, ChangesReply, ChangesRequest } from "../catalog/changes-api.ts";
import { applyChanges, type WriterEnv } from "./apply.ts";

/**
 * The catalog writer Worker (docs/decisions/0015-change-batches.md, "The operator's endpoint"): the
 * catalog schema, the description sanitiser and the batch writer, kept out of the storefront
 * Worker's bundle. It has no public route: the storefront's `POST /operator/catalog/changes`
 * authenticates the operator, reads the body and calls `applyChanges` over the service binding
 * `CATALOG_WRITER`.
 */
export class CatalogWriter extends WorkerEntrypoint<WriterEnv> implements CatalogWriterService {
  override fetch(): Response {
    return new Response(null, { status: 404 });
  }

  applyChanges(request: ChangesRequest): Promise<ChangesReply> {
    return applyChanges(this.env, request);
  }
}

export default CatalogWriter;
