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

/** A stored answer, as text: what the Cache API and the isolate's memo keep of a catalog read. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The response for a stored answer: a 304 when the client already holds it, otherwise a new
 * response with headers of its own (the request middleware still stamps X-Request-Id and CORS).
 */
export function conditional(answer: StoredAnswer, ifNoneMatch: string | null | undefined): Response {
  // Names are as rendered (`ETag`) or, read back from the Cache API, lower case.
  const header = (name: string) => answer.headers[name] ?? answer.headers[name.toLowerCase()];
  if (answer.status === 200 && ifNoneMatchHits(ifNoneMatch, header("ETag") ?? null)) {
    const headers: Record<string, string> = {};
    for (const name of NOT_MODIFIED_HEADERS) {
      const value = header(name);
      if (value !== undefined) headers[name] = value;
    }
    return new Response(null, { status: 304, headers });
  }
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

/**
 * The Cache API key for a catalog read: a synthetic GET URL holding the catalog version and the
 * canonical (parsed, defaulted, sorted) query, so equivalent URLs share an entry (`?include=seo,images`
 * and `?include=images,seo` too) and a publish starts a fresh key space without any purge.
 * `origin` is the request URL's scheme and host.
 */
export function catalogCacheKey(origin: string, version: string, path: string, query: Record<string, unknown>): string {
  let search = "";
  for (const name of Object.keys(query).sort()) {
    const value = query[name];
    // A list (`include`) arrives sorted and without repeats from its schema, so equivalent lists share a key.
    if (value === undefined) continue;
    search += `${search ? "&" : "?"}${encodeURIComponent(name)}=${encodeURIComponent(Array.isArray(value) ? value.join(",") : String(value))}`;
  }
  return `${origin}/__catalog/${encodeURIComponent(version)}${path}${search}`;
}

/** The scheme and host of an absolute URL, without parsing it. */
export function originOf(url: string): string {
  const end = url.indexOf("/", url.indexOf("//") + 2);
  return end === -1 ? url : url.slice(0, end);
}

/** `caches.default` where the runtime has it; reads still work (uncached) where it does not. */
export function edgeCache(): Cache | null {
  return typeof caches === "undefined" ? null : (caches as unknown as { default: Cache }).default;
}
