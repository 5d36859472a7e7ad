import { HonoBase, type HonoOptions } from "hono/hono-base";
import { PatternRouter } from "hono/router/pattern-router";
import type { Router } from "hono/router";
import type { BlankEnv, BlankSchema, Env, Schema } from "hono/types";

/**
 * PatternRouter made strict: it lets `/products/` match `/products` (each pattern ends in `/?$`),
 * which Hono's default router does not, so a path ending in a slash gets only what a `*` pattern
 * added (the middleware): no route, so 404 `route_not_found` (test/http/http.test.ts pins it).
 */
class StrictPatternRouter<T> extends PatternRouter<T> implements Router<T> {
  readonly #anyTail = new Set<T>();

  override add(method: string, path: string, handler: T): void {
    if (path.endsWith("*")) this.#anyTail.add(handler);
    super.add(method, path, handler);
  }

  override match(method: string, path: string): ReturnType<Router<T>["match"]> {
    const found = super.match(method, path);
    if (path.length < 2 || !path.endsWith("/")) return found;
    return [found[0].filter(([handler]) => this.#anyTail.has(handler))] as ReturnType<Router<T>["match"]>;
  }
}

/**
 * `Hono` on one small router, as hono's own `hono/tiny` preset builds it on PatternRouter: the
 * default `Hono` bundles RegExpRouter, TrieRouter and SmartRouter, which picks one at the first
 * request (about 1.5 KB gzip of the bundle); TrieRouter alone cost about 0.5 KB gzip more than
 * PatternRouter. The price is speed: PatternRouter tries the app's 170 route patterns one regular
 * expression after another, about 6 µs a match against TrieRouter's 1.4 (workerd, 100,000
 * matches of five paths), under 1% of the lightest request. Every app and route module of the
 * Worker is built with this one. It returns a path's handlers in the order they were added, as
 * the default does; test/http/router.test.ts holds that the two match every route of the app
 * alike, with and without a trailing slash.
 */
export class Hono<
  E extends Env = BlankEnv,
  S extends Schema = BlankSchema,
  BasePath extends string = "/",
> extends HonoBase<E, S, BasePath> {
  constructor(options: HonoOptions<E> = {}) {
    super(options);
    this.router = new StrictPatternRouter();
  }
}

export { StrictPatternRouter };
