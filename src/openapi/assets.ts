/**
 * Where the two OpenAPI documents live once built: `npm run docs:assets` (run before dev, test,
 * check and deploy) builds them in Node from the routes' `describe()` entries and writes them under
 * `public/`, and the worker's two routes read them through the ASSETS binding. So the document
 * builder, the guide and zod's JSON Schema conversion stay out of the worker's bundle.
 *
 * Not under `/docs/`, the one folder a route serves as it is: with `run_worker_first` no request
 * reaches `public/` but through a route, so the operator's document is served only by its own
 * route, behind the operator secret.
 */
export const OPENAPI_ASSETS = {
  public: "/openapi/openapi.json",
  operator: "/openapi/operator.openapi.json",
} as const;

/** A document's bytes as written and served: compact JSON, what `c.json` wrote when the worker built it. */
export function documentBytes(document: unknown): string {
  return JSON.stringify(document);
}
