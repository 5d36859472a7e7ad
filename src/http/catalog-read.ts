import type { Context, MiddlewareHandler } from "hono";
import type * as z from "zod/mini";
import type { AppEnv } from "./app-env.ts";
import {
  CACHE_MISSING,
  CACHE_OK,
  catalogCacheKey,
  conditional,
  edgeCache,
  JSON_CONTENT_TYPE,
  originOf,
  type StoredAnswer,
  strongEtag,
} from "./cache.ts";
import { ApiError, catalogUnavailable, fromFailure, invalidRequest, resourceMissing } from "./errors.ts";
import { redactedBody } from "./request-context.ts";
import { holdsCredential } from "./secrets.ts";
import { parseQueryPairs, queryParams, type QueryInput, type Validated } from "./validate.ts";
import { CatalogError } from "../catalog/errors.ts";
import { type StockOverlay, type StockScope, stockKeyPart, type VersionMeta } from "../catalog/layout.ts";
import { isHandle } from "../catalog/fields.ts";
import { BoundedMemo } from "../memo.ts";
import { CatalogStore, pointerTtlMs } from "../catalog/store.ts";
import { stockStore } from "../stock/store.ts";

/** What `catalogRead` hands the handler: the store and the version this request reads. */
export interface CatalogEnv extends AppEnv {
  Variables: AppEnv["Variables"] & { catalogStore: CatalogStore; catalogMeta: VersionMeta };
}

/** Builds a response body from the version read and the parsed query. */
export type CatalogBody<Q> = (store: CatalogStore, meta: VersionMeta, query: Q) => Promise<string>;

/**
 * A list answer's place in its body, for its `Link` header: the envelope itself or one member
 * of the body (a collection's `products`), and the item field its cursors name.
 */
export interface Paging {
  cursor: "handle" | "id";
  at?: "products";
}

/**
 * The first and last cursor of a rendered page and its `has_more`, kept with the stored answer
 * under this header (never sent: serveCatalogRead turns it into `Link`), so a cached page needs
 * no parse to link its neighbours.
 */
const PAGE_EDGES = "X-Page-Edges";

interface PageEdges {
  first?: string;
  last?: string;
  more: boolean;
}

function pageEdges(text: string, paging: Paging): PageEdges {
  const body = JSON.parse(text) as Record<string, unknown>;
  const list = (paging.at ? body[paging.at] : body) as { data: Record<string, unknown>[]; has_more: boolean };
  const first = list.data[0]?.[paging.cursor];
  const last = list.data.at(-1)?.[paging.cursor];
  return {
    ...(typeof first === "string" ? { first } : {}),
    ...(typeof last === "string" ? { last } : {}),
    more: list.has_more,
  };
}

/**
 * RFC 8288 `Link` for a page: `rel="next"` and `rel="prev"` URLs that repeat the request's own
 * parameters with the cursor and the page's catalog version filled in, so any HTTP client can
 * follow a list without knowing its cursor rules. After `ending_before`, `has_more` speaks of
 * the items before the page; otherwise of the items after it.
 */
export function pageLinks(requestUrl: string, edges: PageEdges, version: string): string | undefined {
  const url = new URL(requestUrl);
  const params = url.searchParams;
  const after = params.has("starting_after");
  const before = params.has("ending_before");
  for (const name of ["starting_after", "ending_before", "catalog_version"]) params.delete(name);
  const link = (cursor: string, value: string, rel: string) => {
    const next = new URLSearchParams(params);
    next.set(cursor, value);
    next.set("catalog_version", version);
    return `<${url.origin}${url.pathname}?${next}>; rel="${rel}"`;
  };
  const links: string[] = [];
  const hasNext = before ? edges.last !== undefined : edges.more;
  const hasPrev = before ? edges.more : after;
  if (hasNext && edges.last !== undefined) links.push(link("starting_after", edges.last, "next"));
  if (hasPrev && edges.first !== undefined) links.push(link("ending_before", edges.first, "prev"));
  return links.length > 0 ? links.join(", ") : undefined;
}

function withHeaders(error: ApiError, headers: Record<string, string>): ApiError {
  return new ApiError(error.status, error.body, { ...error.headers, ...headers });
}

/**
 * Answers this isolate rendered or fetched, by Cache API key. The key holds the catalog version
 * and a version never changes, so no answer kept here can go stale; a publish is still visible
 * within the pointer's TTL because the pointer is read (or its memo checked) on every request.
 */
const answers = new BoundedMemo<StoredAnswer>(8 * 1024 * 1024);

function keep(key: string, answer: StoredAnswer): void {
  answers.set(key, answer, answer.body.length * 2);
}

