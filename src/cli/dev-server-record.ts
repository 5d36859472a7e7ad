import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * Where a running `npm run dev` says it serves: a small file in the state directory it serves
 * (`.wrangler/state`, or its `--persist-to DIR`), so `npm run token` on that state finds the
 * server whatever port `--port` or PORT chose, without being told.
 */

/** wrangler's own default state directory (its --persist-to). */
const DEFAULT_STATE_ROOT = ".wrangler/state";

interface DevServerRecord {
  url: string;
  pid: number;
  /** In the default state's record only: the --persist-to DIR the server serves instead. */
  persistTo?: string;
}

export function devServerRecordPath(persistTo: string | undefined): string {
  return join(persistTo ?? DEFAULT_STATE_ROOT, "dev-server.json");
}

/**
 * Records this process as the dev server of the state; the returned function removes the record.
 * A server of another state (--persist-to DIR) also leaves a record in the default state naming
 * DIR, unless a live server holds the default state: so an operator command run without
 * --persist-to finds the running server and its state (issue 42, point 13: `catalog:import
 * --publish --local` published into the default state while the server served DIR).
 */
export function recordDevServer(persistTo: string | undefined, port: number): () => void {
  const url = `http://localhost:${port}`;
  const own = writeRecord(persistTo, { url, pid: process.pid });
  const pointer =
    persistTo !== undefined && recordedDevServerUrl(undefined) === undefined
      ? writeRecord(undefined, { url, pid: process.pid, persistTo: resolve(persistTo) })
      : () => {};
  return () => {
    own();
    pointer();
  };
}

function writeRecord(persistTo: string | undefined, record: DevServerRecord): () => void {
  const path = devServerRecordPath(persistTo);
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(record)}\n`);
  } catch {
    // A state directory that cannot be written to fails loudly elsewhere; the record is a convenience.
    return () => {};
  }
  return () => {
    try {
      if (readDevServerRecord(persistTo)?.pid === process.pid) rmSync(path, { force: true });
    } catch {
      // Already gone.
    }
  };
}

function readDevServerRecord(persistTo: string | undefined): DevServerRecord | undefined {
  try {
    const value = JSON.parse(readFileSync(devServerRecordPath(persistTo), "utf8")) as Partial<DevServerRecord>;
    return typeof value.url === "string" && Number.isInteger(value.pid) ? (value as DevServerRecord) : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The URL of the dev server recorded for this state, while its process lives; else undefined. */
export function recordedDevServerUrl(persistTo: string | undefined): string | undefined {
  const record = readDevServerRecord(persistTo);
  return record && alive(record.pid) ? record.url : undefined;
}

/**
 * The state directory a local command without --persist-to works on: the one the running
 * `npm run dev` serves (its record in the default state names it), else the default state
 * (undefined). With --persist-to, that directory.
 */
export function localStateDir(persistTo: string | undefined): string | undefined {
  if (persistTo !== undefined) return persistTo;
  const record = readDevServerRecord(undefined);
  return record?.persistTo !== undefined && alive(record.pid) ? record.persistTo : undefined;
}
