import type { Context, MiddlewareHandler } from "hono";
import type * as z from "zod/mini";
import { ApiError, ClientAbort, invalidRequest } from "./errors.ts";

/** Request bodies above this many bytes answer 413, whether or not Content-Length says so. */
export const MAX_BODY_BYTES = 16 * 1024;

/** A field's schema at an issue's path, through objects and the optional/nullable/default/pipe wrappers. */
function fieldAt(schema: z.ZodMiniType | undefined, path: readonly PropertyKey[]): z.ZodMiniType | undefined {
  let field: z.ZodMiniType | undefined = schema;
  for (let i = 0; field && i <= path.length; ) {
    const def = field._zod.def as {
      type: string;
      innerType?: z.ZodMiniType;
      out?: z.ZodMiniType;
      shape?: Record<string, z.ZodMiniType>;
      element?: z.ZodMiniType;
    };
    if (
      def.innerType &&
      ["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"].includes(def.type)
    )
      field = def.innerType;
    else if (def.type === "pipe" && def.out) field = def.out;
    else if (i === path.length) break;
    // Own keys only: `?constructor=` must not find Object.prototype.constructor (a 500 once).
    else if (def.type === "object" && def.shape) {
      const key = String(path[i++]);
      field = Object.hasOwn(def.shape, key) ? def.shape[key] : undefined;
    } else if (def.type === "array" && def.element) {
      i++; // an index (`changes.0.set`): every item has the element's schema
      field = def.element;
    } else return undefined;
  }
  return field;
}

/** A zod default message, as opposed to one a schema wrote in the house style. */
const ZOD_WORDING = /^(Invalid|Too (big|small)|Expected|Unrecognized)\b/;

/**
 * The bounds a field's checks add up to (a number's value, a string's length) and whether they
 * make it an integer: what classic zod's `minValue`/`maxValue`/`isInt` and `minLength`/`maxLength`
 * getters told, which zod/mini schemas do not have. A format schema (`z.int()`) is its own first check.
 */
function bounds(field: z.ZodMiniType | undefined): { low: number; high: number; isInt: boolean } {
  const found = { low: Number.NEGATIVE_INFINITY, high: Number.POSITIVE_INFINITY, isInt: false };
  if (!field) return found;
  const own = field._zod.traits.has("$ZodCheck") ? [field as unknown as z.core.$ZodCheck] : [];
  for (const check of [...own, ...(field._zod.def.checks ?? [])]) {
    const def = check._zod.def as {
      check: string;
      value?: unknown;
      minimum?: number;
      maximum?: number;
      length?: number;
      format?: string;
    };
    const value = typeof def.value === "number" ? def.value : undefined;
    if (def.check === "greater_than" && value !== undefined) found.low = Math.max(found.low, value);
    else if (def.check === "less_than" && value !== undefined) found.high = Math.min(found.high, value);
    else if (def.check === "min_length" && def.minimum !== undefined) found.low = Math.max(found.low, def.minimum);
    else if (def.check === "max_length" && def.maximum !== undefined) found.high = Math.min(found.high, def.maximum);
    else if (def.check === "length_equals" && def.length !== undefined) found.low = found.high = def.length;
    else if (def.check === "number_format" && def.format?.includes("int")) found.isInt = true;
    else if (def.check === "multiple_of" && Number.isSafeInteger(value)) found.isInt = true;
  }
  return found;
}

/** The house-style words a string's pattern check gives (`an absolute https URL`), if it has one. */
function formatWords(field: z.ZodMiniType | undefined): string | undefined {
  for (const check of field?._zod.def.checks ?? []) {
    const def = check._zod.def as { check: string; error?: (issue?: unknown) => unknown };
    const words = def.check === "string_format" ? def.error?.() : undefined;
    if (typeof words === "string" && !ZOD_WORDING.test(words)) return words;
  }
  return undefined;
}

/**
 * What a field must be, in the words of the hand-written parameter messages ("an integer from 1
 * to 250", "true or false"), from the field's schema; never zod's own wording ("Too big: expected
 * number to be <=999").
 */
