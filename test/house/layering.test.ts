import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The rule the README states, checked so it cannot rot: which room of src/ may import which.
 * A room is a folder of src/ (`src/browse/index/` belongs to `browse`); the files at the top of
 * src/ are the shared helpers, except the app that mounts everything: src/app.ts, its Durable
 * Object exports (src/objects.ts) and the two entries that serve it, src/index.ts (deployed) and
 * src/dev.ts (`npm run dev`, with the local test payment page). Rooms are
 * listed bottom-up: a room may import only rooms listed in its `may` (never one above it), so
 * the graph between folders has no cycle. The rooms in the Worker import `zod/mini`, never
 * classic `zod`: classic zod cannot be tree-shaken and cost the bundle about 19 KiB gzip of its
 * 100 KiB budget (test/e2e/bundle.test.ts); `zod/locales` only where operators read zod's own
 * wording (catalog/schema.ts inEnglish, tree-shaken out of the Worker).
 */
/** The money rooms of contract section 10, bottom-up. */
const MONEY = ["rules", "discounts", "pricing", "payment"] as const;
/** The domain rooms, free of HTTP: what the edge, the app and the tools above them may import. */
const DOMAIN = ["shared", "auth", "catalog", "browse", "stock", ...MONEY, "cart", "checkout"] as const;

const ROOMS: Record<string, { may: readonly string[]; packages: RegExp }> = {
  shared: { may: [], packages: /^zod\/mini$/ },
  auth: { may: ["shared"], packages: /^zod\/mini$/ },
  catalog: { may: ["shared"], packages: /^zod\/(mini|locales)$/ },
  browse: { may: ["shared", "catalog"], packages: /^(zod\/mini|cloudflare:workers)$/ },
  // Live stock: one strongly consistent writer per variant (sharded Durable Objects), outside
  // catalog versions. The cart checks it on an add; checkout holds and commits through it.
  stock: { may: ["shared", "catalog"], packages: /^(zod\/mini|cloudflare:workers)$/ },
  // The store's rules document (contract 10.1): its schema and its store, published apart from the catalog.
  // Discount targets are catalog handles and variant ids: their schemas are the catalog's.
  rules: { may: ["shared", "catalog"], packages: /^(zod\/mini|cloudflare:workers)$/ },
  // Discounts: each kind a condition and an action (pure), combining, allocations; the usage-limit objects.
  discounts: { may: ["shared", "rules"], packages: /^(zod\/mini|cloudflare:workers)$/ },
  // The one pure pricing room: lines + rules + buyer -> cost (shipping, tax, discounts), no I/O.
  pricing: { may: ["shared", "rules", "discounts"], packages: /^zod\/mini$/ },
  cart: {
    may: ["shared", "catalog", "stock", "rules", "discounts", "pricing"],
    packages: /^(zod\/mini|cloudflare:workers)$/,
  },
  // The payment provider (Stripe's HTTP API over fetch): sessions made, expired, and what was paid.
  payment: { may: ["shared", "rules", "discounts", "pricing"], packages: /^zod\/mini$/ },
  // Checkout and orders: holds a cart's units in stock, completes exactly once into an order (D1).
  checkout: {
    may: ["shared", "catalog", "stock", "cart", "rules", "discounts", "pricing", "payment"],
    packages: /^(zod\/mini|cloudflare:workers)$/,
  },
  http: {
    may: DOMAIN,
    packages: /^(zod\/mini|hono(\/.*)?)$/,
  },
  openapi: {
    may: [...DOMAIN, "http"],
    packages: /^(zod\/mini|hono(\/.*)?)$/,
  },
  routes: {
    may: [...DOMAIN, "http", "openapi"],
    packages: /^(zod\/mini|hono(\/.*)?)$/,
  },
  // src/dev.ts exports the writer's entrypoint for the tests' service binding (vitest.config.ts).
  app: {
    may: [...DOMAIN, "http", "openapi", "routes", "writer"],
    packages: /^(zod\/mini|hono(\/.*)?|cloudflare:workers)$/,
  },
  // Node side: never in the Worker bundle, so never imported by the rooms above.
  publish: {
    may: ["shared", "catalog", "browse", "stock"],
    packages: /^(zod(\/mini)?|node:.*|csv-parse(\/.*)?|sanitize-html|htmlparser2)$/,
  },
  // The catalog writer Worker (its own bundle, writer/wrangler.toml): the batch writer of publish/
  // behind POST /operator/catalog/changes, reached from routes over a service binding (never imported).
  writer: { may: ["shared", "catalog", "browse", "stock", "publish"], packages: /^cloudflare:workers$/ },
  // The cli builds the OpenAPI documents from the app's routes (docs:assets), so it may load the app.
  cli: {
    may: [...DOMAIN, "publish", "openapi", "routes", "app"],
    packages: /^(zod(\/mini)?|node:.*|miniflare|wrangler)$/,
  },
};

const SRC = join(import.meta.dirname, "../../src");
/** The files at the top of src/ that are the app, not shared helpers. */
const APP_FILES = ["app.ts", "objects.ts", "index.ts", "dev.ts"];

