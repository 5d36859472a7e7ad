/**
 * What the catalog writer Worker bundles instead of `postcss`:
 * sanitize-html calls postcss only to parse `style` attributes, which the sanitiser never allows
 * (src/publish/sanitize.ts), so this is never called; if it were, the batch fails loudly rather
 * than keeping an unparsed style. postcss and source-map-js are about 28 KB gzip of the writer.
 */
export function parse(): never {
  throw new Error("The catalog writer does not parse style attributes (postcss is not bundled).");
}
