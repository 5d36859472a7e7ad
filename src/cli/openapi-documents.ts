/**
 * The app's two OpenAPI documents, built in Node from its routes' `describe()` entries: what
 * `npm run docs:assets` writes for the worker to serve, and what `npm run check`'s lint validates.
 * The worker's entry exports Durable Object classes (and, in dev, the catalog writer's entrypoint)
 * whose base classes exist only in workerd; under
 * Node it is stood in for, since building the documents never runs them.
 */
import { registerHooks } from "node:module";
import type { JsonSchema } from "../openapi/json-schema.ts";

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === "cloudflare:workers")
      return {
        url: "data:text/javascript,export class DurableObject {} export class WorkerEntrypoint {}",
        shortCircuit: true,
      };
    return next(specifier, context);
  },
});

/** One document: its asset path (`/openapi/…`, see src/openapi/assets.ts) and its content. */
export interface OpenApiDocumentFile {
  asset: string;
  document: JsonSchema;
}

/** Both documents, public first, with where the worker reads each. */
export async function buildOpenApiDocuments(): Promise<OpenApiDocumentFile[]> {
  // Imported only now: a static import would load the app before the hook above is registered.
  const [{ default: app }, { ApiReference }, { OPENAPI_ASSETS }, { OPERATION_DOCS }] = await Promise.all([
    // The dev entry: the deployed routes plus the local test payment page, which the reference documents.
    import("../dev.ts"),
    import("../openapi/openapi.ts"),
    import("../openapi/assets.ts"),
    import("../routes/reference/index.ts"),
  ]);
  const reference = new ApiReference(app.routes, OPERATION_DOCS);
  return [
    { asset: OPENAPI_ASSETS.public, document: reference.publicDocument() },
    { asset: OPENAPI_ASSETS.operator, document: reference.operatorDocument() },
  ];
}
