import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { cartFor } from "../../src/cart/cart-client.ts";
import type { Cart } from "../../src/cart/cart-object.ts";
import { CURRENT_SCHEMA, MIGRATIONS } from "../../src/cart/migrations.ts";
import { applyMigrations } from "../../src/sqlite-migrations.ts";
import { bothWays, dropAll, schemaOf } from "../helpers/sqlite-schema.ts";
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

describe("the migrations runner (src/sqlite-migrations.ts)", () => {
  // Every statement a new object's constructor runs is paid by its first request: a holder's first
  // checkout makes its Checkouts object, whose four steps wrote the version five times (issue 42
  // point 20, test/bench/README.md "Where a checkout's time goes"). A new database now writes it once.
  it("makes a new database with every step's statements and one version write; an older one upgrades step by step", async () => {
    const { holder } = await issueToken();
    await runInDurableObject(cartFor(env, holder), (_instance: Cart, state) => {
      const sql = state.storage.sql;
      const seen: string[] = [];
      const counting = {
        exec: (query: string, ...bindings: unknown[]) => {
          seen.push(query);
          return sql.exec(query, ...bindings);
        },
      } as unknown as SqlStorage;
      const version = () => sql.exec<{ version: number }>("SELECT version FROM schema_version").one().version;

      dropAll(sql);
      expect(applyMigrations(counting, MIGRATIONS)).toBe(0);
      // Every step's statements and the version, in one call: a call per statement cost a new cart more.
      expect(seen).toEqual([
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
        "SELECT version FROM schema_version",
        [...MIGRATIONS.flat(), `INSERT INTO schema_version (version) VALUES (${MIGRATIONS.length})`].join("\n;\n"),
      ]);
      expect(version()).toBe(MIGRATIONS.length);
      const fresh = schemaOf(sql);

      // A database left at version 1 runs the later steps, each followed by its version.
      dropAll(sql);
      applyMigrations(sql, MIGRATIONS.slice(0, 1));
      seen.length = 0;
      expect(applyMigrations(counting, MIGRATIONS)).toBe(1);
      expect(seen.filter((q) => q.startsWith("UPDATE schema_version"))).toHaveLength(MIGRATIONS.length - 1);
      expect(version()).toBe(MIGRATIONS.length);
      expect(schemaOf(sql)).toEqual(fresh);
    });
  });
});
