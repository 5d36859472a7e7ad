import { mkdirSync, readFileSync, writeFileSync } from "node:fs";

/**
 * Keeps a passing `npm test` to a summary. Runs in the Node process that drives vitest (the
 * config's `onConsoleLog`), for both projects:
 * - the worker's one-line-per-request log is dropped unless `REQUEST_LOG=1`;
 * - the hardening suites' `[hardening] <suite> name=value …` figures are merged into
 *   `test-results/hardening.json` (suite → figures, summed over runs) instead of printed.
 * Returning false drops a line from the output; anything else goes through.
 */
export const FIGURES_FILE = "test-results/hardening.json";

const REQUEST_LOG_LINE = /^\{"method":"[A-Z]+","route":/;

function recordFigures(line: string): void {
  const [, suite = "unknown", ...pairs] = line.trim().split(/\s+/);
  let all: Record<string, Record<string, number>> = {};
  try {
    all = JSON.parse(readFileSync(FIGURES_FILE, "utf8")) as typeof all;
  } catch {
    // First figures of the run, or an unreadable leftover: start afresh.
  }
  const figures = (all[suite] ??= {});
  for (const pair of pairs) {
    const [name, value] = pair.split("=");
    if (name && value !== undefined && Number.isFinite(Number(value))) figures[name] = (figures[name] ?? 0) + Number(value);
  }
  mkdirSync("test-results", { recursive: true });
  writeFileSync(FIGURES_FILE, `${JSON.stringify(all, null, 2)}\n`);
}

export function quietConsole(log: string): boolean | void {
  if (log.startsWith("[hardening]")) {
    recordFigures(log);
    return false;
  }
  if (process.env.REQUEST_LOG !== "1" && REQUEST_LOG_LINE.test(log.trim())) return false;
}

/** A fresh figures file per `npm test` run (called once from the config). */
export function resetFigures(): void {
  mkdirSync("test-results", { recursive: true });
  writeFileSync(FIGURES_FILE, "{}\n");
}
