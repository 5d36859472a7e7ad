import { storefrontApp } from "./app.ts";
import { deliverOrderEvents } from "./checkout/event-delivery.ts";
import { devPay } from "./routes/dev-pay.ts";

export type { AppType, OperatorAppType } from "./app.ts";
export * from "./objects.ts";
// The catalog writer's entrypoint beside the app, for the tests only (vitest.config.ts binds
// CATALOG_WRITER to it): `npm run dev` and a deployment run it as its own Worker (writer/wrangler.toml).
export { CatalogReleaseClock, CatalogWriter } from "./writer/index.ts";

/**
 * The Worker as `npm run dev` serves it: the deployed one (src/index.ts) plus the local test
 * payment page at /dev/pay, which exists only here, so a deployed Worker neither carries nor
 * answers it (404 route_not_found, as before; about 1 KB gzip of the bundle budget).
 */
export default Object.assign(storefrontApp({ "/dev/pay": devPay }), { queue: deliverOrderEvents });
