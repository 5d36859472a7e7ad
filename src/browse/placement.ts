/**
 * Which BrowseEngine replica answers a request (browse-engine.ts): its region from `request.cf`
 * and its replica there from a hash of the request. Pure, so Node tools (the bench) share it.
 */

/** Durable Object location hints (Cloudflare's list: developers.cloudflare.com/durable-objects, "Data location"). */
export type Region = "wnam" | "enam" | "sam" | "weur" | "eeur" | "apac" | "oc" | "afr" | "me";

/** Countries Cloudflare's `cf.continent` puts in Asia whose nearest Durable Object region is the Middle East. */
const MIDDLE_EAST = new Set(["AE", "BH", "IL", "IQ", "IR", "JO", "KW", "LB", "OM", "PS", "QA", "SA", "SY", "YE"]);

/** What browseRegion reads of `request.cf` (absent under tests without cf, and for requests Cloudflare did not geolocate). */
export interface RequestPlace {
  continent?: unknown;
  country?: unknown;
  longitude?: unknown;
}

/**
 * The Durable Object region nearest a request: its continent (`cf.continent`: NA, SA, EU, AS,
 * OC, AF), split by longitude where a continent has two regions (North America at 100°W,
 * Europe at 20°E) and by country for the Middle East. null when `cf` says nothing usable
 * (Antarctica, Tor, a request without geolocation, or no `cf` at all): the object is then
 * created without a hint, near whoever asks first, as every engine was before replicas.
 */
export function browseRegion(cf: RequestPlace | undefined): Region | null {
  if (!cf) return null;
  const longitude =
    typeof cf.longitude === "string" || typeof cf.longitude === "number" ? Number(cf.longitude) : Number.NaN;
  switch (cf.continent) {
    case "NA":
      return longitude < -100 ? "wnam" : "enam";
    case "SA":
      return "sam";
    case "EU":
      return longitude >= 20 ? "eeur" : "weur";
    case "AS":
      return typeof cf.country === "string" && MIDDLE_EAST.has(cf.country) ? "me" : "apac";
    case "OC":
      return "oc";
    case "AF":
      return "afr";
    default:
      return null;
  }
}

/** BROWSE_REPLICAS as a count: a whole number 1..MAX_REPLICAS; anything else is 1 (one object per region). */
export const MAX_REPLICAS = 32;
export function replicaCount(setting: string | undefined): number {
  const n = Number(setting);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, MAX_REPLICAS) : 1;
}

/** FNV-1a of `text`: the same request always reaches the same replica (and its kept counts). */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Which engine answers a request: the version, the request's region, and its replica there. */
export interface Placement {
  /** The request's `cf` (request.cf). */
  cf?: RequestPlace | undefined;
  /** What picks the replica: the request's path and query. */
  key: string;
  /** BROWSE_REPLICAS. */
  replicas?: string | undefined;
}

/**
 * The object name of a replica: the version, its region (`any` without one) and its number; and
 * for a sharded version (shards.ts), which shard of it.
 */
export function replicaName(version: string, region: Region | null, replica: number, shard?: number): string {
  const name = `${version}:${region ?? "any"}:${replica}`;
  return shard === undefined ? name : `${name}:${shard}`;
}

/** The replica (0 .. replicas - 1) that answers a request with this key. */
export function pickReplica(key: string, replicas: string | undefined): number {
  return hash(key) % replicaCount(replicas);
}
