// npm run check   (--help for usage)
//
// The pre-merge checks, one after another, stopping at the first that fails. A script rather than
// a chain in package.json so that `--help` answers at once instead of after the 20 s of tsc.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { defineCli, runCli } from "./args.ts";

export interface CheckStep {
  what: string;
  command: string[];
}

const STEPS: CheckStep[] = [
  { what: "the /docs assets", command: ["node", "src/cli/docs-assets.ts"] },
  { what: "Biome: formatting and lint", command: ["biome", "ci", "."] },
  { what: "tsc (the typed client included)", command: ["tsc", "--noEmit"] },
  { what: "the OpenAPI validator and lint", command: ["node", "test/openapi/lint.ts"] },
  { what: "the production build", command: ["wrangler", "deploy", "--dry-run", "--outdir", ".wrangler/dry-run"] },
];

/**
 * Runs `steps` in order, stopping at the first failure; one line per step that passed (a step
 * that says nothing when it passes, tsc for one, otherwise leaves the screen blank), and one
 * naming the step that failed. Returns the exit code.
 */
export function runChecks(steps: readonly CheckStep[], write: (line: string) => void): number {
  for (const step of steps) {
    // npm run puts node_modules/.bin first on PATH, so tsc and wrangler are the project's own.
    const [command, ...args] = step.command as [string, ...string[]];
    const started = performance.now();
    const result = spawnSync(command === "node" ? process.execPath : command, args, { stdio: "inherit" });
    if (result.status !== 0) {
      write(`npm run check: ${step.what} failed (${step.command.join(" ")}).`);
      return result.status ?? 1;
    }
    write(`npm run check: ok  ${step.what} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  write(`npm run check: all ${steps.length} checks passed.`);
  return 0;
}

const cli = defineCli({
  command: "npm run check",
  summary: `The checks CI runs before the tests, in order, stopping at the first failure (one line
per step that passed):
${STEPS.map((step) => `  ${step.command.join(" ").padEnd(58)}${step.what}`).join("\n")}
then names the secrets a deployment needs (wrangler.toml [secrets] required), which no local check can see.`,
  options: {},
});

/**
 * The secrets wrangler.toml's `[secrets] required` names. The dry-run cannot see a deployment's
 * secrets (they live in Cloudflare, not in the build), so the check names them: `wrangler deploy`
 * refuses while one is missing, and a worker without CART_TOKEN_SECRET answers 503 to shoppers.
 */
function requiredSecrets(): string[] {
  const toml = readFileSync("wrangler.toml", "utf8");
  const list = /^\[secrets\][^[]*?^required\s*=\s*\[([^\]]*)\]/ms.exec(toml)?.[1] ?? "";
  return [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}

// Only as a script: the test imports runChecks.
if (import.meta.main) {
  await runCli(cli, () => {
    cli.parse();
    const code = runChecks(STEPS, (line) =>
      (line.includes(" failed (") ? process.stderr : process.stdout).write(`${line}\n`),
    );
    if (code !== 0) {
      process.exitCode = code;
      return;
    }
    const secrets = requiredSecrets();
    if (secrets.length > 0) {
      process.stdout.write(
        `npm run check: a deployment also needs these secrets, which no local check can see: ` +
          `${secrets.join(", ")}. Set each with \`npx wrangler secret put NAME\` (\`npx wrangler secret list\` ` +
          `shows what the deployed worker has); \`wrangler deploy\` refuses while one is missing, and a worker ` +
          `without CART_TOKEN_SECRET answers 503 cart_tokens_unconfigured to shoppers.\n`,
      );
    }
  });
}
