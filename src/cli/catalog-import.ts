// npm run catalog:import -- <file> [--currency XXX] [--out FILE] [--publish] [--local|--remote] [--store NAME] [--collections-by-type]   (--help for usage)
import { createReadStream, statSync } from "node:fs";
import { CatalogValidationError } from "../catalog/schema.ts";
import { formatReport, ImportError, type ImportProgress, importCatalog } from "../publish/import/index.ts";
import { newVersionName } from "../publish/publish.ts";
import { WAIT_OPTION } from "./locked-state.ts";
import { runPublish, stockReport } from "./publish-run.ts";
import { catalogJsonChunks, outputSink, writeChunks } from "./catalog-file.ts";
import { defineCli, InputError, runCli, UsageError } from "./args.ts";
import { isCurrency } from "../money.ts";
import { count } from "../count.ts";

const cli = defineCli({
  command: "npm run catalog:import",
  args: "<file>",
  summary:
    "Turns a store's Shopify export into the project's catalog format, validated by the " +
    "schema publish uses: a product CSV " +
    '(classic or current headers) or products.json ({"products": [...]} or a bare array), detected from the content.',
  positionals: { min: 1, max: 1 },
  options: {
    out: { type: "string", value: "FILE", help: "write the catalog (JSON) to FILE" },
    publish: { type: "boolean", help: "publish it as well, as npm run catalog:publish does" },
    local: { type: "boolean", help: "with --publish: into local state, where npm run dev reads (the default)" },
    remote: {
      type: "boolean",
      help:
        "with --publish: into the CATALOG namespace and the BROWSE database on Cloudflare " +
        "(wrangler kv/d1 ... --remote)",
    },
    "persist-to": {
      type: "string",
      value: "DIR",
      help: "with --local: the state directory of npm run dev -- --persist-to DIR",
    },
    "dry-run": { type: "boolean", help: "with --remote: print the wrangler commands, run none" },
    currency: {
      type: "string",
      value: "XXX",
      help:
        "the ISO 4217 code of the store's prices (JPY, EUR, KWD...); exports name none, so " +
        "without it the catalog is in USD and the report says so",
    },
    store: {
      type: "string",
      value: "NAME",
      help: "the store's name, also the vendor of products that have none (default: the file name)",
    },
    "collections-by-type": {
      type: "boolean",
      help: "besides frontpage (every product, in file order), one collection per product type",
    },
    "allow-http": {
      type: "boolean",
      help:
        "keep plain http: image URLs (sets allow_http_urls in the catalog); without it only " +
        "https: URLs are accepted",
    },
    wait: WAIT_OPTION,
  },
  notes: `Products that are not active (draft, archived, unpublished) and gift cards are skipped and
listed with their line numbers. A CSV has no ids: they are derived from the handle (and the option
values), so importing the same store again keeps every id and carts keep working.
A malformed file is reported with its line and column (exit 2) and nothing is published; so is a
row whose field count is not the header's. A product the catalog cannot represent is skipped and
listed with its line; the rest import. Stock that is unknown (no quantity column, an empty cell) is
not zero: such variants are available, and the report counts each availability rule and lists
the sold-out products with why.
Examples:
  npm run catalog:import -- products_export.csv --store "Northwind Threads" --out catalog.json
  npm run catalog:import -- products.json --currency JPY --publish --local`,
});

/** Progress on stderr: one rewritten line on a terminal, a line every 100,000 rows in a log. */
function importProgress(size: number): (p: ImportProgress) => void {
  let lastLogged = 0;
  const rows = (n: number) => count(n, "row", "rows", n.toLocaleString("en-US"));
  return (p) => {
    const share = size > 0 ? ` (${Math.min(100, Math.floor((p.bytes / size) * 100))}%)` : "";
    if (process.stderr.isTTY) process.stderr.write(`\r  ${rows(p.records)} read${share}`);
    else if (p.records - lastLogged >= 100_000) {
      lastLogged = p.records;
      process.stderr.write(`  ${rows(p.records)} read${share}\n`);
    }
  };
}

async function main(): Promise<void> {
  const { values, positionals } = cli.parse();
  const file = positionals[0]!;
  if (values.local && values.remote) throw new UsageError("Choose one of --local and --remote.");
  if ((values.local || values.remote) && !values.publish)
    throw new UsageError(`--${values.local ? "local" : "remote"} only means something with --publish.`);
  if (values["persist-to"] !== undefined && (values.remote || !values.publish))
    throw new UsageError("--persist-to goes with --publish --local.");
  if (values["dry-run"] && !values.remote) throw new UsageError("--dry-run goes with --publish --remote.");
  const currency = values.currency;
  if (currency !== undefined && !isCurrency(currency)) {
    throw new UsageError(
      `--currency ${JSON.stringify(currency)} is not an ISO 4217 currency code (three ` +
        `capitals: USD, EUR, GBP, JPY, KWD, ...).`,
    );
  }
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new InputError("is not a file", { file });
    size = stat.size;
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as { code?: string }).code;
    throw new InputError(code === "ENOENT" ? "no such file" : `cannot be read (${code ?? "error"})`, { file });
  }

  const started = Date.now();
  const onProgress = importProgress(size);
  const { catalog, report } = await importCatalog(createReadStream(file, { highWaterMark: 1 << 20 }), {
    file,
    ...(values.store !== undefined ? { store: values.store } : {}),
    collectionsByType: values["collections-by-type"],
    allowHttp: values["allow-http"],
    ...(currency !== undefined ? { currency } : {}),
    onProgress,
  });
  if (process.stderr.isTTY) process.stderr.write("\n");
  process.stdout.write(formatReport(report));
  console.log(
    `Valid catalog: ${catalog.collections.length} collection(s), in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
  );

  if (values.out !== undefined) {
    await writeChunks(outputSink(values.out), catalogJsonChunks(catalog));
    console.log(`Wrote ${values.out}.`);
  }
  if (values.publish) {
    const dryRun = values["dry-run"];
    const say = (line: string) => console.log(`${dryRun ? "(dry run) " : ""}${line}`);
    const result = await runPublish(catalog, {
      remote: values.remote,
      dryRun,
      persistTo: values["persist-to"],
      waitSeconds: values.wait,
      version: newVersionName(),
      say,
    });
    say(
      `${dryRun ? "Would publish" : "Published"} catalog ${result.version}: ` +
        `${count(result.products, "product")}, ${count(result.entries, "entry", "entries")}. Previous: ${result.previous ?? "none"}.`,
    );
    const stock = stockReport(result);
    if (stock && !dryRun) say(stock);
  }
  if (values.out === undefined && !values.publish)
    console.log("Nothing written: add --out FILE to save the catalog, or --publish to make it live.");
}

await runCli(cli, main, (error) => {
  if (process.stderr.isTTY) process.stderr.write("\n");
  if (error instanceof ImportError)
    return { message: `${error.message}\nNothing was imported or published.`, exitCode: 2 };
  if (error instanceof CatalogValidationError)
    return { message: `${error.message}\nNothing was published.`, exitCode: 2 };
  return undefined;
});