function expectation(field: z.ZodMiniType | undefined, issue: z.core.$ZodIssue): string {
  if (issue.code === "custom" || (issue.message && !ZOD_WORDING.test(issue.message))) return issue.message;
  const def = field?._zod.def as { type?: string; entries?: Record<string, unknown> } | undefined;
  const range = (low: number | null | undefined, high: number | null | undefined, unit = "") => {
    const ok = (n: number | null | undefined): n is number =>
      typeof n === "number" && Number.isFinite(n) && Math.abs(n) < Number.MAX_SAFE_INTEGER;
    if (ok(low) && ok(high)) return ` from ${low} to ${high}${unit}`;
    if (ok(low)) return ` of at least ${low}${unit}`;
    if (ok(high)) return ` of at most ${high}${unit}`;
    return "";
  };
  const { low, high, isInt } = bounds(field);
  switch (def?.type) {
    case "number":
      return `${isInt ? "an integer" : "a number"}${range(low, high)}`;
    case "string": {
      const length = range(low, high, " characters")
        .replace(/^ from/, "")
        .replace(/^ of /, " ");
      const format = formatWords(field);
      if (format) return issue.code === "invalid_format" ? format : `${format}${length ? `, of${length}` : ""}`;
      return issue.code === "invalid_format"
        ? "text in the format the reference gives"
        : `text${length ? ` of${length}` : ""}`;
    }
    case "boolean":
      return "true or false";
    case "enum":
      return `one of ${Object.values(def.entries ?? {}).join(", ")}`;
    case "array":
      return "a list";
    case "object":
      return "an object";
    default:
      return "a value of the type the reference gives";
  }
}

/**
 * Turns the first zod issue into the contract's 400: unknown keys first (`parameter_unknown`),
 * then absent required values (`parameter_missing`), then anything else (`parameter_invalid`),
 * worded like the hand-written parameter messages (`Invalid quantity: an integer from 1 to 999.`).
 */
export function toValidationError(error: z.core.$ZodError, where: "query" | "body", schema?: z.ZodMiniType): ApiError {
  const issues = error.issues;
  const unknown = issues.find((i) => i.code === "unrecognized_keys");
  if (unknown && unknown.code === "unrecognized_keys") {
    const param = [...unknown.path.map(String), unknown.keys[0] ?? ""].filter(Boolean).join(".");
    const noun = where === "query" ? "query parameter" : "field";
    return invalidRequest("parameter_unknown", `Unknown ${noun}: ${param}.`, param);
  }
  const first = issues[0];
  if (!first) return invalidRequest("parameter_invalid", "The request is invalid.");
  const param = first.path.map(String).join(".");
  if (first.code === "invalid_type" && first.input === undefined && param) {
    return invalidRequest("parameter_missing", `Missing required parameter: ${param}.`, param);
  }
  if (!param) {
    const message = where === "body" ? "The request body must be a JSON object." : first.message;
    return invalidRequest("parameter_invalid", message);
  }
  // `null` where a value was expected reads as absent to many clients: say it was sent (issue 42).
  const got = first.code === "invalid_type" && first.input === null ? " (got null)" : "";
  return invalidRequest(
    "parameter_invalid",
    `Invalid ${param}: ${expectation(fieldAt(schema, first.path), first)}${got}.`,
    param,
  );
}

/**
 * Parses the query string against a strict schema. A parameter given twice is invalid: one
 * meaning per URL keeps cache keys canonical.
 */
export function parseQuery<S extends z.ZodMiniType>(c: Context, schema: S): z.infer<S> {
  return parseQueryPairs(queryParams(c.req.url), schema);
}

