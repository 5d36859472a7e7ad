import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The rule the README states, checked so it cannot rot: which room of src/ may import which.
 * A room is a folder of src/ (`src/browse/index/` belongs to `browse`); the files at the top of
 * src/ are the shared helpers, except src/index.ts, the app that mounts everything. Rooms are
 * listed bottom-up: a room may import only rooms listed in its `may` (never one above it), so
 * the graph between folders has no cycle. The rooms in the Worker import `zod/mini`, never
 * classic `zod`: classic zod cannot be tree-shaken and cost the bundle about 19 KiB gzip of its
 * 100 KiB budget (test/e2e/bundle.test.ts); `zod/locales` only where operators read zod's own
 * wording (catalog/schema.ts inEnglish, tree-shaken out of the Worker).
 */
/** The money rooms of contract section 10, bottom-up. */
const MONEY = ["rules", "discounts", "pricing", "payment"] as const;

const ROOMS: Record<string, { may: readonly string[]; packages: RegExp }> = {
  shared: { may: [], packages: /^zod\/mini$/ },
  auth: { may: ["shared"], packages: /^zod\/mini$/ },
  catalog: { may: ["shared"], packages: /^zod\/(mini|locales)$/ },
  browse: { may: ["shared", "catalog"], packages: /^(zod\/mini|cloudflare:workers)$/ },
  // Live stock: one strongly consistent writer per variant (sharded Durable Objects), outside
  // catalog versions. The cart checks it on an add; checkout holds and commits through it.
  stock: { may: ["shared", "catalog"], packages: /^(zod\/mini|cloudflare:workers)$/ },
  // The store's rules document (contract 10.1): its schema and its store, published apart from the catalog.
  rules: { may: ["shared"], packages: /^(zod\/mini|cloudflare:workers)$/ },
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
    may: ["shared", "auth", "catalog", "browse", "stock", ...MONEY, "cart", "checkout"],
    packages: /^(zod\/mini|hono(\/.*)?)$/,
  },
  openapi: {
    may: ["shared", "auth", "catalog", "browse", "stock", ...MONEY, "cart", "checkout", "http"],
    packages: /^(zod\/mini|hono(\/.*)?)$/,
  },
  routes: {
    may: ["shared", "auth", "catalog", "browse", "stock", ...MONEY, "cart", "checkout", "http", "openapi"],
    packages: /^(zod\/mini|hono(\/.*)?)$/,
  },
  app: {
    may: ["shared", "auth", "catalog", "browse", "stock", ...MONEY, "cart", "checkout", "http", "openapi", "routes"],
    packages: /^(zod\/mini|hono(\/.*)?|cloudflare:workers)$/,
  },
  // Node side: never in the Worker bundle, so never imported by the rooms above.
  publish: {
    may: ["shared", "catalog", "browse", "stock"],
    packages: /^(zod(\/mini)?|node:.*|csv-parse(\/.*)?|sanitize-html|htmlparser2)$/,
  },
  // The cli builds the OpenAPI documents from the app's routes (docs:assets), so it may load the app.
  cli: {
    may: [
      "shared",
      "auth",
      "catalog",
      "browse",
      "stock",
      ...MONEY,
      "cart",
      "checkout",
      "publish",
      "openapi",
      "routes",
      "app",
    ],
    packages: /^(zod(\/mini)?|node:.*|miniflare|wrangler)$/,
  },
};

const SRC = join(import.meta.dirname, "../../src");

function roomOf(file: string): string {
  const path = relative(SRC, file).split("/");
  if (path.length === 1) return path[0] === "index.ts" ? "app" : "shared";
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

const files = sourceFiles(SRC);
const imports = files.flatMap((file) =>
  specifiers(readFileSync(file, "utf8")).map((spec) => ({
    file: relative(SRC, file),
    from: roomOf(file),
    spec,
    to: spec.startsWith(".") ? roomOf(normalize(join(dirname(file), spec))) : null,
  })),
);

/** Cycles between the files of one room (`src/x.ts -> src/y.ts -> src/x.ts`), each found once. */
function fileCycles(room: string): string[] {
  const edges = new Map<string, Set<string>>();
  for (const i of imports) {
    if (i.from !== room || i.to !== room) continue;
    const target = relative(SRC, normalize(join(SRC, dirname(i.file), i.spec)));
    edges.set(i.file, (edges.get(i.file) ?? new Set()).add(target));
  }
  const cycles = new Set<string>();
  const visit = (file: string, path: string[]) => {
    const at = path.indexOf(file);
    if (at >= 0) {
      const loop = path.slice(at);
      // One name per loop whatever file it was entered by: rotated to start at its least file.
      const start = loop.indexOf([...loop].sort()[0] as string);
      const turned = [...loop.slice(start), ...loop.slice(0, start)];
      cycles.add([...turned, turned[0]].map((f) => `src/${f}`).join(" -> "));
      return;
    }
    for (const next of edges.get(file) ?? []) visit(next, [...path, file]);
  };
  for (const file of edges.keys()) visit(file, []);
  return [...cycles];
}

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

  // Issue 45: six files of browse imported each other in a loop (the index's items.ts ->
  // snapshot.ts -> index/version-index.ts -> items.ts; shards.ts <-> service.ts for each other's
  // types). The index sits at the bottom knowing nothing of snapshots, shards or the service, and
  // the reply types crossing RPC live in one file below their users (browse/replies.ts).
  it("has no cycle between the files of browse", () => {
    expect(fileCycles("browse")).toEqual([]);
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
