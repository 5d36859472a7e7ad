// The test worker serves the catalog writer's entrypoint and its release clock itself
// (vitest.config.ts binds both to src/dev.ts's exports), so its env has the writer's clock too.
declare namespace Cloudflare {
  interface Env {
    CATALOG_RELEASES: DurableObjectNamespace<import("../../src/writer/release-clock.ts").CatalogReleaseClock>;
  }
}
