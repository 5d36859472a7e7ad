// npm run dev -- [--persist-to DIR]   (PORT=8787 by default)
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { publishCatalog } from "../publish/publish.ts";
import { CatalogValidationError } from "../catalog/schema.ts";
import { openLocalEnv } from "./local-env.ts";

const { values } = parseArgs({ options: { "persist-to": { type: "string" } } });
const persistTo = values["persist-to"];
const port = process.env.PORT ?? "8787";

/** Seeds the local dev tokens when the cart issue's seeder is present; warns and goes on if not. */
async function seedTokens(env: Env): Promise<void> {
  try {
    const module = (await import("./dev-tokens.ts")) as { seedDevTokens: (env: Env) => Promise<void> };
    await module.seedDevTokens(env);
    console.log("Dev tokens ready: sf_dev_LocalToken_A1, sf_dev_LocalToken_B2.");
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== "ERR_MODULE_NOT_FOUND") throw error;
    console.warn("Warning: src/cli/dev-tokens.ts is missing, so no dev tokens were seeded.");
  }
}

/**
 * Prepares local state (`wrangler dev` reads the same files: `.wrangler/state/v3`, or DIR/v3
 * with --persist-to DIR): publishes the seed catalog unless it is already live, seeds the dev
 * tokens, then hands over to `wrangler dev` with the development settings.
 */
async function prepare(): Promise<void> {
  const local = await openLocalEnv(persistTo ? join(persistTo, "v3") : undefined);
  try {
    const seed: unknown = JSON.parse(readFileSync("seed/catalog.json", "utf8"));
    const result = await publishCatalog(local.env.CATALOG, seed, { skipIfLive: true });
    console.log(result.skipped ? `Seed catalog ${result.version} is already live.` : `Published the seed catalog as ${result.version}.`);
    await seedTokens(local.env);
  } finally {
    await local.dispose();
  }
}

function serve(): void {
  const local = join(process.cwd(), "node_modules", ".bin", "wrangler");
  const args = [
    "dev",
    "--port", port,
    "--var", "ENVIRONMENT:development",
    "--var", "ALLOWED_ORIGINS:http://localhost:*,http://127.0.0.1:*",
    "--var", "OPERATOR_SECRET:dev-operator-secret",
    ...(persistTo ? ["--persist-to", persistTo] : []),
  ];
  const child = spawn(existsSync(local) ? local : "wrangler", args, { stdio: "inherit", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}

prepare()
  .then(serve)
  .catch((error: unknown) => {
    if (error instanceof CatalogValidationError) console.error(`seed/catalog.json is invalid:\n${error.message}`);
    else console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
