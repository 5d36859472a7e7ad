// npm run catalog:rollback -- [--local|--remote] [--persist-to DIR] [--dry-run] [--to VERSION] [--list]   (--help for usage)
import { count } from "../count.ts";
import { VERSION_NAME } from "../version-name.ts";
import { join } from "node:path";
import { bindingTarget, type HistoryLine, listHistory, rollbackCatalog, rollbackTo } from "../publish/publish.ts";
import { remoteTarget } from "../publish/remote.ts";
import { d1Target } from "../publish/browse-index.ts";
import { remoteBrowseTarget } from "../publish/browse-remote.ts";
import { defineCli, runCli, UsageError } from "./args.ts";
import { operatorName, remoteLock, WAIT_OPTION, withLockedLocalState } from "./locked-state.ts";
import { localStateDir } from "./dev-server-record.ts";
import { cancelScheduled } from "./publish-run.ts";

const cli = defineCli({
  command: "npm run catalog:rollback",
  summary:
    "Makes the previous catalog version live again with one pointer switch (run it again to " +
    "return), or any kept version with --to. --list prints the publish history.",
  options: {
    local: { type: "boolean", help: "local state, where npm run dev reads (the default)" },
    remote: { type: "boolean", help: "the deployed CATALOG namespace (wrangler kv --remote)" },
    "persist-to": {
      type: "string",
      value: "DIR",
      help: "local state directory, as given to npm run dev -- --persist-to",
    },
    "dry-run": { type: "boolean", help: "with --remote: print every wrangler command, run none" },
    to: {
      type: "string",
      value: "VERSION",
      help: "make this kept version live (see --list) instead of the previous one",
    },
    expect: {
      type: "string",
      value: "VERSION",
      help: "refuse (exit 1, nothing changed) unless VERSION is the live catalog when the rollback runs",
    },
    cancel: {
      type: "string",
      value: "VERSION",
      help: "cancel the release of VERSION scheduled by catalog:publish --at or catalog:apply --at (its version is deleted)",
    },
    list: {
      type: "boolean",
      help: "print the publish history (every publish and rollback, oldest first) and change nothing",
    },
    wait: WAIT_OPTION,
  },
  notes:
    "The history is append-only: each line is one publish, change batch or rollback (number, " +
    "when, what, version, products, file and who when known; a batch also how many products " +
    "and collections it changed), marked live and/or kept; the last 5 published versions are " +
    "kept (with the live one, the rollback target, and the versions a kept batch reads from), " +
    "so --to can return to any of them.",
});

/** The history as a table an operator reads; `live` marks the entry that made the live version live. */
function printHistory(lines: readonly HistoryLine[], say: (line: string) => void): void {
  if (lines.length === 0) {
    say("No catalog has been published yet.");
    return;
  }
  say(
    "#    when                      action    version                               products  state      source / by",
  );
  for (const l of lines) {
    const state = l.state ?? (l.live ? "live" : l.kept ? "kept" : "deleted");
    // A scheduled release says when (and a canceled one why).
    const release = l.release_at === undefined ? "" : ` [release at ${l.release_at}${l.reason ? `: ${l.reason}` : ""}]`;
    const from = l.action === "rollback" ? ` (from ${l.from})` : "";
    // A change batch says what it changed (contract section 11): `batch` ... `3 products, 1 collection`.
    const changed = l.changed
      ? `${count(l.changed.products, "product")}, ${count(l.changed.collections, "collection")}: `
      : "";
    const who = changed + [l.source, l.by].filter(Boolean).join(" by ");
    say(
      `${String(l.seq).padEnd(4)} ${l.at.padEnd(25)} ${l.action.padEnd(9)} ` +
        `${l.version.padEnd(37)} ${String(l.products).padStart(8)}  ${state.padEnd(10)} ` +
        `${who}${from}${release}`,
    );
  }
}

