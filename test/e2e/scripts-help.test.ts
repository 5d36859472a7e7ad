import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { STACK_FRAME } from "../helpers/cli.ts";

/**
 * `--help` works on every npm script (`bench` printed a stack trace, `soak` refused it,
 * `check` ran tsc for 20 s first), and a usage mistake is one line on stderr with exit code 2.
 * Every script the project writes itself (`node …`) is run the way a user runs it, through npm;
 * the others hand `--help` to their tool (vitest, wrangler), which has its own.
 */

const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
const OWN = Object.keys(scripts).filter((name) => !name.startsWith("pre") && scripts[name]!.startsWith("node "));

function npmRun(
  script: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", script, "--", ...args], {
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    // npm's own warnings about the machine's npmrc are not the script's output.
    child.on("close", (code) =>
      resolve({ code, stdout, stderr: stderr.replace(/^npm warn .*\n/gm, ""), ms: Date.now() - started }),
    );
  });
}

describe("every npm script of the project's own", () => {
  it("covers the scripts the issue names", () => {
    expect(OWN).toEqual(
      expect.arrayContaining([
        "bench",
        "soak",
        "check",
        "dev",
        "token",
        "catalog:publish",
        "catalog:rollback",
        "catalog:generate",
        "catalog:import",
        "docs:assets",
      ]),
    );
  });

  it.each(OWN)("npm run %s -- --help prints its usage on stdout and exits 0 within seconds", async (script) => {
    const run = await npmRun(script, ["--help"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Usage: npm run ${script} -- `, "m"));
    expect(run.stderr).not.toMatch(STACK_FRAME);
    // `check` used to run tsc (about 20 s alone, more on a busy machine) before reading its arguments.
    if (script === "check") expect(run.ms).toBeLessThan(15_000);
  });

  it.each(OWN)("npm run %s -- --no-such-option is one line on stderr and exit 2", async (script) => {
    const run = await npmRun(script, ["--no-such-option"]);
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split("\n"), run.stderr).toHaveLength(1);
    expect(run.stderr).toContain("--no-such-option");
    expect(run.stderr).not.toMatch(STACK_FRAME);
  });
});

describe("npm run bench -- --catalog-file", () => {
  it.each([
    [["--products", "10", "--catalog-file", "seed/catalog.json"], "Give --products N or --catalog-file FILE, not both"],
    [["--catalog-file", "no/such/catalog.json"], "--catalog-file no/such/catalog.json: no such file."],
  ])("npm run bench -- %j is one line on stderr and exit 2", async (args, message) => {
    const run = await npmRun("bench", args);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr.trimEnd().split("\n"), run.stderr).toHaveLength(1);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toMatch(STACK_FRAME);
  });
});
