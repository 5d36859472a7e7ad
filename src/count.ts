/**
 * A number and its noun, singular for exactly 1: `count(1, "unit")` is `1 unit`, `count(3, "unit")`
 * is `3 units`. Every message and CLI line that counts something says it this way (issue 42,
 * point 18: "1 units", "1 orders"); test/house/plurals.test.ts finds a count written any other way.
 */
export function count(n: number, noun: string, plural = `${noun}s`, shown: string = String(n)): string {
  return `${shown} ${n === 1 ? noun : plural}`;
}
