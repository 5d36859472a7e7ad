// npm run catalog:generate -- [--products N] [--seed N] [--out FILE]   (--help for usage)
import { generateCatalog, shopifyCsvChunks } from "../publish/generate.ts";
import { parseCatalog } from "../catalog/schema.ts";
import { defineCli, runCli, UsageError } from "./args.ts";
import { catalogJsonChunks, outputSink, writeChunks } from "./catalog-file.ts";
import { count } from "../count.ts";

const cli = defineCli({
  command: "npm run catalog:generate",
  summary:
    "Writes a deterministic synthetic catalog (same --seed, same catalog), validated by the schema publish uses.",
  options: {
    products: { type: "integer", value: "N", min: 0, max: 10_000_000, default: 1000, help: "how many products" },
    seed: {
      type: "integer",
      value: "N",
      min: 0,
      max: 4_294_967_295,
      help: "random seed; the same seed gives the same catalog",
    },
    out: { type: "string", value: "FILE", help: "write the catalog to FILE" },
    format: {
      type: "string",
      value: "FORMAT",
      choices: ["json", "shopify-csv"],
      default: "json",
      help: "json (the project's format) or shopify-csv (a Shopify product export, for npm run catalog:import)",
    },
  },
  notes: `Without --out the JSON goes to stdout, but only when stdout is a pipe or a file
(npm run catalog:generate -- --products 100 > catalog.json); on a terminal the command refuses
rather than print megabytes of JSON. Then: npm run catalog:publish -- catalog.json`,
});

/** Writes a deterministic synthetic catalog, validated by the same schema publish uses. */
async function main(): Promise<void> {
  const { values } = cli.parse();
  if (values.out === undefined && process.stdout.isTTY) {
    throw new UsageError(
      "Give --out FILE (or redirect stdout to a file): the catalog is JSON, too long for a terminal.",
    );
  }
  const catalog = generateCatalog({
    products: values.products,
    ...(values.seed !== undefined ? { seed: values.seed } : {}),
  });
  parseCatalog(catalog);
  // Streamed either way, so a million products never sit in one string.
  if (values.format === "shopify-csv") {
    await writeChunks(outputSink(values.out), shopifyCsvChunks(catalog));
    if (values.out !== undefined)
      console.error(`Wrote ${count(catalog.products.length, "product")} as a Shopify CSV to ${values.out}.`);
    return;
  }
  const bytes = await writeChunks(outputSink(values.out), catalogJsonChunks(catalog));
  if (values.out !== undefined)
    console.error(
      `Wrote ${count(values.products, "product")} and ${count(catalog.collections.length, "collection")} to ` +
        `${values.out} (${(bytes / 1e6).toFixed(1)} MB).`,
    );
}

await runCli(cli, main);
