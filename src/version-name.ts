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
