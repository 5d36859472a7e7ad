import { HonoBase, type HonoOptions } from "hono/hono-base";
import { TrieRouter } from "hono/router/trie-router";
import type { BlankEnv, BlankSchema, Env, Schema } from "hono/types";

/**
 * `Hono` on TrieRouter alone, as hono's own presets build it (`hono/tiny` on PatternRouter): the
 * default `Hono` bundles RegExpRouter, TrieRouter and SmartRouter, which picks one at the first
 * request. Every app and route module of the Worker is built with this one (about 1.5 KB gzip of
 * the bundle). TrieRouter returns a path's handlers in the order they were added, as the default
 * does; test/http/router.test.ts holds that the two routers match every route of the app alike.
 */
export class Hono<
  E extends Env = BlankEnv,
  S extends Schema = BlankSchema,
  BasePath extends string = "/",
> extends HonoBase<E, S, BasePath> {
  constructor(options: HonoOptions<E> = {}) {
    super(options);
    this.router = new TrieRouter();
  }
}
