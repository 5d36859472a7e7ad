import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";
import { describe, expect, it } from "vitest";
import { StrictPatternRouter } from "../../src/http/hono.ts";
import app from "../../src/index.ts";

type Router = {
  add(method: string, path: string, handler: number): void;
  match(method: string, path: string): unknown;
};

/** The handlers a router runs for a request, by their index in `app.routes`, in the order it runs them. */
function matched(router: Router, method: string, path: string): number[] {
  const [entries] = router.match(method, path) as [[number, unknown][]];
  return entries.map(([handler]) => handler);
}

function routerOf(make: () => Router): Router {
  const router = make();
  app.routes.forEach((route, index) => {
    router.add(route.method, route.path, index);
  });
  return router;
}

/**
 * Every path the app's patterns can be filled into: each `:param` with a value of its own and with
 * every literal segment another route has at that depth (`/products/:handle` with `facets`), and
 * `*` with one and with two segments. So two patterns that overlap are both reached.
 */
function samplePaths(): string[] {
  const literals = new Map<number, Set<string>>();
  for (const { path } of app.routes)
    path.split("/").forEach((segment, depth) => {
      if (segment !== "" && !segment.startsWith(":") && segment !== "*")
        literals.set(depth, (literals.get(depth) ?? new Set()).add(segment));
    });
  const paths = new Set<string>();
  for (const { path } of app.routes) {
    let filled = [""];
    path.split("/").forEach((segment, depth) => {
      if (depth === 0) return;
      const values = segment.startsWith(":")
        ? ["x-1", ...(literals.get(depth) ?? [])]
        : segment === "*"
          ? ["a", "a/b"]
          : [segment];
      filled = filled.flatMap((prefix) => values.map((value) => `${prefix}/${value}`));
    });
    for (const p of filled) {
      paths.add(p || "/");
      // The same path with a trailing slash: routed by no pattern of its own, only by middleware.
      if (p) paths.add(`${p}/`);
    }
  }
  return [...paths];
}

describe("the Worker's router (src/http/hono.ts)", () => {
  // One PatternRouter saves about 2 KB gzip of the bundle; it must route exactly as Hono's
  // default (SmartRouter over RegExpRouter and TrieRouter) for every route the app has, overlapping
  // patterns included (a new route that overlaps another differently fails here).
  it("runs the same handlers, in the same order, as Hono's default router for every route of the app", () => {
    const pattern = routerOf(() => new StrictPatternRouter<number>());
    const smart = routerOf(() => new SmartRouter<number>({ routers: [new RegExpRouter(), new TrieRouter()] }));
    const paths = samplePaths();
    expect(paths.length).toBeGreaterThan(50);
    const methods = [...new Set(app.routes.map((route) => route.method).filter((m) => m !== "ALL"))];
    for (const method of methods)
      for (const path of paths)
        expect(matched(pattern, method, path), `${method} ${path}`).toEqual(matched(smart, method, path));
  });

  it("is the router the app is built with", () => {
    expect((app as unknown as { router: unknown }).router).toBeInstanceOf(StrictPatternRouter);
  });
});
