import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import {
  busyMessage,
  type CatalogLock,
  describeHolder,
  LockBusyError,
  type LockIntent,
  type LockWaitOptions,
  sleep,
} from "./lock.ts";

/**
 * The publish lock of local state (see lock.ts): `catalog-publish.lock` in the persist directory,
 * created exclusively (`O_CREAT|O_EXCL`, which the file system makes atomic), holding its
 * holder's pid, host, intent and a random token. Node only (operator CLIs).
 *
 * A holder that died (a pid on this host that no longer runs; kill -9, a crash) leaves its file
 * behind: the next acquirer breaks it. Breaking is itself guarded by a second exclusive file, and
 * the stale file is removed only if it still holds the dead holder's token, so two waiters that
 * both find it stale cannot remove each other's fresh lock.
 */

interface Holder extends LockIntent {
  token: string;
  pid: number;
  host: string;
  since: string;
}

/** A file created but not yet written (its holder died in between) counts as stale after this. */
const UNWRITTEN_STALE_MS = 10_000;

function read(path: string): Holder | "unwritten" | null {
  try {
    const text = readFileSync(path, "utf8");
    if (text === "") return Date.now() - statSync(path).mtimeMs > UNWRITTEN_STALE_MS ? null : "unwritten";
    return JSON.parse(text) as Holder;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    // Unparsable: written by something else; treat as held and let the operator see the path.
    return "unwritten";
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function create(path: string, content: string): boolean {
  try {
    writeFileSync(path, content, { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** Removes the lock of a dead holder, if it is still that holder's; true when it went. */
function breakStale(path: string, stale: Holder | null): boolean {
  const guard = `${path}.break`;
  if (!create(guard, String(process.pid))) {
    try {
      if (Date.now() - statSync(guard).mtimeMs > UNWRITTEN_STALE_MS) unlinkSync(guard);
    } catch {
      // Gone meanwhile: the next round tries again.
    }
    return false;
  }
  try {
    const now = read(path);
    const same =
      stale === null ? now === null || now === "unwritten" : typeof now === "object" && now?.token === stale.token;
    if (!same) return false;
    try {
      unlinkSync(path);
    } catch {
      // Already gone.
    }
    return true;
  } finally {
    unlinkSync(guard);
  }
}

export const LOCK_FILE = "catalog-publish.lock";

/** The lock of the local state in `dir` (the directory Miniflare persists into). */
export function fileLock(dir: string, opts: LockWaitOptions): CatalogLock {
  const path = join(dir, LOCK_FILE);
  return {
    async acquire(intent) {
      mkdirSync(dir, { recursive: true });
      const mine: Holder = {
        ...intent,
        token: randomUUID(),
        pid: process.pid,
        host: hostname(),
        since: new Date().toISOString(),
      };
      const abandoned: string[] = [];
      const started = Date.now();
      let told = false;
      while (!create(path, JSON.stringify(mine))) {
        const holder = read(path);
        if (holder === null || (holder !== "unwritten" && holder.host === mine.host && !running(holder.pid))) {
          if (
            breakStale(path, holder) &&
            (holder?.action === "publish" || holder?.action === "batch") &&
            holder.version
          )
            abandoned.push(holder.version);
          continue;
        }
        const who =
          holder === "unwritten" ? `a holder whose lock file ${path} is not readable yet` : describeHolder(holder);
        if (Date.now() - started >= opts.waitMs)
          throw new LockBusyError(busyMessage(who, opts.waitMs, ` If no such process runs, delete ${path}.`));
        if (!told) opts.onWait?.(who);
        told = true;
        await sleep(opts.pollMs ?? 200);
      }
      const ours = () => {
        const now = read(path);
        return typeof now === "object" && now?.token === mine.token;
      };
      return {
        abandoned,
        async verify() {
          if (!ours())
            throw new LockBusyError(
              `The publish lock ${path} is no longer this process's (it was deleted or broken); the ` +
                `pointer was not switched.`,
            );
        },
        async release() {
          if (ours()) unlinkSync(path);
        },
      };
    },
  };
}