/** `parseQuery` over pairs already read (a catalog read drops its tracking parameters first). */
export function parseQueryPairs<S extends z.ZodMiniType>(pairs: Iterable<[string, string]>, schema: S): z.infer<S> {
  // No prototype: `?__proto__=x` must be an unknown parameter, not a prototype assignment.
  const flat: Record<string, string> = Object.create(null);
  for (const [key, value] of pairs) {
    if (key === "") throw invalidRequest("parameter_unknown", "A query parameter has no name.");
    if (key in flat) throw invalidRequest("parameter_invalid", `Query parameter ${key} is given more than once.`, key);
    flat[key] = value;
  }
  const result = schema.safeParse(flat, { reportInput: true });
  if (!result.success) throw toValidationError(result.error, "query", schema);
  return result.data;
}

/** A `%` not followed by two hex digits: URLSearchParams would keep it as a literal `%`. */
const BROKEN_PERCENT = /%(?![0-9A-Fa-f]{2})/;

/**
 * The query of an absolute URL, parsed once and without parsing the rest (`new URL` costs more).
 * Broken percent-encoding (`%zz`, `%`, or bytes that are not UTF-8 such as `%ff`) is a 400, never
 * read as a literal or a replacement character: the client meant something else.
 */
export function queryParams(url: string): URLSearchParams {
  const start = url.indexOf("?");
  if (start === -1) return new URLSearchParams();
  const end = url.indexOf("#", start);
  const query = end === -1 ? url.slice(start + 1) : url.slice(start + 1, end);
  if (query.includes("%")) {
    if (BROKEN_PERCENT.test(query))
      throw invalidRequest(
        "parameter_invalid",
        "The query string has a % that does not start a percent-encoded byte (%XX); write a literal % as %25.",
      );
    try {
      for (const piece of query.split(/[&=]/)) decodeURIComponent(piece);
    } catch {
      throw invalidRequest("parameter_invalid", "The query string's percent-encoded bytes are not UTF-8.");
    }
  }
  return new URLSearchParams(query);
}

function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const mediaType = value.split(";")[0]?.trim().toLowerCase();
  return mediaType === "application/json";
}

/**
 * Reads at most `limit` bytes of the body; one byte more is a 413, without reading the rest. A
 * body that fails while being read (the client hung up mid-body) is a ClientAbort, not a bug.
 */
async function readCapped(request: Request, limit: number): Promise<Uint8Array> {
  try {
    return await readCappedBody(request, limit);
  } catch (error) {
    throw error instanceof ApiError ? error : new ClientAbort();
  }
}

async function readCappedBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw bodyTooLarge(limit);
  if (!request.body) return new Uint8Array();
  // An HTTP body with a declared length is framed by it, so it is read at once, as cheaply as the
  // runtime allows (checked again, for a Request built in code with a header that lies); only a
  // body of unknown length is read in pieces.
  if (declared !== null && /^\d+$/.test(declared)) {
    const whole = new Uint8Array(await request.arrayBuffer());
    if (whole.byteLength > limit) throw bodyTooLarge(limit);
    return whole;
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw bodyTooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function bodyTooLarge(limit: number): ApiError {
  return new ApiError(413, {
    type: "invalid_request_error",
    code: "body_too_large",
    message: `The request body is larger than ${limit / 1024} KiB.`,
  });
}

/**
 * The dotted path of the first key an object of `json` (already valid JSON) repeats, if any.
 * JSON.parse keeps the last of `{"quantity":1,"quantity":999}` silently; two values for one
 * field mean a confused client, so it is refused like a query parameter given twice.
 */
export function duplicateKey(json: string): string | undefined {
  // One frame per open object (its keys so far, the one being read) or array (null).
  const frames: ({ keys: Set<string>; current?: string } | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < json.length; i++) {
    const ch = json[i];
    if (ch === "{") {
      frames.push({ keys: new Set() });
      expectKey = true;
    } else if (ch === "[") {
      frames.push(null);
    } else if (ch === "}" || ch === "]") {
      frames.pop();
      expectKey = false;
    } else if (ch === ",") {
      expectKey = frames.at(-1) != null;
    } else if (ch === '"') {
      let end = i + 1;
      while (json[end] !== '"') end += json[end] === "\\" ? 2 : 1;
      const frame = frames.at(-1);
      if (expectKey && frame) {
        const key = JSON.parse(json.slice(i, end + 1)) as string;
        if (frame.keys.has(key))
          return [...frames.slice(0, -1).flatMap((f) => (f?.current !== undefined ? [f.current] : [])), key].join(".");
        frame.keys.add(key);
        frame.current = key;
        expectKey = false;
      }
      i = end;
    }
  }
  return undefined;
}

/**
 * Reads a JSON body and validates it against a strict schema, in the order the contract lists
 * the failures: media type (415), size (413), syntax (400 invalid_json), shape (400).
 */
export async function parseJsonBody<S extends z.ZodMiniType>(
  c: Context,
  schema: S,
  maxBytes = MAX_BODY_BYTES,
): Promise<z.infer<S>> {
  if (!isJsonContentType(c.req.header("content-type"))) {
    throw new ApiError(415, {
      type: "invalid_request_error",
      code: "unsupported_media_type",
      message: "Send the body as JSON with Content-Type: application/json.",
    });
  }
  const bytes = await readCapped(c.req.raw, maxBytes);
  let value: unknown;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    value = JSON.parse(text);
  } catch {
    throw invalidRequest("invalid_json", "The request body is not valid JSON.");
  }
  const duplicate = duplicateKey(text);
  if (duplicate !== undefined)
    throw invalidRequest("parameter_invalid", `Field ${duplicate} is given more than once.`, duplicate);
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw toValidationError(result.error, "body", schema);
  return result.data;
}

