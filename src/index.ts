import { Hono } from "hono";
import type { AppEnv } from "./http/app-env.ts";
import { allowlistCors, publicCors } from "./http/cors.ts";
import { notFoundHandler, onError, requestContext } from "./http/request-context.ts";
import { RouteTable } from "./http/route-table.ts";
import { auth } from "./routes/auth.ts";
import { cart } from "./routes/cart.ts";
import { checkouts } from "./routes/checkouts.ts";
import { collections } from "./routes/collections.ts";
import { docs, openapi } from "./routes/docs.ts";
import { health } from "./routes/health.ts";
import { operator } from "./routes/operator.ts";
import { products } from "./routes/products.ts";

export { Cart } from "./cart/cart-object.ts";

const routeTable = new RouteTable();
const catalogCors = publicCors(routeTable);
const privateCors = allowlistCors(routeTable);

/**
 * The v1 API. Chained so its type can feed `hc<AppType>` in a typed client. A `/x/*` pattern
 * also matches `/x`, so each CORS middleware is mounted once per resource.
 */
const api = new Hono<AppEnv>()
  .use("/products/*", catalogCors)
  .use("/collections/*", catalogCors)
  .use("/openapi.json", catalogCors)
  .use("/cart/*", privateCors)
  .use("/checkouts", privateCors)
  .use("/auth/*", privateCors)
  .route("/products", products)
  .route("/collections", collections)
  .route("/cart", cart)
  .route("/checkouts", checkouts)
  .route("/auth", auth)
  .route("/operator", operator)
  .route("/openapi.json", openapi)
  .route("/health", health);

const app = new Hono<AppEnv>().use(requestContext()).route("/api/v1", api).route("/", docs);

app.onError(onError);
routeTable.load(app.routes);
app.notFound(notFoundHandler(routeTable));

export type AppType = typeof api;
export default app;
