import { join } from "node:path";
import {
  bindingTarget,
  type PublishProgress,
  type PublishResult,
  publishCatalog,
  publishTo,
} from "../publish/publish.ts";
import { cancelRelease } from "../publish/release.ts";
import type { HistoryEntry } from "../catalog/layout.ts";
import { remoteTarget } from "../publish/remote.ts";
import { d1Target } from "../publish/browse-index.ts";
import { remoteBrowseTarget } from "../publish/browse-remote.ts";
import { operatorName, remoteLock, withLockedLocalState } from "./locked-state.ts";
import { localStateDir } from "./dev-server-record.ts";
import type { StockMode } from "../stock/publish-levels.ts";
import { count } from "../count.ts";

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
  /** PublishOptions.stockMode: `replace` writes every level of the file. */
  stockMode?: StockMode;
  /** PublishOptions.releaseAt: written now, made live at this second by the worker's release clock. */
  releaseAt?: Date;
  /** Prints a line; a dry run's says so (the caller prefixes it). */
  say: (line: string) => void;
}

/**
 * What a publish's report says of live stock: how many levels the version writes and keeps (and
 * stops tracking), by the Stock objects' own rule against the last publish, and when they apply.
 */
export function stockReport(result: PublishResult, mode: StockMode = "keep"): string | null {
  const plan = result.stock_plan;
  if (result.stock_tracked === 0 && (plan === null || plan.untracked === 0)) return null;
  const when =
    "the worker applies them on the version's first stock read or change (`npm run stock -- show`, no id, " +
    "applies and counts them).";
  if (!plan) return `Live stock: ${count(result.stock_tracked, "tracked variant")} in this version; ${when}`;
  const why = mode === "replace" ? "--stock replace" : "new to tracking, or changed in the file since the last publish";
  return (
    `Live stock: ${count(plan.written, "level")} written (${why}), ${plan.kept} kept (the live level stays)` +
    `${plan.untracked > 0 ? `, ${count(plan.untracked, "variant")} no longer tracked` : ""}; ${when}`
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
    ...(run.stockMode !== undefined ? { stockMode: run.stockMode } : {}),
    ...(run.releaseAt !== undefined ? { releaseAt: run.releaseAt } : {}),
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
  // The running npm run dev's state when no --persist-to names one (its record says which).
  const persist = localStateDir(run.persistTo);
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

/**
 * Cancels the scheduled release of `version` (`catalog:rollback --cancel`, and a release whose
 * clock could not be set): its history entry `canceled`, its version deleted, under the lock.
 */
export async function cancelScheduled(
  version: string,
  run: Pick<PublishRun, "remote" | "dryRun" | "persistTo" | "waitSeconds" | "say">,
): Promise<HistoryEntry> {
  const { say, dryRun } = run;
  const waitMs = run.waitSeconds * 1000;
  const by = operatorName();
  if (run.remote) {
    const target = remoteTarget({ dryRun, log: say });
    try {
      const lock = remoteLock(target, { waitMs, say, dryRun });
      return await cancelRelease(target, version, { lock, browse: remoteBrowseTarget({ dryRun, log: say }), by });
    } finally {
      target.dispose();
    }
  }
  const persist = localStateDir(run.persistTo);
  return withLockedLocalState(
    persist ? join(persist, "v3") : undefined,
    { action: "rollback", version, by },
    { waitMs, say },
    (local, lock) =>
      cancelRelease(bindingTarget(local.env.CATALOG), version, {
        lock,
        browse: d1Target(local.env.BROWSE, local.env.BROWSE_SNAPSHOTS),
        by,
      }),
  );
}
