// npm run dev -- [--persist-to DIR] [--port N] [--seed]   (PORT=8787 by default; --help for usage)
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, watch } from "node:fs";
import { join } from "node:path";
import { publishCatalog } from "../publish/publish.ts";
import { CatalogValidationError } from "../catalog/schema.ts";
import { defineCli, InputError, runCli, UsageError } from "./args.ts";
import { readJsonFile } from "./json-file.ts";
import { recordDevServer } from "./dev-server-record.ts";
import { seedDevTokens } from "./dev-tokens.ts";
import { describeSources, devVars, varArgs } from "./dev-vars.ts";
import { quietWranglerEnv } from "./local-env.ts";
import { applyD1Migrations } from "./d1-migrations.ts";
import { operatorName, WAIT_OPTION, withLockedLocalState } from "./locked-state.ts";
import { d1Target } from "../publish/browse-index.ts";
import { catalogDigest } from "../publish/build.ts";
import { parseCatalog } from "../catalog/schema.ts";
import { type Pointer, POINTER_KEY } from "../catalog/layout.ts";
import { count } from "../count.ts";

const SEED = "seed/catalog.json";

const cli = defineCli({
  command: "npm run dev",
  summary:
    `Publishes the seed catalog (${SEED}) into local state when no catalog is live there (a ` +
    `catalog you published or imported is kept and served), and the two development tokens ` +
    `unless they are there already, then serves the API and /docs with wrangler dev in ` +
    `development mode. It says which catalog version it serves.`,
  options: {
    seed: {
      type: "boolean",
      help:
        `publish the seed catalog even when another catalog is live (it replaces it; ` +
        `catalog:rollback brings it back)`,
    },
    port: {
      type: "integer",
      value: "N",
      min: 1,
      max: 65535,
      help: "port to serve on, else the PORT variable, else 8787",
    },
    "persist-to": {
      type: "string",
      value: "DIR",
      help: "keep local state (catalog, tokens, carts) in DIR instead of .wrangler/state",
    },
  },
  notes: `Operator tools on the same state: npm run catalog:publish, npm run catalog:rollback and
npm run token (each with --persist-to DIR when you used it here).`,
});

/** PORT from the environment, refused with a clear message when it is not a port number. */
function portFromEnv(): number {
  const raw = process.env.PORT;
  if (raw === undefined || raw === "") return 8787;
  const port = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new UsageError(`PORT must be a port number from 1 to 65535; got ${JSON.stringify(raw)}.`);
  return port;
}

/**
 * Prepares local state (`wrangler dev` reads the same files: `.wrangler/state/v3`, or DIR/v3
 * with --persist-to DIR): publishes the seed catalog unless it is already live, seeds the dev
 * tokens, and announces the tokens that work in this state.
 */
async function prepare(persistTo: string | undefined, forceSeed: boolean): Promise<void> {
  const seed = readJsonFile(SEED);
  // The publish lock, like catalog:publish and catalog:rollback: a seed publish never races theirs.
  const intent = { action: "publish" as const, source: SEED, by: operatorName() };
  const wait = { waitMs: WAIT_OPTION.default * 1000, say: (line: string) => console.log(line) };
  await withLockedLocalState(persistTo ? join(persistTo, "v3") : undefined, intent, wait, async (local, lock) => {
    // A catalog imported or published into this state is kept; the seed only fills
    // an empty state, or replaces what is live when asked to (--seed).
    const live = await local.env.CATALOG.get<Pointer>(POINTER_KEY, "json");
    let seedDigest: string;
    try {
      seedDigest = await catalogDigest(parseCatalog(seed));
    } catch (error) {
      if (error instanceof CatalogValidationError) throw new InputError(error.message, { file: SEED });
      throw error;
    }
    if (live && live.current.digest !== seedDigest && !forceSeed) {
      const meta = live.current;
      console.log(
        `Serving catalog ${meta.version} (${count(meta.products, "product")}${meta.currency ? `, ${meta.currency}` : ""}, published ${meta.published_at}): not the seed, kept as it is. ` +
          "npm run dev -- --seed publishes the seed over it.",
      );
    } else {
      const result = await publishCatalog(local.env.CATALOG, seed, {
        skipIfLive: true,
        lock,
        browse: d1Target(local.env.BROWSE, local.env.BROWSE_SNAPSHOTS),
      });
      console.log(
        result.skipped
          ? `Seed catalog ${result.version} is already live.`
          : `Published the seed catalog as ${result.version}.`,
      );
      console.log(`Serving catalog ${result.version} (the seed, ${count(result.products, "product")}).`);
    }
    // The orders database (D1), as `wrangler d1 migrations apply storefront-orders --local` leaves it.
    const migrated = await applyD1Migrations(local.env.ORDERS);
    if (migrated.length > 0) console.log(`Orders database migrated: ${migrated.join(", ")}.`);
    const tokens = await seedDevTokens(local.env);
    if (tokens.working.length > 0) console.log(`Dev tokens ready: ${tokens.working.join(", ")}.`);
    if (tokens.revokedIds.length > 0) {
      console.log(
        `Revoked in this local state, so not listed: ${tokens.revokedIds.join(", ")} (npm run ` +
          `token -- issue gives a new token; fresh state, e.g. --persist-to a new DIR, brings the ` +
          `dev tokens back).`,
      );
    }
  });
}

