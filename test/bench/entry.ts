/**
 * The entry module every timed bench runtime puts in front of the production bundle
 * (`./index.js`, unchanged): it adds the **cart ceiling**, the irreducible work of a cart write
 * and nothing else, so a cart workload can be compared with what the runtime allows for one.
 *
 * `POST /__bench/cart/<name>` reads the request body, makes the one rate-limit call the contract
 * requires (`CART_WRITE_LIMITER.limit`, keyed by `<name>` as a cart write is keyed by its token)
 * and one RPC to `BenchCeiling`, a SQLite Durable Object named `<name>` (as a cart is named from
 * its holder), which runs one upsert. No token lookup, no validation, no catalog read, no
 * rendering. Every other request goes to the bundle after one string comparison on its path
 * (`/__bench/`), as the bare ceilings below do before their own.
 *
 * This module exists only in the bench's Miniflare (runtime.ts); the production bundle does not
 * contain it, and nothing in src/ knows about it.
 */
export const CEILING_PREFIX = "/__bench/cart/";

/**
 * The **checkout floor** (issue 42 point 20): the least a checkout that holds stock can do, so the
 * create row can be read against it as the adds are against the cart ceiling. `POST
 * /__bench/checkout/<name>` reads the body, makes the one per-token limiter call the contract
 * requires of `POST /checkouts` (CHECKOUT_TOKEN_LIMITER; the per-address one needs an address the
 * bench does not send) and one RPC to the `BenchCeiling` object `<name>`, which records the
 * checkout (its table made on the object's first checkout, as a cart makes its checkouts' tables),
 * holds a unit in two other objects at once (one upsert each, as the create row's carts, an
 * untracked line and the tracked variant's, hold in two of the 16 stock shards: `stock` is the
 * tracked variant's, shared by every checkout, and `stock-<n>` one of 16 by the object's number)
 * and marks it held: the write-ahead record, the holds in other objects, the record settled. No
 * token, no cart read, no pricing, no expiry alarm, no rendering.
 */
export const CHECKOUT_FLOOR_PREFIX = "/__bench/checkout/";

/**
 * The **bare ceilings**: what the runtime itself costs per request, measured in the
 * same isolate and the same run as the bundle. `GET /__bench/bare/worker` is answered by this
 * module's own few lines (a fixed JSON Response, the body `/health` answers); `GET
 * /__bench/bare/hono` by a Hono app with that one route, bundled by esbuild as wrangler bundles
 * the worker (bundle.ts, `BARE_HONO_SOURCE`). Both pay the same path test every bundle request pays.
 */
export const BARE_WORKER_PATH = "/__bench/bare/worker";
export const BARE_HONO_PATH = "/__bench/bare/hono";
/**
 * **POST /carts' floor**: the bare Worker's fixed JSON after the one rate-limit call the contract
 * requires of issuing a cart (CART_ISSUE_LIMITER, keyed as POST /carts keys a request without
 * `CF-Connecting-IP`), so the POST /carts row can be read against the least it could cost here.
 */
export const BARE_LIMITED_PATH = "/__bench/bare/limited";
/** The fixed answer of both bare ceilings: the same bytes `/health` answers. */
export const BARE_BODY = '{"status":"ok"}';

/** The bare Hono app's source (bundled by bundle.ts into `bench-bare-hono.js`). */
export const BARE_HONO_SOURCE = `
import { Hono } from "hono";
export default new Hono().get(${JSON.stringify(BARE_HONO_PATH)}, (c) => c.json({ status: "ok" }));
`;

/**
 * **The Stripe host** (issue 43's checkout with Stripe): a request sent with `Host: stripe.bench`
 * is the bundle's request, answered with `PAYMENT_PROVIDER=stripe` in its env, as a Worker whose
 * vars say `stripe` reads it (the route passes it to the checkout object). So one runtime, its
 * carts and its checkouts measure the create with and without Stripe side by side; the runtime's
 * STRIPE_API_BASE names the local stand-in (runtime.ts `stripeApiBase`). The host, not a path
 * prefix: a prefix had to be cut off by copying the Request, which cost the row ~880 µs of the
 * isolate's time per request in a profile (`profile.ts --workload checkout-stripe`). Every other
 * request pays one more string comparison (its URL does not start with this origin).
 */
export const STRIPE_HOST = "stripe.bench";

