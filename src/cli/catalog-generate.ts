// npm run catalog:generate -- [--products N] [--seed N] [--out FILE]   (--help for usage)
import { createWriteStream, type WriteStream, writeFileSync } from "node:fs";
import { once } from "node:events";
import { generateCatalog, shopifyCsvChunks } from "../publish/generate.ts";
import { parseCatalog, type SourceCatalog } from "../catalog/schema.ts";
import { defineCli, runCli, UsageError } from "./args.ts";

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

/** The catalog as a Shopify product CSV, streamed so 100,000 products never sit in one string. */
async function writeShopifyCsv(catalog: SourceCatalog, out: string | undefined): Promise<void> {
  const sink = out !== undefined ? createWriteStream(out) : process.stdout;
  for (const chunk of shopifyCsvChunks(catalog)) if (!sink.write(chunk)) await once(sink, "drain");
  if (out !== undefined) {
    await new Promise<void>((resolve, reject) =>
      (sink as WriteStream).end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
    console.error(`Wrote ${catalog.products.length} products as a Shopify CSV to ${out}.`);
  }
}

/** Writes a deterministic synthetic catalog, validated by the same schema publish uses. */
function main(): void | Promise<void> {
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
  if (values.format === "shopify-csv") return writeShopifyCsv(catalog, values.out);
  const json = `${JSON.stringify(catalog)}\n`;
  if (values.out !== undefined) {
    writeFileSync(values.out, json);
    console.error(
      `Wrote ${values.products} products and ${catalog.collections.length} collections to ` +
        `${values.out} (${(json.length / 1e6).toFixed(1)} MB).`,
    );
  } else {
    process.stdout.write(json);
  }
}

await runCli(cli, main);