/**
 * Keeps the generated OpenAPI documents in step with src/ while wrangler dev runs: wrangler
 * rebuilds the worker on a change, and this rebuilds the documents the worker serves (predev
 * built them once; docs:assets rewrites them only when they changed, and wrangler dev picks up
 * the new files). In a fresh process each time, since Node keeps the modules it imported. Each
 * folder is watched itself: a recursive watch loses a file an editor saves by renaming over it.
 */
function watchDocuments(): () => void {
  let timer: NodeJS.Timeout | undefined;
  const rebuild = (_event: string, file: string | null) => {
    if (!file?.endsWith(".ts")) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      const run = spawnSync(process.execPath, ["src/cli/docs-assets.ts"], { stdio: "inherit" });
      if (run.status !== 0) console.error("npm run dev: the OpenAPI documents could not be rebuilt (see above).");
    }, 300);
  };
  const folders = [
    "src",
    ...readdirSync("src", { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(entry.parentPath, entry.name)),
  ];
  const watchers = folders.map((folder) => watch(folder, rebuild));
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}

function serve(port: number, persistTo: string | undefined): void {
  const local = join(process.cwd(), "node_modules", ".bin", "wrangler");
  // Defaults < .dev.vars < the environment, every name the worker reads (src/cli/dev-vars.ts); values
  // never printed. E.g. a local Stripe stand-in: PAYMENT_PROVIDER=stripe STRIPE_API_BASE=http://127.0.0.1:12111
  // STRIPE_SECRET_KEY=sk_test_… npm run dev; order events to a receiver: ORDER_WEBHOOK_URL=http://127.0.0.1:9000/hook.
  const { values, sources } = devVars(process.cwd());
  const said = describeSources(sources);
  if (said) console.log(said);
  // src/dev.ts: the deployed Worker plus the local test payment page (/dev/pay); beside it, as a
  // deployment has it, the catalog writer Worker its CATALOG_WRITER binding reaches (POST
  // /operator/catalog/changes), on the same local state.
  const args = [
    "dev",
    "src/dev.ts",
    "--config",
    "wrangler.toml",
    "--config",
    "writer/wrangler.toml",
    "--port",
    String(port),
    ...varArgs(values),
    ...(persistTo ? ["--persist-to", persistTo] : []),
  ];
  const child = spawn(existsSync(local) ? local : "wrangler", args, { stdio: "inherit", env: quietWranglerEnv() });
  const stopWatching = watchDocuments();
  // npm run token on this state finds this server by this record, whatever the port.
  const forget = recordDevServer(persistTo, port);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => {
    forget();
    stopWatching();
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}

await runCli(cli, async () => {
  const { values } = cli.parse();
  const port = values.port ?? portFromEnv();
  await prepare(values["persist-to"], values.seed);
  serve(port, values["persist-to"]);
});
