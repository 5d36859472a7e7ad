import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { storageBindings, writerMismatches } from "../../src/cli/deploy-check.ts";

/**
 * The catalog writer Worker (writer/wrangler.toml) writes the catalog the storefront reads: its
 * KV namespace, D1 database and R2 bucket must be the storefront's own (wrangler.toml), or a batch
 * would go live nowhere. `npm run deploy` refuses a mismatch (src/cli/deploy-check.ts).
 */
describe("the catalog writer's configuration", () => {
  const storefront = readFileSync("wrangler.toml", "utf8");
  const writer = readFileSync("writer/wrangler.toml", "utf8");

  it("binds the storefront's catalog namespace, browse database and snapshots bucket, and nothing else", () => {
    expect([...storageBindings(writer).keys()].sort()).toEqual([
      "d1_databases:BROWSE",
      "kv_namespaces:CATALOG",
      "r2_buckets:BROWSE_SNAPSHOTS",
    ]);
    expect(writerMismatches(storefront, writer)).toEqual([]);
  });

  it("names each binding whose id differs", () => {
    const moved = writer.replace('id = "00000000000000000000000000000001"', 'id = "0123456789abcdef0123456789abcdef"');
    expect(writerMismatches(storefront, moved)).toEqual([
      'kv_namespaces CATALOG: the writer binds "0123456789abcdef0123456789abcdef", the storefront "00000000000000000000000000000001"',
    ]);
  });
});
