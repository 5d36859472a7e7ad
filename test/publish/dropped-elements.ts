/**
 * The elements the description sanitiser drops together with their content, written out here
 * for the tests' oracles rather than imported from src/publish/sanitize.ts, so an oracle never
 * checks the implementation against itself.
 */
export const DROPPED = [
  "script",
  "style",
  "textarea",
  "option",
  "select",
  "noscript",
  "iframe",
  "frame",
  "object",
  "embed",
  "template",
  "svg",
  "math",
  "title",
  "head",
];
