import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { cartFor } from "../../src/cart/cart-client.ts";
import type { Cart } from "../../src/cart/cart-object.ts";
import { CURRENT_SCHEMA, MIGRATIONS } from "../../src/cart/migrations.ts";
import { bothWays, schemaOf } from "../helpers/sqlite-schema.ts";
import { readCart, issueToken } from "../helpers/cart.ts";

describe("a new cart's schema", () => {
  // A new cart is created at the newest schema in one step (CURRENT_SCHEMA) rather than by
  // replaying every migration: the two must make the same database, or an old cart and a new one
  // would differ.
  it("is made at once exactly as the numbered migrations make it: tables, columns in order, constraints, indexes", async () => {
    const { holder } = await issueToken();
    await runInDurableObject(cartFor(env, holder), (_instance: Cart, state) => {
      const { stepByStep, atOnce, versions } = bothWays(state.storage.sql, MIGRATIONS, CURRENT_SCHEMA);
      expect(Object.keys(stepByStep)).toContain("table cart_lines");
      expect(atOnce).toEqual(stepByStep);
      expect(versions).toEqual([MIGRATIONS.length, MIGRATIONS.length, 0]);
    });
  });

  it("of a cart made by its first write is the one the migrations make", async () => {
    const issued = await issueToken();
    await readCart(issued.token);
    await runInDurableObject(cartFor(env, issued.holder), (_instance: Cart, state) => {
      const made = schemaOf(state.storage.sql);
      const { stepByStep } = bothWays(state.storage.sql, MIGRATIONS, CURRENT_SCHEMA);
      expect(made).toEqual(stepByStep);
    });
  });
});
