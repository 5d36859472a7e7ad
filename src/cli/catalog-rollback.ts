// npm run catalog:rollback -- [--local|--remote] [--persist-to DIR] [--dry-run]
import { join } from "node:path";
import { parseArgs } from "node:util";
import { rollbackCatalog, rollbackTo } from "../publish/publish.ts";
import { remoteTarget } from "../publish/remote.ts";
import { openLocalEnv } from "./local-env.ts";

const { values } = parseArgs({
  options: { local: { type: "boolean" }, remote: { type: "boolean" }, "persist-to": { type: "string" }, "dry-run": { type: "boolean" } },
});

/** One pointer switch back to the previous version; run it again to return. */
async function main(): Promise<void> {
  if (values.local && values.remote) throw new Error("Choose one of --local and --remote.");
  let result;
  if (values.remote) {
    const target = remoteTarget({ dryRun: values["dry-run"] ?? false });
    try {
      result = await rollbackTo(target);
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
  console.log(`Rolled back: catalog ${result.version} is live again (${result.previous} kept; roll back again to return to it).`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
