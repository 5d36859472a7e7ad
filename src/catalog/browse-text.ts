/**
 * Text folding for browse, shared by the index build (Node, at publish) and the reader (the
 * Worker), so a word is cut and compared one way on both sides.
 *
 * - Search words (`q`, and what it is matched against): Unicode NFKD, combining marks dropped,
 *   lower case, then every run of letters and digits is a word. `Café` gives `cafe`,
 *   `NWT-TEE-M` gives `nwt`, `tee`, `m`.
 * - Filter values (`vendor`, `product_type`, `tag`, `option.<name>`): exact but case-insensitive,
 *   so the key is the value in NFC and lower case (accents kept: `Café` is not `Cafe` here).
 */

const MARKS = /\p{M}+/gu;
const WORD = /[\p{L}\p{N}]+/gu;

/** Lower case without accents (`Élan Vital` -> `elan vital`): the title sort key and the base of words. */
export function foldText(text: string): string {
  // Lower case on both sides of NFKD: `İ` lowers into a mark, `ℌ` decomposes into an upper-case `H`.
  return text.toLowerCase().normalize("NFKD").replace(MARKS, "").toLowerCase();
}

/** The search words of a text, in order (repeats kept). */
export function searchWords(text: string): string[] {
  return foldText(text).match(WORD) ?? [];
}

/** The key a filter value is matched by: case-insensitive, otherwise exact. */
export function valueKey(value: string): string {
  return value.normalize("NFC").toLowerCase();
}

/** Code point order (the order SQLite's BINARY collation gives UTF-8 text), for ties by value. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(i) ?? 0;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}
