// npm run catalog:generate -- --products 100000 [--seed N] [--out file]
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { generateCatalog } from "../publish/generate.ts";
import { parseCatalog } from "../catalog/schema.ts";

const { values } = parseArgs({
  options: { products: { type: "string", default: "1000" }, seed: { type: "string" }, out: { type: "string" } },
});

/** Writes a deterministic synthetic catalog, validated by the same schema publish uses. */
function main(): void {
  const products = Number(values.products);
  if (!Number.isSafeInteger(products) || products < 0) throw new Error(`--products must be a whole number, got ${values.products}`);
  const catalog = generateCatalog({ products, ...(values.seed ? { seed: Number(values.seed) } : {}) });
  parseCatalog(catalog);
  const json = `${JSON.stringify(catalog)}\n`;
  if (values.out) {
    writeFileSync(values.out, json);
    console.error(`Wrote ${products} products and ${catalog.collections.length} collections to ${values.out} (${(json.length / 1e6).toFixed(1)} MB).`);
  } else {
    process.stdout.write(json);
  }
}

try {
  main();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
