import { DurableObject } from "cloudflare:workers";
import type { BrowseFilters, BrowsePageQuery } from "./browse-query.ts";
import { type BrowseReply, BrowseService, type Browsing } from "./browse-service.ts";
import { BrowseStore } from "./browse-source.ts";
import type { Scope } from "./version-index.ts";

/**
 * Browse of one catalog version (VersionIndex: filters, q, sorts, pages and facet counts),
 * answered by Durable Objects named by that version so the index is built once per object and
 * held there, not once per Worker isolate. It keeps nothing in storage: the version's snapshot in
 * R2 (or, without one, its browse index in D1) is the record, and a new instance (after
 * eviction, another replica, or another version) reads it again. A version never changes once
 * published, so the index never goes stale, every replica of it answers the same, and a rollback
 * reaches the replicas of the version it restores.
 *
 * Replicas: a version has up to BROWSE_REPLICAS objects per region (a Durable Object location
 * hint chosen from the request's `cf`: browseRegion), so a shopper's miss crosses to an object in
 * its own region, and a region's misses spread over its replicas by a hash of the request.
 *
 * Per answer: no storage read; the build reads the version's index once (browse-source.ts).
 */
export class BrowseEngine extends DurableObject<Env> {
  readonly #service: BrowseService;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#service = new BrowseService(new BrowseStore(env.BROWSE), env.BROWSE_SNAPSHOTS);
  }

  page(version: string, scope: Scope, query: BrowsePageQuery): Promise<BrowseReply> {
    return this.#service.page(version, scope, query);
  }

  facets(version: string, scope: Scope, filters: BrowseFilters): Promise<BrowseReply> {
    return this.#service.facets(version, scope, filters);
  }

  /** Where this object's index came from (snapshot or D1) and what it cost: null before the first answer. */
  built(): BrowseService["lastBuild"] {
    return this.#service.lastBuild;
  }
}

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
  const longitude = typeof cf.longitude === "string" || typeof cf.longitude === "number" ? Number(cf.longitude) : Number.NaN;
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

/** The object name of a replica: the version, its region (`any` without one) and its number. */
export function replicaName(version: string, region: Region | null, replica: number): string {
  return `${version}:${region ?? "any"}:${replica}`;
}

/** The replica (0 .. replicas - 1) that answers a request with this key. */
export function pickReplica(key: string, replicas: string | undefined): number {
  return hash(key) % replicaCount(replicas);
}

/** The engine that answers `placement` for `version`: a replica of the version's index in the request's region. */
export function browseEngine(namespace: DurableObjectNamespace<BrowseEngine>, version: string, placement?: Placement): Browsing {
  const region = browseRegion(placement?.cf);
  const replica = placement ? pickReplica(placement.key, placement.replicas) : 0;
  const id = namespace.idFromName(replicaName(version, region, replica));
  return region ? namespace.get(id, { locationHint: region }) : namespace.get(id);
}
