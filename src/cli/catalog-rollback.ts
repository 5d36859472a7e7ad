// npm run catalog:rollback -- [--local|--remote] [--persist-to DIR] [--dry-run]   (--help for usage)
import { join } from "node:path";
import { rollbackCatalog, rollbackTo } from "../publish/publish.ts";
import { remoteTarget } from "../publish/remote.ts";
import { defineCli, runCli, UsageError } from "./args.ts";
import { openLocalEnv } from "./local-env.ts";

const cli = defineCli({
  command: "npm run catalog:rollback",
  summary: "Makes the previous catalog version live again with one pointer switch; run it again to return.",
  options: {
    local: { type: "boolean", help: "local state, where npm run dev reads (the default)" },
    remote: { type: "boolean", help: "the deployed CATALOG namespace (wrangler kv --remote)" },
    "persist-to": { type: "string", value: "DIR", help: "local state directory, as given to npm run dev -- --persist-to" },
    "dry-run": { type: "boolean", help: "with --remote: print every wrangler command, run none" },
  },
});

/** One pointer switch back to the previous version; run it again to return. */
async function main(): Promise<void> {
  const { values } = cli.parse();
  if (values.local && values.remote) throw new UsageError("Choose one of --local and --remote.");
  if (values["dry-run"] && !values.remote) throw new UsageError("--dry-run applies to --remote only.");
  if (values.remote && values["persist-to"] !== undefined) throw new UsageError("--persist-to applies to --local only.");
  const prefix = values["dry-run"] ? "(dry run) " : "";
  const say = (line: string) => console.log(`${prefix}${line}`);
  let result;
  if (values.remote) {
    const target = remoteTarget({ dryRun: values["dry-run"], log: say });
    try {
      result = await rollbackTo(target);
    } catch (error) {
      // A dry run reads nothing either, so it cannot see a previous version; it still says it is one.
      throw prefix && error instanceof Error ? new Error(`${prefix}${error.message}`) : error;
    } finally {
      target.dispose();
    }
  } else {
    const persist = values["persist-to"];
    const local = await openLocalEnv(persist ? join(persist, "v3") : undefined);
    try {
      result = await rollbackCatalog(local.env.CATALOG);
    } finally {
      await local.dispose();
    }
  }
  say(`Rolled back: catalog ${result.version} is live again (${result.previous} kept; roll back again to return to it).`);
}

await runCli(cli, main);