/** The Durable Object binding and class the entry module adds (runtime.ts declares them). */
export const CEILING_BINDING = "BENCH_CEILING";
export const CEILING_CLASS = "BenchCeiling";

export const BENCH_ENTRY = `
import worker from "./index.js";
import bareHono from "./bench-bare-hono.js";
import { DurableObject } from "cloudflare:workers";
export * from "./index.js";

const BENCH = "/__bench/";
const PREFIX = ${JSON.stringify(CEILING_PREFIX)};
const FLOOR = ${JSON.stringify(CHECKOUT_FLOOR_PREFIX)};
const BARE_WORKER = ${JSON.stringify(BARE_WORKER_PATH)};
const BARE_HONO = ${JSON.stringify(BARE_HONO_PATH)};
const BARE_LIMITED = ${JSON.stringify(BARE_LIMITED_PATH)};
const BARE_BODY = ${JSON.stringify(BARE_BODY)};
const STRIPE = ${JSON.stringify(`http://${STRIPE_HOST}/`)};

export class ${CEILING_CLASS} extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    // A new object creates its one table, as a new cart creates its schema.
    this.sql.exec("CREATE TABLE IF NOT EXISTS line (id TEXT PRIMARY KEY, quantity INTEGER NOT NULL)");
  }
  add(id, quantity) {
    return this.sql
      .exec("INSERT INTO line (id, quantity) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET quantity = quantity + excluded.quantity RETURNING quantity", id, quantity)
      .one().quantity;
  }
  async checkout(shard, quantity) {
    if (!this.checkouts) {
      this.sql.exec("CREATE TABLE IF NOT EXISTS checkout (id TEXT PRIMARY KEY, held INTEGER NOT NULL)");
      this.checkouts = true;
    }
    const id = crypto.randomUUID();
    this.sql.exec("INSERT INTO checkout (id, held) VALUES (?, 0)", id);
    const namespace = this.env.${CEILING_BINDING};
    await Promise.all(
      ["stock", "stock-" + shard].map((name) => namespace.get(namespace.idFromName(name)).add(id, quantity)),
    );
    this.sql.exec("UPDATE checkout SET held = 1 WHERE id = ?", id);
    return id;
  }
}

async function limitedBare(env) {
  const { success } = await env.CART_ISSUE_LIMITER.limit({ key: "no-address" });
  if (!success) return rateLimited();
  return new Response(BARE_BODY, { headers: { "content-type": "application/json" } });
}

async function checkoutFloor(request, env, name) {
  await request.arrayBuffer();
  const { success } = await env.CHECKOUT_TOKEN_LIMITER.limit({ key: name });
  if (!success) return rateLimited();
  const namespace = env.${CEILING_BINDING};
  const id = await namespace.get(namespace.idFromName(name)).checkout(Number(name.slice(name.lastIndexOf("-") + 1)) % 16, 1);
  return new Response('{"id":"' + id + '"}', { status: 201, headers: { "content-type": "application/json" } });
}

function rateLimited() {
  return new Response('{"error":"rate_limited"}', { status: 429 });
}

async function cartCeiling(request, env, name) {
  await request.arrayBuffer();
  const { success } = await env.CART_WRITE_LIMITER.limit({ key: name });
  if (!success) return rateLimited();
  const namespace = env.${CEILING_BINDING};
  const quantity = await namespace.get(namespace.idFromName(name)).add("line", 1);
  return new Response('{"quantity":' + quantity + '}', { headers: { "content-type": "application/json" } });
}

export default {
  fetch(request, env, ctx) {
    const url = request.url;
    if (url.startsWith(STRIPE)) return worker.fetch(request, { ...env, PAYMENT_PROVIDER: "stripe" }, ctx);
    const path = url.indexOf("/", url.indexOf("//") + 2);
    if (!url.startsWith(BENCH, path)) return worker.fetch(request, env, ctx);
    if (url.startsWith(BARE_WORKER, path)) return new Response(BARE_BODY, { headers: { "content-type": "application/json" } });
    if (url.startsWith(BARE_HONO, path)) return bareHono.fetch(request, env, ctx);
    if (url.startsWith(BARE_LIMITED, path)) return limitedBare(env);
    if (url.startsWith(PREFIX, path)) return cartCeiling(request, env, url.slice(path + PREFIX.length));
    if (url.startsWith(FLOOR, path)) return checkoutFloor(request, env, url.slice(path + FLOOR.length));
    return worker.fetch(request, env, ctx);
  },
};
`;