async function main(): Promise<void> {
  const { values } = cli.parse();
  if (values.local && values.remote) throw new UsageError("Choose one of --local and --remote.");
  if (values["dry-run"] && !values.remote) throw new UsageError("--dry-run applies to --remote only.");
  if (values.remote && values["persist-to"] !== undefined)
    throw new UsageError("--persist-to applies to --local only.");
  if (values.list && (values.to !== undefined || values.expect !== undefined))
    throw new UsageError("--list changes nothing; it cannot be given with --to or --expect.");
  if (values.cancel !== undefined) {
    if (values.list || values.to !== undefined || values.expect !== undefined)
      throw new UsageError("--cancel cannot be given with --list, --to or --expect.");
    if (!VERSION_NAME.test(values.cancel))
      throw new UsageError(`--cancel takes a version name (1-64 of A-Z a-z 0-9 _ -), not "${values.cancel}".`);
    const entry = await cancelScheduled(values.cancel, {
      remote: values.remote,
      dryRun: values["dry-run"],
      persistTo: values["persist-to"],
      waitSeconds: values.wait,
      say: (line) => console.log(line),
    });
    console.log(
      `Canceled the release of catalog ${entry.version} scheduled for ${entry.release_at}: its version is deleted; the live catalog is unchanged.`,
    );
    return;
  }
  if (values.expect !== undefined && !VERSION_NAME.test(values.expect))
    throw new UsageError(`--expect takes a version name (1-64 of A-Z a-z 0-9 _ -), not "${values.expect}".`);
  if (values.to !== undefined && !VERSION_NAME.test(values.to))
    throw new UsageError(`--to takes a version name (1-64 of A-Z a-z 0-9 _ -), not "${values.to}".`);
  const prefix = values["dry-run"] ? "(dry run) " : "";
  const say = (line: string) => console.log(`${prefix}${line}`);
  const by = operatorName();
  const waitMs = values.wait * 1000;
  // A rollback that waited for another operation says which version it now rolls back from.
  let waited = false;
  const sayWait = (line: string) => {
    waited = true;
    say(line);
  };
  const options = {
    by,
    ...(values.to !== undefined ? { to: values.to } : {}),
    ...(values.expect !== undefined ? { expect: values.expect } : {}),
    onLive: (live: string, to: string) => {
      if (waited) say(`The wait is over: catalog ${live} is live now; rolling back from ${live} to ${to}.`);
    },
  };
  let result;
  if (values.remote) {
    const target = remoteTarget({ dryRun: values["dry-run"], log: say });
    try {
      const lock = remoteLock(target, { waitMs, say: sayWait, dryRun: values["dry-run"] });
      const browse = remoteBrowseTarget({ dryRun: values["dry-run"], log: say });
      // Listing takes the lock too, and settles what a killed publish left (publish.ts settleInterrupted).
      if (values.list) return printHistory(await listHistory(target, { lock, browse }), say);
      result = await rollbackTo(target, { ...options, lock, browse });
    } catch (error) {
      // A dry run reads nothing either, so it cannot see a previous version; it still says it is one.
      throw prefix && error instanceof Error ? new Error(`${prefix}${error.message}`) : error;
    } finally {
      target.dispose();
    }
  } else {
    const persist = localStateDir(values["persist-to"]);
    const dir = persist ? join(persist, "v3") : undefined;
    // Listing takes the lock too: it reads the history and the kept versions as one consistent state.
    const intent = { action: "rollback" as const, by, ...(values.to !== undefined ? { version: values.to } : {}) };
    // Listing takes the lock, so it also settles what a killed publish left (locked-state.ts).
    if (values.list)
      return withLockedLocalState(dir, intent, { waitMs, say }, async (local) =>
        printHistory(await listHistory(bindingTarget(local.env.CATALOG)), say),
      );
    result = await withLockedLocalState(dir, intent, { waitMs, say: sayWait }, (local, lock) =>
      rollbackCatalog(local.env.CATALOG, {
        ...options,
        lock,
        browse: d1Target(local.env.BROWSE, local.env.BROWSE_SNAPSHOTS),
      }),
    );
  }
  say(
    `Rolled back from ${result.previous}: catalog ${result.version} is live again (${result.previous} kept; roll back again to return to it).`,
  );
}

await runCli(cli, main);