async function render<Q>(
  body: CatalogBody<Q>,
  store: CatalogStore,
  meta: VersionMeta,
  query: Q,
  env: Env,
  paging: Paging | undefined,
): Promise<StoredAnswer> {
  const headers = { "Content-Type": JSON_CONTENT_TYPE, "X-Catalog-Version": meta.version };
  try {
    const text = await body(store, meta, query);
    return {
      status: 200,
      headers: {
        ...headers,
        "Cache-Control": CACHE_OK,
        ETag: await strongEtag(text),
        ...(paging ? { [PAGE_EDGES]: JSON.stringify(pageEdges(text, paging)) } : {}),
      },
      body: text,
    };
  } catch (thrown) {
    const error = thrown instanceof CatalogError ? fromFailure(thrown) : thrown;
    // 404s are answers about this catalog version, so they are cached like 200s (for less time).
    if (error instanceof ApiError && error.status === 404) {
      return {
        status: 404,
        headers: { ...headers, "Cache-Control": CACHE_MISSING },
        body: JSON.stringify({ error: redactedBody(error.body, env) }),
      };
    }
    throw error instanceof ApiError ? withHeaders(error, { "X-Catalog-Version": meta.version }) : error;
  }
}

/** Stores in the background when the runtime gives an execution context, else before answering. */
async function keepInCache(c: Context<CatalogEnv>, cache: Cache, key: Request, answer: StoredAnswer): Promise<void> {
  const response = new Response(answer.body, { status: answer.status, headers: answer.headers });
  const ctx = executionContext(c);
  if (ctx) ctx.waitUntil(cache.put(key, response));
  else await cache.put(key, response);
}

/** The runtime's execution context, or undefined where there is none (a test calling the app bare). */
function executionContext(c: Context<CatalogEnv>): Pick<ExecutionContext, "waitUntil"> | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

/**
 * Cursors are bound to a catalog version: a page that names the version it
 * belongs to (`catalog_version`, the first page's X-Catalog-Version) is served only while that
 * version is live. This runs before the memo and the edge cache are consulted, so a stale cursor
 * never gets a cached page, and its 409 is never cached (errors are not stored). A version that
 * differs from this isolate's kept pointer is checked against a fresh read first, so the pointer
 * TTL alone never refuses a client that paged a newer version.
 */
async function pagedVersion(
  c: Context<CatalogEnv>,
  store: CatalogStore,
  meta: VersionMeta,
  named: unknown,
): Promise<VersionMeta> {
  if (typeof named !== "string" || named === meta.version) return meta;
  const live = (await store.currentMeta({ reread: true })) ?? meta;
  if (live.version === named) return live;
  c.set("cacheStatus", "bypass");
  throw new ApiError(
    409,
    {
      type: "invalid_request_error",
      code: "cursor_stale",
      message:
        `This page belongs to catalog version ${named}, which is no longer live (now ` +
        `${live.version}). Restart from the first page, without catalog_version.`,
      param: "catalog_version",
    },
    { "X-Catalog-Version": live.version, "Cache-Control": "no-store" },
  );
}

/**
 * The first step of every anonymous catalog read, in this order: the path handle (no storage
 * touched), one pointer read (503 when nothing is published), then `parse` of the query, whose
 * errors (ApiError or CatalogError) carry the version read. `I`/`O` type the route's query for `hc`.
 */
export function catalogReadWith<I, O>(
  parse: (c: Context<CatalogEnv>) => O,
): MiddlewareHandler<CatalogEnv, string, Validated<"query", I, O>> {
  return async (c, next) => {
    const handle = c.req.param("handle");
    if (handle !== undefined && !isHandle(handle)) {
      c.set("cacheStatus", "bypass");
      throw withHeaders(
        resourceMissing("No resource has this handle: handles are lower case words joined by hyphens.", "handle"),
        {
          "Cache-Control": CACHE_MISSING,
        },
      );
    }
    // The operator secret can be a valid handle: answered here, it never reaches a cache key or a cached answer.
    if (handle !== undefined && holdsCredential(handle, c.env)) {
      c.set("cacheStatus", "bypass");
      throw withHeaders(resourceMissing("No resource has this handle.", "handle"), { "Cache-Control": "no-store" });
    }
    const store = new CatalogStore(c.env.CATALOG, { pointerTtlMs: pointerTtlMs(c.env.CATALOG_POINTER_TTL_MS) });
    const [meta, overlay] = await Promise.all([store.currentMeta(), store.stockOverlay()]);
    store.useStockOverlay(overlay);
    if (!meta) {
      c.set("cacheStatus", "bypass");
      throw withHeaders(catalogUnavailable(), { "Cache-Control": "no-store" });
    }
    let query: O;
    try {
      query = parse(c);
    } catch (thrown) {
      const error = thrown instanceof CatalogError ? fromFailure(thrown) : thrown;
      throw error instanceof ApiError ? withHeaders(error, { "X-Catalog-Version": meta.version }) : error;
    }
    const live = await pagedVersion(c, store, meta, (query as { catalog_version?: unknown }).catalog_version);
    c.req.addValidatedData("query", query as object);
    c.set("catalogStore", store);
    c.set("catalogMeta", live);
    await next();
    // The shards the overlay names hold this version's levels (written in the background, after
    // this answer), so no entry of an earlier version's stock lingers. Once per overlay read.
    if (meta.stock_tracked && !overlaysChecked.has(overlay)) {
      overlaysChecked.add(overlay);
      const ctx = executionContext(c);
      stockStore(c.env).startSync(meta, Object.keys(overlay.v), (work) => ctx?.waitUntil(work));
    }
  };
}

