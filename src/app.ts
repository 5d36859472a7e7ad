import { Hono } from "./http/hono.ts";
import type { AppEnv } from "./http/app-env.ts";
import { allowlistCors, publicCors } from "./http/cors.ts";
import { notFoundHandler, onError, requestContext } from "./http/request-context.ts";
import { RouteTable } from "./http/route-table.ts";
import { auth } from "./routes/auth.ts";
import { cart } from "./routes/cart.ts";
import { carts } from "./routes/carts.ts";
import { checkouts } from "./routes/checkouts.ts";
import { collections } from "./routes/collections.ts";
import { docs } from "./routes/docs.ts";
import { health } from "./routes/health.ts";
import { openapi, operatorOpenapi } from "./routes/openapi.ts";
import { operator } from "./routes/operator.ts";
import { orders } from "./routes/orders.ts";
import { webhooks } from "./routes/webhooks.ts";
import { operatorStock } from "./routes/operator-stock.ts";
import { operatorCatalog } from "./routes/operator-catalog.ts";
import { operatorRules } from "./routes/operator-rules.ts";
import { operatorDiscounts } from "./routes/operator-discounts.ts";
import { products } from "./routes/products.ts";
import { shopperOrders } from "./routes/shopper-orders.ts";

const routeTable = new RouteTable();
const catalogCors = publicCors(routeTable);
const privateCors = allowlistCors(routeTable);

/**
 * The storefront's v1 API. Chained so its type can feed `hc<AppType>` in a typed client. A `/x/*`
 * pattern also matches `/x`, so each CORS middleware is mounted once per resource. The operator's
 * surface is mounted beside it, not in it: neither the public client nor the public document
 * carries it.
 */
const api = new Hono<AppEnv>()
  .use("/products/*", catalogCors)
  .use("/collections/*", catalogCors)
  .use("/openapi.json", catalogCors)
  .use("/cart/*", privateCors)
  .use("/carts", privateCors)
  // "/checkouts/*" matches "/checkouts" itself too: a second use answered `Vary: Origin, Origin`.
  .use("/checkouts/*", privateCors)
  .use("/orders/*", privateCors)
  .use("/auth/*", privateCors)
  .route("/products", products)
  .route("/collections", collections)
  .route("/cart", cart)
  .route("/carts", carts)
  .route("/checkouts", checkouts)
  .route("/orders", shopperOrders)
  .route("/webhooks", webhooks)
  .route("/auth", auth)
  .route("/openapi.json", openapi)
  .route("/health", health);

/** The operator's token surface and its own document, behind the operator secret (see `requireOperator`). */
const operatorApi = new Hono<AppEnv>()
  .route("/stock", operatorStock)
  .route("/catalog", operatorCatalog)
  .route("/rules", operatorRules)
  .route("/discounts", operatorDiscounts)
  .route("/", operator)
  .route("/", orders)
  .route("/openapi.json", operatorOpenapi);

/**
 * The whole app: the API, the operator's surface and /docs, with `extra` (path -> app) mounted
 * beside them. Called once per Worker entry: src/index.ts (what `wrangler deploy` uploads) and
 * src/dev.ts (what `npm run dev` serves, the local test payment page added), never both in one
 * bundle, since the route table the CORS middleware reads is this module's.
 */
export function storefrontApp(extra: Record<string, Hono<AppEnv>> = {}): Hono<AppEnv> {
  let app = new Hono<AppEnv>().use(requestContext()).route("/api/v1", api).route("/api/v1/operator", operatorApi);
  for (const [path, routes] of Object.entries(extra)) app = app.route(path, routes);
  app = app.route("/", docs);
  app.onError(onError);
  routeTable.load(app.routes);
  app.notFound(notFoundHandler(routeTable));
  return app;
}

/** The storefront's routes, for `hc<AppType>("https://…/api/v1")`. */
export type AppType = typeof api;
/** The operator's routes, for `hc<OperatorAppType>("https://…/api/v1/operator")` with the operator secret. */
export type OperatorAppType = typeof operatorApi;
