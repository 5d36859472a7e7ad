import { closeSync, openSync, readSync } from "node:fs";
import { JsonText } from "../publish/json-text.ts";

/** Where in a file: 1-based line and column (UTF-16 code units, as an editor and json-file.ts count them). */
export interface FilePosition {
  line: number;
  column: number;
}

/** A syntax error in a JSON file read as a stream, at `position`. */
export class JsonStreamError extends Error {
  readonly position: FilePosition;
  constructor(message: string, position: FilePosition) {
    super(message);
    this.name = "JsonStreamError";
    this.position = position;
  }
}

/** One part of a JSON object read as a stream: a field, or one element of the array field streamed. */
export type JsonPart =
  | { kind: "field"; key: string; value: unknown }
  /** A streamed array begins: its elements follow. */
  | { kind: "array"; key: string }
  | { kind: "element"; key: string; value: unknown };

const CHUNK = 16 << 20;
const WS = new Uint8Array(256);
for (const c of " \t\n\r") WS[c.charCodeAt(0)] = 1;
const [QUOTE, BACKSLASH, COMMA, COLON, LBRACE, RBRACE, LBRACKET, RBRACKET, NEWLINE] = [...'"\\,:{}[]\n'].map((c) =>
  c.charCodeAt(0),
) as [number, number, number, number, number, number, number, number, number];

/**
 * Reads a file holding one JSON object a field at a time, and the arrays of the fields named in
 * `streamed` an element at a time, never holding the whole text: a 1.5 GB catalog is past V8's
 * longest string (~512 MiB). The bytes are scanned for where each value ends (strings, brackets);
 * each value's text is then parsed by JSON.parse, so the result is JSON.parse's, value by value,
 * and a syntax error names its line and column as json-file.ts would.
 */
export function* readJsonObject(file: string, streamed: ReadonlySet<string>, chunkBytes = CHUNK): Generator<JsonPart> {
  const reader = new ByteReader(file, chunkBytes);
  try {
    yield* new ObjectScanner(reader, streamed).parts();
  } finally {
    reader.close();
  }
}

/** A file's bytes through a window that grows while a value is being scanned, with line and column bookkeeping. */
class ByteReader {
  readonly #fd: number;
  /** The window: bytes from file offset `base`. */
  buf: Buffer = Buffer.alloc(0);
  base = 0;
  #eof = false;
  /** Lines and columns: the line of `counted` (a file offset up to which they were counted) and the UTF-16 units since its last newline. */
  #counted = 0;
  #line = 1;
  #units = 0;

  readonly #chunk: number;

  constructor(file: string, chunkBytes: number) {
    this.#fd = openSync(file, "r");
    this.#chunk = chunkBytes;
  }

