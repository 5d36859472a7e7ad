import { readFileSync } from "node:fs";
import { InputError } from "./args.ts";

/** 1-based line and column of a character offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  return { line: before.split("\n").length, column: before.length - before.lastIndexOf("\n") };
}

class JsonSyntax extends Error {
  readonly offset: number;
  constructor(offset: number, message: string) {
    super(message);
    this.offset = offset;
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Where the first JSON syntax error in `text` is, and what it is. V8's JSON.parse names no
 * position for many errors ("Unexpected token '}', ... is not valid JSON"), so after it fails,
 * this small scanner walks the text once more to find the spot.
 */
export function findJsonSyntaxError(text: string): { offset: number; message: string } | null {
  let i = 0;
  const fail = (message: string): never => {
    throw new JsonSyntax(i, i >= text.length ? "unexpected end of the file: the JSON is incomplete" : message);
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i += 1;
  };
  const string = () => {
    i += 1;
    for (;;) {
      const c = text[i];
      if (c === undefined) fail("unterminated string");
      if (c === '"') break;
      if (c === "\\") {
        if ('"\\/bfnrt'.includes(text[i + 1] ?? "x")) i += 2;
        else if (text[i + 1] === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
        else fail("invalid escape in a string");
      } else if (c! < " ") fail("control character (such as a line break) inside a string");
      else i += 1;
    }
    i += 1;
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      i += 1;
      space();
      if (text[i] === close) {
        i += 1;
        return;
      }
      for (;;) {
        if (c === "{") {
          space();
          if (text[i] !== '"') fail("expected a double-quoted property name");
          string();
          space();
          if (text[i] !== ":") fail("expected ':' after the property name");
          i += 1;
        }
        value();
        space();
        if (text[i] === ",") i += 1;
        else if (text[i] === close) {
          i += 1;
          return;
        } else fail(`expected ',' or '${close}'`);
      }
    }
    if (c === '"') return string();
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) {
      i = NUMBER.lastIndex;
      return;
    }
    for (const literal of ["true", "false", "null"]) {
      if (text.startsWith(literal, i)) {
        i += literal.length;
        return;
      }
    }
    if (c === "\uFEFF") fail("the file starts with a byte order mark; save it as UTF-8 without one");
    fail(c === undefined ? "" : `unexpected character ${JSON.stringify(c)}`);
  };
  try {
    value();
    space();
    if (i < text.length) fail("unexpected text after the end of the JSON value");
    return null;
  } catch (error) {
    if (error instanceof JsonSyntax) return { offset: error.offset, message: error.message };
    return null; // too deeply nested to walk: the caller falls back to V8's message
  }
}

/** Reads and parses a JSON file; a missing or broken file is an {@link InputError} naming the file, line and column. */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new InputError(code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory, not a JSON file" : `cannot be read (${code ?? "error"})`, { file });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const found = findJsonSyntaxError(text);
    if (found) throw new InputError(`invalid JSON: ${found.message}`, { file, ...lineAndColumn(text, found.offset) });
    const message = error instanceof Error ? error.message : String(error);
    const at = /at position (\d+)/.exec(message);
    throw new InputError(`invalid JSON: ${message.replace(/ in JSON at position.*$/s, "")}`, { file, ...(at ? lineAndColumn(text, Number(at[1])) : {}) });
  }
}
