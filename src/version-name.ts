/**
 * A fresh name for a published version (a catalog's or the rules document's): its UTC time to the
 * second plus a random suffix, `20261124T204000Z-a1b2c3`, so names sort by time and two publishes
 * in one second still differ.
 */
export function newVersionName(now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  const random = [...crypto.getRandomValues(new Uint8Array(3))].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${stamp}-${random}`;
}

/** What a version name may be (`--version NAME`, and every version a path or body names): 1-64 of A-Z a-z 0-9 _ -. */
export const VERSION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