/** Overlays (as this isolate read them) whose shards' sync was started: a new one a second at most. */
const overlaysChecked = new WeakSet<StockOverlay>();

/** catalogReadWith a strict query schema (one value per parameter). */
export function catalogRead<S extends z.ZodMiniType>(
  schema: S,
): MiddlewareHandler<CatalogEnv, string, Validated<"query", QueryInput<S>, z.output<S>>> {
  return catalogReadWith<QueryInput<S>, z.output<S>>((c) => parseQueryPairs(catalogQuery(c), schema));
}

/** The well-known tracking parameters a storefront passes through from its links. */
const TRACKING = new Set(["fbclid", "gclid", "msclkid", "_ga", "ref"]);

/** Whether a query parameter is a tracking one: `utm_*`, `fbclid`, `gclid`, `msclkid`, `_ga`, `ref`. */
export function isTrackingParameter(name: string): boolean {
  return name.startsWith("utm_") || TRACKING.has(name);
}

/**
 * The query of a catalog read, as the parsers see it: tracking parameters left out (so they change
 * neither the answer nor the cache key; any other unknown parameter is still a 400), and a
 * credential (a token or the operator secret, in a name or a value) refused before anything could
 * echo it, such as a facet's `selected` value.
 */
export function catalogQuery(c: Context<CatalogEnv>): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of queryParams(c.req.url)) {
    if (holdsCredential(name, c.env) || holdsCredential(value, c.env)) {
      throw invalidRequest(
        "parameter_invalid",
        `Invalid ${name}: it holds a credential (a token or a secret); credentials never belong in a URL.`,
        name,
      );
    }
    if (!isTrackingParameter(name)) pairs.push([name, value]);
  }
  return pairs;
}

/**
 * The handler half of a catalog read: this isolate's memo, then the Workers Cache API, both under
 * a key holding the version, the live stock `stock` scopes (see `stockKeyPart`) and the parsed
 * query, and only on a miss the store. Conditional requests are answered from
 * whichever copy is at hand.
 */
export async function serveCatalogRead<Q extends object>(
  c: Context<CatalogEnv>,
  query: Q,
  body: CatalogBody<Q>,
  { stock, paging }: { stock: StockScope; paging?: Paging },
): Promise<Response> {
  const answer = await storedAnswer(c, query, body, stock, paging);
  return linked(c.req.url, conditional(answer, c.req.header("If-None-Match")));
}

/** The response without its page edges, which become its `Link` header (a 304 carries neither). */
function linked(requestUrl: string, response: Response): Response {
  const edges = response.headers.get(PAGE_EDGES);
  if (edges === null) return response;
  response.headers.delete(PAGE_EDGES);
  const version = response.headers.get("X-Catalog-Version");
  const link = version === null ? undefined : pageLinks(requestUrl, JSON.parse(edges) as PageEdges, version);
  if (link !== undefined) response.headers.set("Link", link);
  return response;
}

async function storedAnswer<Q extends object>(
  c: Context<CatalogEnv>,
  query: Q,
  body: CatalogBody<Q>,
  scope: StockScope,
  paging: Paging | undefined,
): Promise<StoredAnswer> {
  const meta = c.var.catalogMeta;
  // catalog_version was checked against the live version (catalogReadWith): the key holds that version already.
  const { catalog_version: _checked, ...keyed } = query as Record<string, unknown>;
  // Live stock joins the version: the digest of the overlay entries this answer shows, so a change
  // of availability misses the answers it changes, and only those.
  const stock = stockKeyPart(c.var.catalogStore.overlay, scope);
  const key = catalogCacheKey(
    originOf(c.req.url),
    stock ? `${meta.version}~s${stock}` : meta.version,
    c.req.path,
    keyed,
  );
  const kept = answers.get(key);
  if (kept) {
    c.set("cacheStatus", "hit");
    return kept;
  }
  const cache = edgeCache();
  const cacheKey = cache ? new Request(key) : undefined;
  const hit = cache && cacheKey ? await cache.match(cacheKey) : undefined;
  if (hit) {
    c.set("cacheStatus", "hit");
    const answer = { status: hit.status, headers: Object.fromEntries(hit.headers), body: await hit.text() };
    keep(key, answer);
    return answer;
  }
  c.set("cacheStatus", cache ? "miss" : "bypass");
  const answer = await render(body, c.var.catalogStore, meta, query, c.env, paging);
  keep(key, answer);
  if (cache && cacheKey) await keepInCache(c, cache, cacheKey, answer);
  return answer;
}
