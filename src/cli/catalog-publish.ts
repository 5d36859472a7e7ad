// npm run catalog:publish -- [--local|--remote] [--persist-to DIR] [--dry-run] [file]   (--help for usage)
import { setFlagsFromString } from "node:v8";
import { newVersionName, ShardLimitError } from "../publish/publish.ts";
import { WAIT_OPTION } from "./locked-state.ts";
import { cancelScheduled, runPublish, stockReport } from "./publish-run.ts";
import { AT_OPTION, armOrCancel, releaseTime, requireRemoteClock } from "./release-at.ts";
import { operatorTargetFrom } from "./operator-target.ts";
import { DEFAULT_SHARD_PRODUCTS } from "../browse/shards.ts";
import { CatalogValidationError } from "../catalog/schema.ts";
import { defineCli, InputError, runCli, UsageError } from "./args.ts";
import { readCatalogFile } from "./catalog-stream.ts";
import { count } from "../count.ts";

// V8 lets a heap grow to ~3.5x what it holds before a full collection: a 1M-product publish
// holds 0.3-0.45 GiB, yet its heap reached 1.35 GiB and its RSS 1.9-2.2 GiB. Grown by at most
// half, the heap follows what is live, at the cost of more frequent collections; no fixed
// ceiling (--max-old-space-size would fail a larger catalog instead of slowing it).
// docs/decisions/0002-publish-memory.md has the figures.
setFlagsFromString("--heap-growing-percent=50");

const cli = defineCli({
  command: "npm run catalog:publish",
  args: "[file]",
  summary:
    "Validates a catalog file (default seed/catalog.json), writes it as a new catalog " +
    "version, then switches the live pointer to it in one write. The previous version is " +
    "kept for catalog:rollback.",
  positionals: { max: 1 },
  options: {
    local: { type: "boolean", help: "publish into local state, where npm run dev reads (the default)" },
    remote: { type: "boolean", help: "publish into the deployed CATALOG namespace (wrangler kv --remote)" },
    "persist-to": {
      type: "string",
      value: "DIR",
      help: "local state directory, as given to npm run dev -- --persist-to",
    },
    "dry-run": { type: "boolean", help: "with --remote: print every wrangler command, run none" },
    "if-changed": { type: "boolean", help: "do nothing when the same catalog is already live" },
    version: {
      type: "string",
      value: "NAME",
      help: "name the new version (1-64 of A-Z a-z 0-9 _ -) instead of a timestamp",
    },
    wait: WAIT_OPTION,
    at: AT_OPTION,
    stock: {
      type: "string",
      value: "MODE",
      choices: ["keep", "replace"],
      default: "keep",
      help:
        "keep: write a level only for a variant newly tracked or whose quantity in the file changed " +
        "since the last publish (live levels stay); replace: write every level of the file",
    },
    "shard-products": {
      type: "integer",
      value: "N",
      min: 1,
      default: DEFAULT_SHARD_PRODUCTS,
      help:
        "at most N products per browse engine: a larger catalog's browse index is cut into shards " +
        "(at most 24: what one browse request can fan out to; a smaller N exits 2)",
    },
  },
  notes:
    "A catalog that fails validation publishes nothing; the message names the product and " +
    "field (exit 2). Publishes and rollbacks take turns: a second one waits for the first " +
    "(up to --wait), then refuses, naming who holds the lock (exit 1). Every publish is " +
    "recorded in the history (catalog:rollback --list); the last 5 versions are kept.",
});

async function publish(values: ReturnType<typeof cli.parse>["values"], file: string): Promise<void> {
  if (values.local && values.remote) throw new UsageError("Choose one of --local and --remote.");
  if (values["dry-run"] && !values.remote)
    throw new UsageError("--dry-run applies to --remote only (a local publish touches nothing but local state).");
  if (values.remote && values["persist-to"] !== undefined)
    throw new UsageError("--persist-to applies to --local only.");
  const dryRun = values["dry-run"];
  const releaseAt = values.at === undefined ? undefined : releaseTime(values.at);
  // A remote release is armed on the deployed worker: checked before anything is written.
  if (releaseAt && values.remote && !dryRun) requireRemoteClock();
  // A dry run says so on every line it prints, wrangler's commands included.
  const prefix = dryRun ? "(dry run) " : "";
  const say = (line: string) => console.log(`${prefix}${line}`);
  // A product at a time, the products to a scratch file (catalog-stream.ts): a million products fit.
  const started = Date.now();
  const read = await readCatalogFile(file);
  let result: Awaited<ReturnType<typeof runPublish>>;
  try {
    result = await runPublish(read.input, {
      remote: values.remote,
      dryRun,
      persistTo: values["persist-to"],
      waitSeconds: values.wait,
      version: values.version ?? newVersionName(),
      source: file,
      skipIfLive: values["if-changed"],
      shardProducts: values["shard-products"],
      stockMode: values.stock === "replace" ? "replace" : "keep",
      ...(releaseAt ? { releaseAt } : {}),
      say,
    });
  } catch (error) {
    if (error instanceof ShardLimitError) throw new UsageError(error.message);
    throw error;
  } finally {
    read.close();
  }
  for (const warning of read.warnings) say(`Warning: ${warning}`);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.skipped) say(`Catalog ${result.version} is already live: nothing written.`);
  else if (result.release_at !== undefined) {
    say(
      `${dryRun ? "Would schedule" : "Scheduled"} catalog ${result.version} to go live at ${result.release_at}: ` +
        `${count(result.products, "product")}, ${count(result.entries, "entry", "entries")} written in ${seconds} s. ` +
        `Live until then: ${result.previous ?? "none"}.`,
    );
    if (!dryRun) {
      const run = { remote: values.remote, dryRun, persistTo: values["persist-to"], waitSeconds: values.wait, say };
      await armOrCancel(
        operatorTargetFrom({ remote: values.remote, "persist-to": values["persist-to"] }),
        result.version,
        new Date(result.release_at),
        () => cancelScheduled(result.version, run),
        say,
      );
      say(
        `Read it before then: GET /api/v1/operator/catalog/versions/${result.version}/products/{handle}; ` +
          `cancel it: npm run catalog:rollback -- --cancel ${result.version}${values.remote ? " --remote" : ""}.`,
      );
    }
  } else
    say(
      `${dryRun ? "Would publish" : "Published"} catalog ${result.version}: ` +
        `${count(result.products, "product")}, ${count(result.entries, "entry", "entries")} in ${seconds} s. ` +
        `Previous: ${result.previous ?? "none"}; ${count(result.deleted, "stale key")} deleted.`,
    );
  const stock = stockReport(result, values.stock === "replace" ? "replace" : "keep");
  // A scheduled version's levels go into live stock once it is live, not before.
  if (stock && !dryRun) say(result.release_at === undefined ? stock : `Once it goes live: ${stock}`);
}

await runCli(cli, async () => {
  const { values, positionals } = cli.parse();
  const file = positionals[0] ?? "seed/catalog.json";
  try {
    await publish(values, file);
  } catch (error) {
    // The file, then the product and field at fault.
    if (error instanceof CatalogValidationError)
      throw new InputError(`${error.message}\nNothing was published.`, { file });
    throw error;
  }
});
