import { sha256Hex } from "../sha256.ts";
/**
 * HTTP caching for anonymous catalog reads: the contract's Cache-Control values, strong content
 * ETags, conditional requests and the Workers Cache API. Nothing here knows about products; the
 * catalog routes hand in a body and a version.
 */

/** 200s: a minute fresh, then five more minutes served stale while the edge revalidates. */
export const CACHE_OK = "public, max-age=60, stale-while-revalidate=300";
/** 404s: shorter, so a product published back in stock shows up soon even behind a CDN. */
export const CACHE_MISSING = "public, max-age=30";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * A strong ETag from the body bytes alone (SHA-256, first 128 bits, hex). No version or time
 * goes in, so an unchanged product keeps its ETag across catalog publishes.
 */
export async function strongEtag(body: string): Promise<string> {
  return `"${await sha256Hex(body, 16)}"`;
}

/**
 * Whether `If-None-Match` matches `etag`: `*`, or any listed tag by the weak comparison
 * RFC 9110 prescribes for this header (`W/"x"` matches `"x"`).
 */
export function ifNoneMatchHits(header: string | null | undefined, etag: string | null): boolean {
  if (!header || !etag) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => bare(tag) === bare(etag));
}

/** The headers every 304 repeats from the 200 it stands for (RFC 9110 section 15.4.5). */
const NOT_MODIFIED_HEADERS = ["ETag", "Cache-Control", "X-Catalog-Version", "Vary"];

/** Turns a stored 200 into a 304 when the client already holds it; otherwise a fresh copy. */
export function conditional(response: Response, ifNoneMatch: string | null | undefined): Response {
  if (response.status === 200 && ifNoneMatchHits(ifNoneMatch, response.headers.get("ETag"))) {
    const headers = new Headers();
    for (const name of NOT_MODIFIED_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    return new Response(null, { status: 304, headers });
  }
  // A copy with mutable headers: responses from the Cache API may not be changed in place,
  // and the request middleware still stamps X-Request-Id and CORS headers on it.
  return new Response(response.body, { status: response.status, headers: new Headers(response.headers) });
}

/**
 * The Cache API key for a catalog read: a synthetic GET URL holding the catalog version and the
 * canonical (parsed, defaulted, sorted) query, so equivalent URLs share an entry (`?include=seo,images`
 * and `?include=images,seo` too) and a publish starts a fresh key space without any purge.
 */
export function catalogCacheKey(origin: string, version: string, path: string, query: Record<string, unknown>): Request {
  const params = new URLSearchParams();
  for (const name of Object.keys(query).sort()) {
    const value = query[name];
    // A list (`include`) arrives sorted and without repeats from its schema, so equivalent lists share a key.
    if (value !== undefined) params.set(name, Array.isArray(value) ? value.join(",") : String(value));
  }
  const search = params.size > 0 ? `?${params.toString()}` : "";
  return new Request(`${origin}/__catalog/${encodeURIComponent(version)}${path}${search}`, { method: "GET" });
}

/** `caches.default` where the runtime has it; reads still work (uncached) where it does not. */
export function edgeCache(): Cache | null {
  return typeof caches === "undefined" ? null : (caches as unknown as { default: Cache }).default;
}
