// `--at TIME` of catalog:publish and catalog:apply (issue 45, point 5): the time read, and the
// release clock of the worker armed for it once the version is written and scheduled.
import { releaseTime as checkedTime } from "../publish/release.ts";
import { UsageError } from "./args.ts";
import { type OperatorTarget, withOperator } from "./operator-target.ts";

export const AT_OPTION = {
  type: "string",
  value: "TIME",
  help:
    "write the version now and make it live at TIME (ISO 8601 with its zone: 2026-12-01T09:00:00Z " +
    "or 2026-12-01T10:00:00+01:00), switched by the worker's release clock; --list shows it, " +
    "catalog:rollback --cancel VERSION cancels it",
} as const;

/** The time `--at` names, in the future and at most a year ahead; a usage error (exit 2) otherwise. */
export function releaseTime(value: string, now = Date.now()): Date {
  const at = checkedTime(value, now);
  if (typeof at === "string") throw new UsageError(`--at ${at}.`);
  return at;
}

/** `--remote --at` sets the deployed worker's clock: refused (exit 2) before anything is written without its URL and secret. */
export function requireRemoteClock(): void {
  if (!(process.env.STOREFRONT_URL && process.env.OPERATOR_SECRET))
    throw new UsageError(
      "--remote --at arms the deployed worker's release clock: set STOREFRONT_URL (https://<your worker>) " +
        "and OPERATOR_SECRET in the environment.",
    );
}

/**
 * Arms the worker's release clock for `version` at `at` (POST /api/v1/operator/catalog/releases):
 * the local dev server of the state (one is started for the call if none answers; the clock's
 * alarm then fires when npm run dev runs), or the deployed worker (--remote: STOREFRONT_URL or
 * --url, OPERATOR_SECRET). Throws what the worker answered when it did not arm it.
 */
export async function armRelease(target: OperatorTarget, version: string, at: Date): Promise<string> {
  return withOperator(target, async (url, secret) => {
    const res = await fetch(`${url}/api/v1/operator/catalog/releases`, {
      method: "POST",
      headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
      body: JSON.stringify({ version, release_at: at.toISOString() }),
    });
    if (res.status !== 202) {
      const payload = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
      throw new Error(`${url} answered ${res.status}: ${payload?.error?.message ?? res.statusText}`);
    }
    return url;
  });
}

/**
 * Arms the clock for a scheduled version, or, when it cannot be armed, cancels the release (its
 * version deleted) so nothing waits for a clock that will not ring: the caller exits 1 then.
 */
export async function armOrCancel(
  target: OperatorTarget,
  version: string,
  at: Date,
  cancel: () => Promise<unknown>,
  say: (line: string) => void,
): Promise<void> {
  try {
    const url = await armRelease(target, version, at);
    say(`The release clock of ${url} is set for ${at.toISOString()}.`);
  } catch (error) {
    await cancel();
    throw new Error(
      `The release clock could not be set (${error instanceof Error ? error.message : String(error)}), ` +
        `so the release of catalog ${version} was canceled and its version deleted: nothing changed.`,
    );
  }
}
