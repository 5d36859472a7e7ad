import { join } from "node:path";
import { type PublishProgress, type PublishResult, publishCatalog, publishTo } from "../publish/publish.ts";
import { remoteTarget } from "../publish/remote.ts";
import { d1Target } from "../publish/browse-index.ts";
import { remoteBrowseTarget } from "../publish/browse-remote.ts";
import { operatorName, remoteLock, withLockedLocalState } from "./locked-state.ts";

/** Where and how catalog:publish and catalog:import --publish write a version. */
export interface PublishRun {
  remote: boolean;
  dryRun: boolean;
  /** npm run dev's --persist-to directory (local only). */
  persistTo: string | undefined;
  waitSeconds: number;
  version: string;
  /** The file published, for the history. */
  source?: string;
  skipIfLive?: boolean;
  /** Products per browse shard (PublishOptions.shardProducts). */
  shardProducts?: number;
  /** Prints a line; a dry run's says so (the caller prefixes it). */
  say: (line: string) => void;
}

/** What a publish's report says of live stock: the tracked levels the version carries, and where to see what they changed. */
export function stockReport(result: PublishResult): string | null {
  if (result.stock_tracked === 0) return null;
  return (
    `Live stock: ${result.stock_tracked} tracked variant levels go with this version; the worker writes them ` +
    "into the Stock objects on the version's first stock read or change, and `npm run stock -- show` " +
    "(no id) says how many levels that publish changed."
  );
}

/**
 * Progress on one line (a TTY) or every 10% (logs), so long publishes show they are alive. A dry
 * run says what would happen, never that it happened.
 */
export function progressPrinter(say: (line: string) => void, dryRun: boolean): (p: PublishProgress) => void {
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

/**
 * Publishes `input` (validated by publishTo) under the publish lock: into the deployed CATALOG
 * namespace, BROWSE database and snapshots bucket through wrangler (`remote`), or into the local
 * state npm run dev reads, KV and browse index alike (without the index browse answers 503).
 */
export async function runPublish(input: unknown, run: PublishRun): Promise<PublishResult> {
  const { say, dryRun } = run;
  const waitMs = run.waitSeconds * 1000;
  const options = {
    onProgress: progressPrinter(say, dryRun),
    version: run.version,
    by: operatorName(),
    ...(run.source !== undefined ? { source: run.source } : {}),
    ...(run.skipIfLive ? { skipIfLive: true } : {}),
    ...(run.shardProducts !== undefined ? { shardProducts: run.shardProducts } : {}),
  };
  const from = run.source !== undefined ? `${run.source} ` : "";
  if (run.remote) {
    say(`Publishing ${from}to the remote CATALOG namespace${dryRun ? ": nothing is executed" : ""}.`);
    const target = remoteTarget({ dryRun, log: say });
    try {
      const lock = remoteLock(target, { waitMs, say, dryRun });
      return await publishTo(target, input, { ...options, lock, browse: remoteBrowseTarget({ dryRun, log: say }) });
    } finally {
      target.dispose();
    }
  }
  const persist = run.persistTo;
  say(`Publishing ${from}to local state${persist ? ` in ${persist}` : ""}.`);
  return withLockedLocalState(
    persist ? join(persist, "v3") : undefined,
    {
      action: "publish",
      version: run.version,
      by: options.by,
      ...(run.source !== undefined ? { source: run.source } : {}),
    },
    { waitMs, say },
    (local, lock) =>
      publishCatalog(local.env.CATALOG, input, {
        ...options,
        lock,
        browse: d1Target(local.env.BROWSE, local.env.BROWSE_SNAPSHOTS),
      }),
  );
}