function roomOf(file: string): string {
  const path = relative(SRC, file).split("/");
  if (path.length === 1) return APP_FILES.includes(path[0]!) ? "app" : "shared";
  return path[0]!;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every module specifier of a file: static imports and exports, and `import()`. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(
    /^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm,
  )) {
    found.push((match[1] ?? match[2] ?? match[3])!);
  }
  return found;
}

/**
 * Cycles between files of one room that exist today and are someone's to break: each is the
 * sorted, space-separated list of its files (src/-relative). A cycle that goes must leave this
 * list too (the test below fails on a stale entry), so the list only shrinks.
 */
const ALLOWED_FILE_CYCLES: readonly string[] = [];

/**
 * The strongly connected groups of two or more files among the imports that stay inside their
 * room (Tarjan's algorithm), each as its sorted files joined by spaces. A type-only import counts:
 * two files that need each other's declarations cannot be read, or moved, one without the other.
 */
function fileCycles(edges: readonly { file: string; spec: string; from: string; to: string | null }[]): string[] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (e.to !== e.from) continue;
    const target = normalize(join(dirname(e.file), e.spec));
    next.set(e.file, [...(next.get(e.file) ?? []), target]);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group = stack.splice(stack.indexOf(file));
    if (group.length > 1) found.push(group.sort().join(" "));
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return found.sort();
}

const files = sourceFiles(SRC);
const imports = files.flatMap((file) =>
  specifiers(readFileSync(file, "utf8")).map((spec) => ({
    file: relative(SRC, file),
    from: roomOf(file),
    spec,
    to: spec.startsWith(".") ? roomOf(normalize(join(dirname(file), spec))) : null,
  })),
);

describe("the layering of src/", () => {
  it("knows every room it finds", () => {
    expect(files.length).toBeGreaterThan(50);
    expect([...new Set(files.map(roomOf))].filter((room) => !(room in ROOMS))).toEqual([]);
  });

  it("has each room import only the rooms below it", () => {
    const upward = imports
      .filter((i) => i.to !== null && i.to !== i.from && !ROOMS[i.from]!.may.includes(i.to))
      .map((i) => `src/${i.file} (${i.from}) imports ${i.spec} (${i.to})`);
    expect(upward).toEqual([]);
  });

  it("keeps packages in the rooms that own them (no hono in the domain rooms, no Node in the Worker)", () => {
    const misplaced = imports
      .filter((i) => i.to === null && !ROOMS[i.from]!.packages.test(i.spec))
      .map((i) => `src/${i.file} (${i.from}) imports ${i.spec}`);
    expect(misplaced).toEqual([]);
  });

  it("has no cycle between rooms", () => {
    const edges = new Map<string, Set<string>>();
    for (const i of imports) if (i.to && i.to !== i.from) edges.set(i.from, (edges.get(i.from) ?? new Set()).add(i.to));
    const cycles: string[] = [];
    const visit = (room: string, path: string[]) => {
      if (path.includes(room)) return void cycles.push([...path.slice(path.indexOf(room)), room].join(" -> "));
      for (const next of edges.get(room) ?? []) visit(next, [...path, room]);
    };
    for (const room of edges.keys()) visit(room, []);
    expect(cycles).toEqual([]);
  });

  it("has no cycle between files inside one room (each room's own import graph is a ladder too)", () => {
    const cycles = fileCycles(imports).filter((cycle) => !ALLOWED_FILE_CYCLES.includes(cycle));
    expect(cycles).toEqual([]);
  });

  it("keeps the allowlist of file cycles to cycles that still exist", () => {
    const found = fileCycles(imports);
    expect(ALLOWED_FILE_CYCLES.filter((cycle) => !found.includes(cycle))).toEqual([]);
  });

  it("finds a cycle between two files of a room, a type-only import included", () => {
    const a = { file: "stock/a.ts", from: "stock", spec: "./b.ts", to: "stock" };
    const b = { file: "stock/b.ts", from: "stock", spec: "./a.ts", to: "stock" };
    const c = { file: "stock/c.ts", from: "stock", spec: "./a.ts", to: "stock" };
    expect(fileCycles([a, b, c])).toEqual(["stock/a.ts stock/b.ts"]);
    expect(fileCycles([a, c])).toEqual([]);
  });

  // Issue 45: six files of browse imported each other in a loop (the index's items.ts ->
  // snapshot.ts -> index/version-index.ts -> items.ts; shards.ts <-> service.ts for each other's
  // types). The per-room check above keeps browse without a cycle; the index also sits at the
  // bottom, knowing nothing of snapshots, shards or the service (the reply types crossing RPC
  // live in one file below their users, browse/replies.ts).
  it("keeps browse's index below the snapshot, shards and service", () => {
    const above = ["snapshot.ts", "shards.ts", "service.ts", "source.ts", "engine.ts", "replies.ts"];
    const upward = imports
      .filter((i) => i.file.startsWith("browse/index/") && above.some((f) => i.spec.endsWith(`/${f}`)))
      .map((i) => `src/${i.file} imports ${i.spec}`);
    expect(upward).toEqual([]);
  });

  it("reads the imports it judges (the app imports its routes, the cart its catalog adapter)", () => {
    expect(imports.some((i) => i.from === "app" && i.to === "routes")).toBe(true);
    expect(imports.some((i) => i.from === "cart" && i.to === "catalog")).toBe(true);
    expect(imports.some((i) => i.from === "http" && i.spec === "hono")).toBe(true);
  });
});
