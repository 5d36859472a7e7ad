import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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
}

export function devServerRecordPath(persistTo: string | undefined): string {
  return join(persistTo ?? DEFAULT_STATE_ROOT, "dev-server.json");
}

/** Records this process as the dev server of the state; the returned function removes the record. */
export function recordDevServer(persistTo: string | undefined, port: number): () => void {
  const path = devServerRecordPath(persistTo);
  const record: DevServerRecord = { url: `http://localhost:${port}`, pid: process.pid };
  try {
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
