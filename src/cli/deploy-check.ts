// npm run deploy runs this first (predeploy)   (--help for usage)
//
// Refuses to deploy with the placeholder KV and D1 ids wrangler.toml ships with for local
// development: wrangler would otherwise upload a worker bound to namespaces that are not this
// account's (or fail later, less clearly). Says what to create and where its id goes.
import { readFileSync } from "node:fs";
import { defineCli, InputError, runCli } from "./args.ts";

/** A binding of wrangler.toml whose id is still a local placeholder, with what creates a real one. */
export interface PlaceholderBinding {
  table: "kv_namespaces" | "d1_databases";
  binding: string;
  key: "id" | "database_id";
  create: string;
}

/**
 * The placeholders are all zeros but their last digit (`00000000000000000000000000000001`,
 * `00000000-0000-0000-0000-000000000003`): no real KV or D1 id looks like that.
 */
export function isPlaceholderId(id: string): boolean {
  return /^[0-]*[0-9]$/.test(id);
}

/** The `[[kv_namespaces]]` and `[[d1_databases]]` blocks of a wrangler.toml whose id is a placeholder. */
export function placeholderBindings(toml: string): PlaceholderBinding[] {
  const out: PlaceholderBinding[] = [];
  // Each [[table]] block runs to the next table header.
  const blocks = toml.split(/^(?=\[)/m);
  for (const block of blocks) {
    const header = /^\[\[(kv_namespaces|d1_databases)\]\]/.exec(block);
    if (!header) continue;
    const value = (key: string) =>
      new RegExp(`^\\s*${key}\\s*=\\s*"([^"]*)"`, "m").exec(block.replace(/#.*$/gm, ""))?.[1];
    const binding = value("binding") ?? "(unnamed)";
    if (header[1] === "kv_namespaces") {
      const id = value("id");
      if (id !== undefined && isPlaceholderId(id))
        out.push({
          table: "kv_namespaces",
          binding,
          key: "id",
          create: `npx wrangler kv namespace create ${binding}`,
        });
    } else {
      const id = value("database_id");
      if (id !== undefined && isPlaceholderId(id))
        out.push({
          table: "d1_databases",
          binding,
          key: "database_id",
          create: `npx wrangler d1 create ${value("database_name") ?? binding}`,
        });
    }
  }
  return out;
}

/** The storage a wrangler.toml binds: `kv_namespaces:CATALOG` -> its id (a D1's database_id, an R2's bucket_name). */
export function storageBindings(toml: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const block of toml.split(/^(?=\[)/m)) {
    const header = /^\[\[(kv_namespaces|d1_databases|r2_buckets)\]\]/.exec(block);
    if (!header) continue;
    const value = (key: string) =>
      new RegExp(`^\\s*${key}\\s*=\\s*"([^"]*)"`, "m").exec(block.replace(/#.*$/gm, ""))?.[1];
    const key = { kv_namespaces: "id", d1_databases: "database_id", r2_buckets: "bucket_name" }[header[1]!]!;
    out.set(`${header[1]}:${value("binding") ?? "(unnamed)"}`, value(key) ?? "");
  }
  return out;
}

/**
 * Where the catalog writer's configuration (writer/wrangler.toml) binds other storage than the
 * storefront's: it must write the very catalog, browse index and snapshots the storefront reads.
 */
export function writerMismatches(storefrontToml: string, writerToml: string): string[] {
  const storefront = storageBindings(storefrontToml);
  return [...storageBindings(writerToml)].flatMap(([name, id]) =>
    storefront.get(name) === id
      ? []
      : [
          `${name.replace(":", " ")}: the writer binds "${id}", the storefront ${storefront.has(name) ? `"${storefront.get(name)}"` : "nothing"}`,
        ],
  );
}

const cli = defineCli({
  command: "node src/cli/deploy-check.ts",
  summary: `Run by npm run deploy before wrangler deploy: refuses wrangler.toml's placeholder KV and D1
ids (the local-development values), naming what to create, and a catalog writer configuration
(writer/wrangler.toml) whose storage ids are not the storefront's. npm run check's dry run needs no
real ids and does not run it.`,
  options: {
    config: { type: "string", value: "FILE", default: "wrangler.toml", help: "the Wrangler configuration to check" },
    writer: {
      type: "string",
      value: "FILE",
      default: "writer/wrangler.toml",
      help: "the catalog writer's configuration: the same placeholders refused, and its storage ids must be the storefront's",
    },
  },
});

if (import.meta.main) {
  await runCli(cli, () => {
    const { values } = cli.parse();
    const read = (file: string) => {
      try {
        return readFileSync(file, "utf8");
      } catch {
        throw new InputError("cannot be read.", { file });
      }
    };
    const toml = read(values.config);
    const mismatches = writerMismatches(toml, read(values.writer));
    const found = placeholderBindings(toml);
    const lines: string[] = [];
    if (found.length > 0)
      lines.push(
        `npm run deploy: ${values.config} still has the placeholder ids of local development; nothing was deployed.`,
        `Create each of these in your Cloudflare account and put its id in ${values.config} (and, for CATALOG, BROWSE and BROWSE_SNAPSHOTS, in ${values.writer} too):`,
        ...found.map((b) => `  [[${b.table}]] ${b.binding}: ${b.create}  (then set ${b.key} to the id it prints)`),
      );
    else if (mismatches.length > 0)
      lines.push(
        `npm run deploy: ${values.writer} binds other storage than ${values.config}; nothing was deployed. The catalog writer must write what the storefront reads:`,
        ...mismatches.map((m) => `  ${m}`),
      );
    if (lines.length === 0) return;
    process.stderr.write(`${lines.join("\n")}\n`);
    process.exitCode = 1;
  });
}
