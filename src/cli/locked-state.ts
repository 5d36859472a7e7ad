import { userInfo, hostname } from "node:os";
import { fileLock } from "../publish/lock-file.ts";
import { type CatalogLock, d1Query, type HeldLock, type LockIntent, processLock, sqlLock } from "../publish/lock.ts";
import { remoteD1Query } from "../publish/browse-remote.ts";
import { d1Target } from "../publish/browse-index.ts";
import { bindingTarget, type Settled, settleInterrupted } from "../publish/publish.ts";
import { assertWritableState, DEFAULT_STATE, type LocalEnv, openLocalEnv } from "./local-env.ts";

/** Who runs an operator tool, for the publish history: `user@host`. */
export function operatorName(): string {
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return hostname();
  }
}

/** `--wait SECONDS`, the same on every command that takes the publish lock. */
export const WAIT_OPTION = {
  type: "integer",
  value: "SECONDS",
  min: 0,
  default: 600,
  help: "how long to wait for another publish or rollback to end (0: refuse at once)",
} as const;

function waitLine(waitMs: number, holder: string): string {
  return `Waiting up to ${Math.round(waitMs / 1000)} s for another catalog operation to end: ${holder}.`;
}

/**
 * The remote lock: a lease row in the BROWSE database (src/publish/lock.ts sqlLock). A dry run
 * executes nothing, so it takes none: `key` (its target) only queues it within this process.
 */
export function remoteLock(
  key: object,
  wait: { waitMs: number; say: (line: string) => void; dryRun: boolean },
): CatalogLock {
  if (wait.dryRun) return processLock(key);
  return sqlLock(remoteD1Query({ log: wait.say }), {
    waitMs: wait.waitMs,
    onWait: (holder) => wait.say(waitLine(wait.waitMs, holder)),
  });
}

/** What settling an interrupted publish did, for the operator (nothing when there was nothing). */
export function settledLines(settled: Settled): string[] {
  return [
    ...settled.completed.map(
      (v) =>
        `An interrupted publish of ${v} had switched the pointer: ${v} is live, and its history entry is completed.`,
    ),
    ...settled.abandoned.map(
      (v) => `An interrupted publish of ${v} never went live: marked abandoned in the history and deleted.`,
    ),
  ];
}

/** The local tools' lease token (see withLockedLocalState). */
const LOCAL_TOOLS_TOKEN = "local-tools";

/** A lock already taken, handed to publishTo/rollbackTo, which then neither wait nor release. */
function taken(held: HeldLock): CatalogLock {
  return { acquire: async () => ({ ...held, release: async () => {} }) };
}

/**
 * Runs `run` on the local state with the publish lock held for the whole time the state is open:
 * taken before Miniflare opens the directory and released after it is closed, so the next
 * holder's Miniflare starts from everything this one wrote (see src/publish/lock.ts).
 */
export async function withLockedLocalState<T>(
  persistPath: string | undefined,
  intent: LockIntent,
  wait: { waitMs: number; say: (line: string) => void },
  run: (local: LocalEnv, lock: CatalogLock) => Promise<T>,
): Promise<T> {
  const dir = persistPath ?? DEFAULT_STATE;
  // Before the lock file: a read-only state is one line naming the path, not a failed lock or workerd's traces.
  assertWritableState(dir);
  const lock = fileLock(dir, {
    waitMs: wait.waitMs,
    onWait: (holder) => wait.say(waitLine(wait.waitMs, holder)),
  });
  const started = Date.now();
  const held = await lock.acquire(intent);
  try {
    const local = await openLocalEnv(dir);
    try {
      // The D1 lease as well, inside this Miniflare, so the catalog
      // writer Worker of a running `wrangler dev` (which cannot take the file) takes turns with
      // the tools. The file still orders the tools' own Miniflares (see src/publish/lock.ts).
      // Every tool leases with one token: only the file's holder gets here, so a lease left by a
      // tool killed with -9 is taken over at once (its file was broken as stale), not after 30
      // minutes; a Worker's lease (a random token) is waited for.
      const lease = await sqlLock(d1Query(local.env.BROWSE), {
        token: LOCAL_TOOLS_TOKEN,
        waitMs: Math.max(0, wait.waitMs - (Date.now() - started)),
        onWait: (holder) => wait.say(waitLine(wait.waitMs, holder)),
      }).acquire(intent);
      try {
        const abandoned = [...held.abandoned, ...lease.abandoned];
        // Whatever this command is, it settles what a killed publish left first (publish.ts).
        const settled = await settleInterrupted(
          bindingTarget(local.env.CATALOG),
          d1Target(local.env.BROWSE, local.env.BROWSE_SNAPSHOTS),
          { abandoned },
        );
        for (const line of settledLines(settled)) wait.say(line);
        return await run(
          local,
          taken({
            abandoned: [],
            verify: async () => {
              await held.verify();
              await lease.verify();
            },
            release: async () => {},
          }),
        );
      } finally {
        await lease.release();
      }
    } finally {
      await local.dispose();
    }
  } finally {
    await held.release();
  }
}
