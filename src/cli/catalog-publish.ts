// npm run catalog:publish -- [--local|--remote] [--persist-to DIR] [--dry-run] [file]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type PublishProgress, publishCatalog, publishTo } from "../publish/publish.ts";
import { remoteTarget } from "../publish/remote.ts";
import { CatalogValidationError } from "../catalog/schema.ts";
import { openLocalEnv } from "./local-env.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    local: { type: "boolean" },
    remote: { type: "boolean" },
    "persist-to": { type: "string" },
    "dry-run": { type: "boolean" },
    "if-changed": { type: "boolean" },
    version: { type: "string" },
  },
});

/** Progress on one line (a TTY) or every 10% (logs), so long publishes show they are alive. */
function progressPrinter(dryRun: boolean): (p: PublishProgress) => void {
  let lastTenth = -1;
  return (p) => {
    if (p.phase === "validated") console.log(`Catalog is valid: writing ${p.total} KV entries.`);
    if (p.phase === "writing") {
      const tenth = Math.floor((p.written / p.total) * 10);
      if (process.stdout.isTTY) process.stdout.write(`\r  ${p.written}/${p.total} entries written`);
      else if (tenth > lastTenth) console.log(`  ${p.written}/${p.total} entries written`);
      lastTenth = tenth;
    }
    if (p.phase === "switched") console.log(`${process.stdout.isTTY ? "\n" : ""}${dryRun ? "(dry run) " : ""}Pointer switched: the new catalog is live.`);
  };
}

async function main(): Promise<void> {
  if (values.local && values.remote) throw new Error("Choose one of --local and --remote.");
  const file = positionals[0] ?? "seed/catalog.json";
  const input: unknown = JSON.parse(readFileSync(file, "utf8"));
  const dryRun = values["dry-run"] ?? false;
  const options = { onProgress: progressPrinter(dryRun), skipIfLive: values["if-changed"] ?? false, ...(values.version ? { version: values.version } : {}) };
  const started = Date.now();
  let result;
  if (values.remote) {
    console.log(`Publishing ${file} to the remote CATALOG namespace${values["dry-run"] ? " (dry run: nothing is executed)" : ""}.`);
    const target = remoteTarget({ dryRun: values["dry-run"] ?? false });
    try {
      result = await publishTo(target, input, options);
    } finally {
      target.dispose();
    }
  } else {
    const persist = values["persist-to"];
    console.log(`Publishing ${file} to local state${persist ? ` in ${persist}` : ""}.`);
    const local = await openLocalEnv(persist ? join(persist, "v3") : undefined);
    try {
      result = await publishCatalog(local.env.CATALOG, input, options);
    } finally {
      await local.dispose();
    }
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.skipped) console.log(`Catalog ${result.version} is already live: nothing written.`);
  else console.log(`${dryRun ? "(dry run) " : ""}Published catalog ${result.version}: ${result.products} products, ${result.entries} entries in ${seconds} s. Previous: ${result.previous ?? "none"}; ${result.deleted} stale keys deleted.`);
}

main().catch((error: unknown) => {
  if (error instanceof CatalogValidationError) console.error(`${error.message}\nNothing was published.`);
  else console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