  close(): void {
    closeSync(this.#fd);
  }

  /** Makes byte `at` (a file offset) readable, keeping bytes from `keep` on; false at the end of the file. */
  has(at: number, keep: number): boolean {
    if (at < this.base + this.buf.length) return true;
    if (this.#eof) return false;
    this.#count(keep);
    const kept = this.buf.subarray(keep - this.base);
    const next = Buffer.allocUnsafe(Math.max(this.#chunk, kept.length * 2));
    kept.copy(next);
    let filled = kept.length;
    while (filled < next.length) {
      const n = readSync(this.#fd, next, filled, next.length - filled, null);
      if (n === 0) {
        this.#eof = true;
        break;
      }
      filled += n;
    }
    this.buf = next.subarray(0, filled);
    this.base = keep;
    return at < this.base + this.buf.length;
  }

  byte(at: number): number {
    return this.buf[at - this.base] as number;
  }

  text(from: number, to: number): string {
    return this.buf.toString("utf8", from - this.base, to - this.base);
  }

  /** Counts lines and UTF-16 units up to file offset `to` (never backwards). */
  #count(to: number): void {
    const buf = this.buf;
    for (let i = this.#counted - this.base; i < to - this.base; i++) {
      const b = buf[i] as number;
      if (b === NEWLINE) {
        this.#line++;
        this.#units = 0;
      } else if ((b & 0xc0) !== 0x80) this.#units += b >= 0xf0 ? 2 : 1;
    }
    this.#counted = Math.max(this.#counted, to);
  }

  /** The line and column of file offset `at` (at or after the last one asked or kept). */
  position(at: number): FilePosition {
    this.#count(at);
    return { line: this.#line, column: this.#units + 1 };
  }
}

class ObjectScanner {
  readonly #r: ByteReader;
  readonly #streamed: ReadonlySet<string>;
  readonly #seen = new Set<string>();
  #i = 0;

  constructor(reader: ByteReader, streamed: ReadonlySet<string>) {
    this.#r = reader;
    this.#streamed = streamed;
  }

  #fail(message: string, at = this.#i): never {
    const end = !this.#r.has(at, at);
    throw new JsonStreamError(
      end ? "unexpected end of the file: the JSON is incomplete" : message,
      this.#r.position(Math.min(at, this.#r.base + this.#r.buf.length)),
    );
  }

  /** Skips white space; the next byte, or -1 at the end of the file. */
  #peek(): number {
    const r = this.#r;
    for (;;) {
      if (!r.has(this.#i, this.#i)) return -1;
      const b = r.byte(this.#i);
      if (!WS[b]) return b;
      this.#i++;
    }
  }

  #expect(byte: number, message: string): void {
    if (this.#peek() !== byte) this.#fail(message);
    this.#i++;
  }

  /** Where the value starting at `start` ends (exclusive): past its closing quote or bracket, or its last literal character. */
  #end(start: number): number {
    const r = this.#r;
    let i = start;
    const first = r.byte(i);
    if (first !== QUOTE && first !== LBRACE && first !== LBRACKET) {
      // A number or literal: up to the next delimiter; JSON.parse checks it.
      while (r.has(i, start)) {
        const b = r.byte(i);
        if (WS[b] || b === COMMA || b === RBRACE || b === RBRACKET || b === COLON) break;
        i++;
      }
      return i;
    }
    let depth = 0;
    let inString = false;
    for (;;) {
      if (!r.has(i, start)) return i; // incomplete: JSON.parse of the text so far names the fault
      const b = r.byte(i++);
      if (inString) {
        if (b === BACKSLASH) i++;
        else if (b === QUOTE) {
          inString = false;
          if (depth === 0) return i;
        }
      } else if (b === QUOTE) inString = true;
      else if (b === LBRACE || b === LBRACKET) depth++;
      else if (b === RBRACE || b === RBRACKET) {
        depth--;
        if (depth <= 0) return i;
      }
    }
  }

  /** The value at the current offset, parsed; a fault in it names its own line and column. */
  #value(): unknown {
    if (this.#peek() === -1) this.#fail("");
    const start = this.#i;
    const end = this.#end(start);
    if (end === start) {
      this.#r.has(start + 3, start);
      const c = String.fromCodePoint(this.#r.text(start, start + 4).codePointAt(0) ?? 0);
      this.#fail(`unexpected character ${JSON.stringify(c)}`);
    }
    const text = this.#r.text(start, end);
    this.#i = end;
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      const found = JsonText.syntaxError(text);
      if (!found) throw error;
      // The fault's offset in this value's text, from the value's own line and column.
      const at = this.#r.position(start);
      const before = text.slice(0, found.offset);
      const newline = before.lastIndexOf("\n");
      const line = at.line + (before.match(/\n/g)?.length ?? 0);
      const column = newline === -1 ? at.column + found.offset : found.offset - newline;
      if (found.offset >= text.length && !this.#r.has(end, start)) this.#fail("", end);
      throw new JsonStreamError(found.message, { line, column });
    }
  }

  *parts(): Generator<JsonPart> {
    this.#expect(LBRACE, "expected a JSON object");
    if (this.#peek() === RBRACE) this.#i++;
    else
      for (;;) {
        if (this.#peek() !== QUOTE) this.#fail("expected a field name in double quotes");
        const key = this.#value() as string;
        this.#expect(COLON, "expected ':' after the field name");
        if (this.#streamed.has(key) && this.#peek() === LBRACKET) {
          // JSON.parse keeps the last of two same-named fields; a stream has passed on the first.
          if (this.#seen.has(key)) this.#fail(`"${key}" is given twice`);
          this.#seen.add(key);
          yield { kind: "array", key };
          this.#i++;
          if (this.#peek() === RBRACKET) this.#i++;
          else
            for (;;) {
              yield { kind: "element", key, value: this.#value() };
              const next = this.#peek();
              this.#i++;
              if (next === RBRACKET) break;
              if (next !== COMMA) this.#fail("expected ',' or ']' after an array element", this.#i - 1);
            }
        } else yield { kind: "field", key, value: this.#value() };
        const next = this.#peek();
        this.#i++;
        if (next === RBRACE) break;
        if (next !== COMMA) this.#fail("expected ',' or '}' after an object member", this.#i - 1);
      }
    if (this.#peek() !== -1) this.#fail("unexpected text after the end of the JSON value");
  }
}
