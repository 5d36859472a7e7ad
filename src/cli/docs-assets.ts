/**
 * `npm run docs:assets`: copies the reference renderer (Scalar's standalone browser bundle, a
 * devDependency) as `public/docs/scalar.js`, where Workers Static Assets serves it. Runs before
 * `dev`, `test`, `test:browser`, `check` and `deploy` (npm `pre` scripts), so a fresh clone needs
 * nothing more than `npm ci`. The copy is generated, not committed: the bundle is several MB and
 * changes only with the pinned package version. Node-side only; the worker never imports this.
 */
import { copyFile, mkdir, readFile, stat } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { defineCli, runCli } from "./args.ts";

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

async function main(): Promise<void> {
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

const cli = defineCli({
  command: "npm run docs:assets",
  summary:
    `Copies ${PACKAGE}'s browser bundle to public/docs/scalar.js (runs before dev, test, ` +
    `test:browser and deploy).`,
  options: {},
});

await runCli(cli, () => {
  cli.parse();
  return main();
});
