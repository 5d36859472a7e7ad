/**
 * Run counts and the one-line figures every hardening suite prints.
 *
 * `FUZZ_RUNS` sets how many runs each property makes (`FUZZ_RUNS=2000 npm test -- test/fuzz…`);
 * unset, every property uses its CI-sized default, chosen so the hardening suites add well under
 * a minute to `npm test` on two cores. In workerd the value arrives as `import.meta.env.FUZZ_RUNS`
 * (vitest.config.ts lets the `FUZZ_` prefix through); in the Node e2e project as `process.env`.
 */
export function fuzzRuns(ciDefault: number): number {
  const fromVite = (import.meta as { env?: Record<string, unknown> }).env?.FUZZ_RUNS;
  const fromNode = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.FUZZ_RUNS;
  const raw = typeof fromVite === "string" && fromVite !== "" ? fromVite : fromNode;
  const runs = raw === undefined || raw === "" ? Number.NaN : Number(raw);
  return Number.isInteger(runs) && runs > 0 ? runs : ciDefault;
}

/**
 * Prints `[hardening] <suite> name=value …`; the test run gathers these into
 * test-results/hardening.json (test/helpers/quiet.ts) instead of printing them.
 */
export function printFigures(suite: string, figures: Record<string, number>): void {
  const parts = Object.entries(figures).map(([name, value]) => `${name}=${value}`);
  console.log(`[hardening] ${suite} ${parts.join(" ")}`);
}

/** A test timeout that grows with the run count: generous per run, since two cores are shared. */
export function timeoutFor(runs: number, perRunMs = 60): number {
  return 30_000 + runs * perRunMs;
}