/**
 * The raw body as UTF-8 text, for a signature over its exact bytes (a webhook): 415 without a JSON
 * Content-Type, 413 over `limit` bytes, 400 `invalid_json` for bytes that are not UTF-8.
 */
export async function readJsonText(c: Context, limit: number): Promise<string> {
  if (!isJsonContentType(c.req.header("content-type"))) {
    throw new ApiError(415, {
      type: "invalid_request_error",
      code: "unsupported_media_type",
      message: "Send the body as JSON with Content-Type: application/json.",
    });
  }
  const bytes = await readCapped(c.req.raw, limit);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw invalidRequest("invalid_json", "The request body is not valid UTF-8 JSON.");
  }
}

/** The query a client sends for a schema: its keys, each a string. This is what `hc` offers. */
export type QueryInput<S extends z.ZodMiniType> = { [K in keyof z.input<S>]?: string };

/**
 * What a validating middleware declares to Hono, and through the app type to `hc`: the input a
 * client sends and the parsed value the handler reads with `c.req.valid(target)`.
 */
export type Validated<T extends "query" | "json", In, Out> = {
  in: T extends "query" ? { query?: In } : { [K in T]: In };
  out: { [K in T]: Out };
};

/** The validators' Env, as Hono's own validator leaves it, so the middleware fits every app. */
// biome-ignore lint/suspicious/noExplicitAny: an Env any app's handlers accept.
type AnyEnv = any;

/**
 * `parseQuery` as middleware, so the schema types the route for `hc`. Hono's own `validator`
 * is not used because its JSON target reads the body unbounded and answers outside the envelope.
 */
export function validQuery<S extends z.ZodMiniType>(
  schema: S,
): MiddlewareHandler<AnyEnv, string, Validated<"query", QueryInput<S>, z.output<S>>> {
  return async (c, next) => {
    c.req.addValidatedData("query", parseQuery(c, schema) as object);
    await next();
  };
}

/** `parseJsonBody` as middleware (415, 413, invalid_json, then the strict schema). */
export function validJson<S extends z.ZodMiniType>(
  schema: S,
  maxBytes = MAX_BODY_BYTES,
): MiddlewareHandler<AnyEnv, string, Validated<"json", z.input<S>, z.output<S>>> {
  return async (c, next) => {
    c.req.addValidatedData("json", (await parseJsonBody(c, schema, maxBytes)) as object);
    await next();
  };
}
