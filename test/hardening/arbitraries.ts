import fc from "fast-check";

/**
 * fast-check arbitraries for hostile HTTP input: odd Unicode, NUL, very long values, numbers at
 * the edges of JSON and duplicate keys. Shared by the fuzz, security and bad-input suites.
 */

/** Strings people and attackers actually send: empty, Unicode of every plane, NUL, control characters, long. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "a\u0000b",
    "\u202e",
    "\ud83d\ude00",
    "\ud800",
    "\ufeff",
    "é",
    "e\u0301",
    "%00",
    "%",
    "%zz",
    "..",
    "../..",
    "\\",
    "'\"",
    "<script>",
    "null",
    "__proto__",
    "constructor",
    "prototype",
  ),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ maxLength: 20 }).map((s) => s.repeat(200)),
  fc.integer({ min: 256, max: 20_000 }).map((n) => "x".repeat(n)),
);

/** JSON number literals at the edges, written as raw text so JSON.parse meets them as sent. */
export const edgeNumberLiteral: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "-0",
    "0",
    "1",
    "999",
    "1000",
    "-1",
    "1.5",
    "1.0",
    "1e0",
    "1e2",
    "1e309",
    "-1e309",
    "9007199254740993",
    "9007199254740992",
    "4.9e-324",
    "0.1",
    "99999999999999999999999",
    "1E3",
  ),
  fc
    .double()
    .filter(Number.isFinite)
    .map((d) => JSON.stringify(d)),
  fc.integer().map(String),
);

/** A raw JSON value: edge numbers, odd strings, and the other JSON types. */
export const jsonValueLiteral: fc.Arbitrary<string> = fc.oneof(
  edgeNumberLiteral,
  oddString.map((s) => JSON.stringify(s)),
  fc.constantFrom(
    "null",
    "true",
    "false",
    "[]",
    "{}",
    '{"__proto__":{"polluted":true}}',
    "[1,2,3]",
    '"1"',
    '"44102938475602"',
  ),
);

/**
 * A raw JSON object body built from `[key, value]` pairs, so keys may repeat
 * (`{"quantity":1,"quantity":5}`), keys may be `__proto__`/`constructor`, and values may be
 * any edge literal.
 */
export function rawObjectBody(keys: fc.Arbitrary<string>, values: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(keys, values), { maxLength: 6 })
    .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`);
}

/** Any body at all: hostile objects, other JSON, malformed JSON, trailing garbage, empty. */
export function anyBody(validPairs: fc.Arbitrary<[string, string]>): fc.Arbitrary<string | undefined> {
  const key = fc.oneof(
    fc.constantFrom(
      "variant_id",
      "quantity",
      "handle",
      "variant_title",
      "label",
      "__proto__",
      "constructor",
      "prototype",
    ),
    oddString,
  );
  const object = fc
    .array(fc.oneof(validPairs, fc.tuple(key, jsonValueLiteral)), { maxLength: 6 })
    .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`);
  return fc.oneof(
    { weight: 6, arbitrary: object },
    { weight: 1, arbitrary: jsonValueLiteral },
    { weight: 1, arbitrary: object.map((b) => `${b}${"}"}`) },
    { weight: 1, arbitrary: fc.tuple(object, oddString).map(([b, junk]) => `${b}${junk}`) },
    { weight: 1, arbitrary: oddString },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** Header values must be ByteStrings without CR, LF or NUL; anything else fetch refuses to send. */
export function headerSafe(value: string): string {
  return [...value].map((ch) => (ch.charCodeAt(0) > 0xff || /[\r\n\0]/.test(ch) ? "?" : ch)).join("");
}

/** Methods: the ones the API uses, the ones it does not, and a lower-case one fetch leaves alone. */
export const method: fc.Arbitrary<string> = fc.constantFrom(
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
  "patch",
  "PROPFIND",
  "PURGE",
);

/** Lone surrogates made whole (U+FFFD), so `encodeURIComponent` can take any generated string. */
export function wellFormed(value: string): string {
  return value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

/** A path segment as a client might write it: percent-encoded, raw, or deliberately broken. */
export const pathSegment: fc.Arbitrary<string> = fc.oneof(
  oddString.map((s) => encodeURIComponent(wellFormed(s))),
  fc.constantFrom(
    "%",
    "%zz",
    "%00",
    "%C0%AF",
    "%2F",
    "%2e%2e",
    ".",
    "..",
    "",
    ";x=1",
    "essential-crew-tee-black",
    "frontpage",
    "cl_abc",
    "tok_abc",
  ),
  fc.stringMatching(/^[a-z0-9]{1,12}(-[a-z0-9]{1,12}){0,3}$/),
);
