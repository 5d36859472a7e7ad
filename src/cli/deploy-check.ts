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

const cli = defineCli({
  command: "node src/cli/deploy-check.ts",
  summary: `Run by npm run deploy before wrangler deploy: refuses wrangler.toml's placeholder KV and D1
ids (the local-development values), naming what to create. npm run check's dry run needs no real
ids and does not run it.`,
  options: {
    config: { type: "string", value: "FILE", default: "wrangler.toml", help: "the Wrangler configuration to check" },
  },
});

if (import.meta.main) {
  await runCli(cli, () => {
    const { values } = cli.parse();
    let toml: string;
    try {
      toml = readFileSync(values.config, "utf8");
    } catch {
      throw new InputError("cannot be read.", { file: values.config });
    }
    const found = placeholderBindings(toml);
    if (found.length === 0) return;
    const lines = [
      `npm run deploy: ${values.config} still has the placeholder ids of local development; nothing was deployed.`,
      `Create each of these in your Cloudflare account and put its id in ${values.config}:`,
      ...found.map((b) => `  [[${b.table}]] ${b.binding}: ${b.create}  (then set ${b.key} to the id it prints)`),
    ];
    process.stderr.write(`${lines.join("\n")}\n`);
    process.exitCode = 1;
  });
}
