// npm run catalog:publish -- [--local|--remote] [--persist-to DIR] [--dry-run] [file]   (--help for usage)
import { join } from "node:path";
import { newVersionName, type PublishProgress, publishCatalog, publishTo } from "../publish/publish.ts";
import { processLock, sqlLock } from "../publish/lock.ts";
import { operatorName, WAIT_OPTION, withLockedLocalState } from "./locked-state.ts";
import { remoteTarget } from "../publish/remote.ts";
import { CatalogValidationError } from "../catalog/schema.ts";
import { descriptionLossWarnings } from "../publish/sanitize.ts";
import { defineCli, InputError, runCli, UsageError } from "./args.ts";
import { readJsonFile } from "./json-file.ts";
import { d1Target } from "../publish/browse-index.ts";
import { remoteBrowseTarget, remoteD1Query } from "../publish/browse-remote.ts";

const cli = defineCli({
  command: "npm run catalog:publish",
  args: "[file]",
  summary:
    "Validates a catalog file (default seed/catalog.json), writes it as a new catalog version, then switches the live pointer to it in one write. The previous version is kept for catalog:rollback.",
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
  },
  notes:
    "A catalog that fails validation publishes nothing; the message names the product and field (exit 2). Publishes and rollbacks take turns: a second one waits for the first (up to --wait), then refuses, naming who holds the lock (exit 1). Every publish is recorded in the history (catalog:rollback --list); the last 5 versions are kept.",
});

/**
 * Progress on one line (a TTY) or every 10% (logs), so long publishes show they are alive. A dry
 * run says what would happen, never that it happened.
 */
function progressPrinter(say: (line: string) => void, dryRun: boolean): (p: PublishProgress) => void {
  let lastTenth = -1;
  const written = dryRun ? "entries prepared, none written" : "entries written";
  return (p) => {
    if (p.phase === "validated") say(`Catalog is valid: ${dryRun ? "would write" : "writing"} ${p.total} KV entries.`);
    if (p.phase === "writing") {
      const tenth = Math.floor((p.written / p.total) * 10);
      if (process.stdout.isTTY)
        process.stdout.write(`\r${dryRun ? "(dry run) " : ""}  ${p.written}/${p.total} ${written}`);
      else if (tenth > lastTenth) say(`  ${p.written}/${p.total} ${written}`);
      lastTenth = tenth;
    }
    if (p.phase === "switched") {
      if (process.stdout.isTTY) process.stdout.write("\n");
      say(
        dryRun ? "Pointer not switched: the live catalog is unchanged." : "Pointer switched: the new catalog is live.",
      );
    }
  };
}

async function publish(values: ReturnType<typeof cli.parse>["values"], file: string): Promise<void> {
  if (values.local && values.remote) throw new UsageError("Choose one of --local and --remote.");
  if (values["dry-run"] && !values.remote)
    throw new UsageError("--dry-run applies to --remote only (a local publish touches nothing but local state).");
  if (values.remote && values["persist-to"] !== undefined)
    throw new UsageError("--persist-to applies to --local only.");
  const dryRun = values["dry-run"];
  // A dry run says so on every line it prints, wrangler's commands included.
  const prefix = dryRun ? "(dry run) " : "";
  const say = (line: string) => console.log(`${prefix}${line}`);
  const input = readJsonFile(file);
  const options = {
    onProgress: progressPrinter(say, dryRun),
    skipIfLive: values["if-changed"],
    version: values.version ?? newVersionName(),
    source: file,
    by: operatorName(),
  };
  const waitMs = values.wait * 1000;
  const started = Date.now();
  let result;
  if (values.remote) {
    say(`Publishing ${file} to the remote CATALOG namespace${dryRun ? ": nothing is executed" : ""}.`);
    const target = remoteTarget({ dryRun, log: say });
    try {
      // The lock lives in the BROWSE database (lock.ts sqlLock); a dry run executes nothing, so it takes none.
      const lock = dryRun
        ? processLock(target)
        : sqlLock(remoteD1Query({ log: say }), {
            waitMs,
            onWait: (holder) => say(`Waiting up to ${values.wait} s for another catalog operation to end: ${holder}.`),
          });
      result = await publishTo(target, input, { ...options, lock, browse: remoteBrowseTarget({ dryRun, log: say }) });
    } finally {
      target.dispose();
    }
  } else {
    const persist = values["persist-to"];
    say(`Publishing ${file} to local state${persist ? ` in ${persist}` : ""}.`);
    result = await withLockedLocalState(
      persist ? join(persist, "v3") : undefined,
      { action: "publish", version: options.version, source: file, by: options.by },
      { waitMs, say },
      (local, lock) =>
        publishCatalog(local.env.CATALOG, input, {
          ...options,
          lock,
          browse: d1Target(local.env.BROWSE, local.env.BROWSE_SNAPSHOTS),
        }),
    );
  }
  for (const warning of descriptionLossWarnings(input)) say(`Warning: ${warning}`);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.skipped) say(`Catalog ${result.version} is already live: nothing written.`);
  else
    say(
      `${dryRun ? "Would publish" : "Published"} catalog ${result.version}: ${result.products} products, ${result.entries} entries in ${seconds} s. Previous: ${result.previous ?? "none"}; ${result.deleted} stale keys deleted.`,
    );
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
