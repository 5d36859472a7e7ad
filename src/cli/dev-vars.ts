import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { DEV_CART_TOKEN_SECRET } from "../auth/shopper-token.ts";
import { DEV_ORDER_WEBHOOK_SECRET } from "../checkout/event-delivery.ts";

/**
 * The values `npm run dev` gives the worker (contract 10.1, "Development values"), lowest first:
 * its fixed development defaults, then `.dev.vars` (or `.env` when there is no `.dev.vars`, as
 * wrangler chooses), then the environment. Every name in the file flows through, and every name
 * the worker reads (`env.NAME` in src/) flows from the environment, so a new variable or secret
 * needs no change here. All of them reach wrangler dev as `--var`, which outranks wrangler's own
 * reading of the file: wrangler keeps only `[secrets] required` names from `.dev.vars` (issue 42,
 * point 14: STRIPE_WEBHOOK_SECRET and CART_TOKEN_SECRET_PREVIOUS never reached the worker).
 */
/** The operator secret of `npm run dev` unless `.dev.vars` or the environment says otherwise. */
export const DEV_OPERATOR_SECRET = "dev-operator-secret";

export const DEV_DEFAULTS: Readonly<Record<string, string>> = {
  ENVIRONMENT: "development",
  CATALOG_POINTER_TTL_MS: "0",
  ALLOWED_ORIGINS: "http://localhost:*,http://127.0.0.1:*",
  OPERATOR_SECRET: DEV_OPERATOR_SECRET,
  CART_TOKEN_SECRET: DEV_CART_TOKEN_SECRET,
  // Signs the local test payment page's webhook (contract 9.1: refused where ENVIRONMENT is not development).
  CHECKOUT_WEBHOOK_SECRET: "dev-checkout-webhook-secret",
  STRIPE_WEBHOOK_SECRET: "whsec_dev_0123456789abcdef",
  // Signs order events (contract 10.7): ORDER_WEBHOOK_URL=http://127.0.0.1:9000/hook npm run dev delivers them there.
  ORDER_WEBHOOK_SECRET: DEV_ORDER_WEBHOOK_SECRET,
};

export type DevVarSource = "default" | ".dev.vars" | ".env" | "environment";

export interface DevVars {
  values: Record<string, string>;
  /** Where each value came from, for the line npm run dev prints (names only, never values). */
  sources: Record<string, DevVarSource>;
}

/** The file wrangler would read in `dir`: `.dev.vars`, else `.env`, else none. */
function devVarsFile(dir: string): { name: ".dev.vars" | ".env"; values: Record<string, string> } | undefined {
  for (const name of [".dev.vars", ".env"] as const) {
    const path = join(dir, name);
    if (existsSync(path)) return { name, values: parseEnv(readFileSync(path, "utf8")) as Record<string, string> };
  }
  return undefined;
}

/** Names the worker reads as `env.NAME` in `srcDir` (its Node-only rooms aside), bindings included. */
export function workerVarNames(srcDir = "src"): Set<string> {
  const names = new Set<string>();
  if (!existsSync(srcDir)) return names;
  const files = readdirSync(srcDir, { recursive: true, encoding: "utf8" }).filter(
    (file) => file.endsWith(".ts") && !/^(cli|publish)[/\\]/.test(file),
  );
  for (const file of files)
    for (const match of readFileSync(join(srcDir, file), "utf8").matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b/g))
      names.add(match[1]!);
  return names;
}

/** Binding names in wrangler.toml (KV, D1, R2, Durable Objects, rate limits, assets): not variables. */
function bindingNames(wranglerToml: string): Set<string> {
  return new Set([...wranglerToml.matchAll(/^\s*(?:binding|name)\s*=\s*"([A-Z][A-Z0-9_]*)"/gm)].map((m) => m[1]!));
}

/** The development values for a project in `dir` with `environment`: defaults < file < environment. */
export function devVars(dir: string, environment: Readonly<Record<string, string | undefined>> = process.env): DevVars {
  const values: Record<string, string> = { ...DEV_DEFAULTS };
  const sources: Record<string, DevVarSource> = Object.fromEntries(
    Object.keys(DEV_DEFAULTS).map((name) => [name, "default" as const]),
  );
  const file = devVarsFile(dir);
  for (const [name, value] of Object.entries(file?.values ?? {})) {
    values[name] = value;
    sources[name] = file!.name;
  }
  const toml = existsSync(join(dir, "wrangler.toml")) ? readFileSync(join(dir, "wrangler.toml"), "utf8") : "";
  const bindings = bindingNames(toml);
  const known = new Set([...Object.keys(values), ...workerVarNames(join(dir, "src"))]);
  for (const name of known) {
    const value = environment[name];
    if (value === undefined || bindings.has(name)) continue;
    values[name] = value;
    sources[name] = "environment";
  }
  return { values, sources };
}

/** The operator secret the local dev server of this project uses (what devVars gives it). */
export function localOperatorSecret(): string {
  return devVars(process.cwd()).values.OPERATOR_SECRET ?? DEV_OPERATOR_SECRET;
}

/** `--var NAME:value` for each value, as wrangler dev takes them. */
export function varArgs(values: Readonly<Record<string, string>>): string[] {
  return Object.entries(values).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
}

/** What npm run dev prints about where its values came from: names only, never a value. */
export function describeSources(sources: Readonly<Record<string, DevVarSource>>): string | undefined {
  const from = (source: DevVarSource) =>
    Object.entries(sources)
      .filter(([, s]) => s === source)
      .map(([name]) => name);
  const parts = ([".dev.vars", ".env", "environment"] as const)
    .map((source) => [source, from(source)] as const)
    .filter(([, names]) => names.length > 0)
    .map(([source, names]) => `${names.join(", ")} from ${source === "environment" ? "the environment" : source}`);
  return parts.length > 0 ? `Development values: ${parts.join("; ")}; the rest npm run dev's defaults.` : undefined;
}
