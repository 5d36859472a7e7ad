/**
 * `npm run docs:assets`: writes the generated files of `public/` that Workers Static Assets serves
 * through the worker's routes:
 *   - the reference renderer (Scalar's standalone browser bundle, a devDependency) copied as
 *     `public/docs/scalar.js`: several MB, changing only with the pinned package version;
 *   - the two OpenAPI documents, built from the routes' `describe()` entries and zod schemas, as
 *     `public/openapi/openapi.json` and `public/openapi/operator.openapi.json`: building them here
 *     keeps the builder, the guide and zod's JSON Schema code out of the worker's bundle.
 * Runs before `dev`, `test`, `test:browser`, `check` and `deploy` (npm `pre` scripts), so a fresh
 * clone needs nothing more than `npm ci`; `npm run dev` runs it again when src/ changes. The files
 * are generated, not committed, and rewritten only when their bytes change. Node-side only; the
 * worker never imports this.
 */
import { copyFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { documentBytes } from "../openapi/assets.ts";
import { defineCli, runCli } from "./args.ts";
import { buildOpenApiDocuments } from "./openapi-documents.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const TARGET_DIR = join(ROOT, "public", "docs");
/** The name public/docs/index.html loads (and .gitignore leaves out). */
const TARGET = join(TARGET_DIR, "scalar.js");
const PACKAGE = "@scalar/api-reference";

async function sameFile(a: string, b: string): Promise<boolean> {
  try {
    const [sa, sb] = await Promise.all([stat(a), stat(b)]);
    if (sa.size !== sb.size) return false;
    const [ba, bb] = await Promise.all([readFile(a), readFile(b)]);
    return ba.equals(bb);
  } catch {
    return false;
  }
}

/** Writes `content` to `path` unless it holds those bytes already; true when it wrote. */
async function writeIfChanged(path: string, content: string): Promise<boolean> {
  const bytes = Buffer.from(content);
  try {
    if ((await readFile(path)).equals(bytes)) return false;
  } catch {
    // Not there yet.
  }
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, bytes);
  return true;
}

/** The OpenAPI documents, each rewritten only when it changed (so a running `wrangler dev` reloads only then). */
async function writeOpenApiDocuments(): Promise<void> {
  for (const { asset, document } of await buildOpenApiDocuments()) {
    const target = join(ROOT, "public", asset);
    const bytes = documentBytes(document);
    if (await writeIfChanged(target, bytes))
      console.log(`docs:assets: wrote ${relative(ROOT, target)} (${(Buffer.byteLength(bytes) / 1024).toFixed(1)} KiB)`);
  }
}

async function copyRenderer(): Promise<void> {
  // The package's exports map does not expose its package.json, so read it by path.
  const packageDir = join(ROOT, "node_modules", ...PACKAGE.split("/"));
  let version: string;
  try {
    ({ version } = JSON.parse(await readFile(join(packageDir, "package.json"), "utf8")) as { version: string });
  } catch {
    console.error(`docs:assets: ${PACKAGE} is not installed; run \`npm ci\` first.`);
    process.exit(2);
  }
  const source = join(packageDir, "dist", "browser", "standalone.js");
  if (await sameFile(source, TARGET)) return;
  await mkdir(TARGET_DIR, { recursive: true });
  await copyFile(source, TARGET);
  console.log(`docs:assets: ${PACKAGE} ${version} copied to ${relative(ROOT, TARGET)}`);
}

async function main(): Promise<void> {
  await copyRenderer();
  await writeOpenApiDocuments();
}

const cli = defineCli({
  command: "npm run docs:assets",
  summary:
    `Copies ${PACKAGE}'s browser bundle to public/docs/scalar.js and builds the two OpenAPI ` +
    `documents into public/openapi/ (runs before dev, test, test:browser, check and deploy).`,
  options: {},
});

await runCli(cli, () => {
  cli.parse();
  return main();
});
