/**
 * Positions in JSON text, for messages that name a line and column: where the first syntax error
 * is (V8's JSON.parse names no position for many), and where the value at a path starts (the
 * importer's problems point into products.json). Nothing here parses values; JSON.parse does.
 */

/** Offset -> 1-based line and column, by binary search over the text's line breaks. */
export class Lines {
  readonly #breaks: number[] = [];

  constructor(text: string) {
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.#breaks.push(i);
  }

  at(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.#breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#breaks[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return { line: lo + 1, column: offset - (lo === 0 ? -1 : this.#breaks[lo - 1]!) };
  }
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
 * One walker over JSON text, strict as JSON.parse: skipping a value checks it, so the same walk
 * that finds a path also finds the first syntax error.
 */
export class JsonText {
  readonly #text: string;
  /** The offset the walker stands at. */
  i: number;

  constructor(text: string, start = 0) {
    this.#text = text;
    this.i = start;
  }

  /** Where the first syntax error in `text` is, and what it is; null for valid (or too deeply nested) JSON. */
  static syntaxError(text: string): { offset: number; message: string } | null {
    const walker = new JsonText(text);
    try {
      walker.skipValue();
      walker.#ws();
      if (walker.i < text.length) walker.#fail("unexpected text after the end of the JSON value");
      return null;
    } catch (error) {
      if (error instanceof JsonSyntax) return { offset: error.offset, message: error.message };
      return null; // too deeply nested to walk: the caller falls back to V8's message
    }
  }

  #fail(message: string): never {
    throw new JsonSyntax(
      this.i,
      this.i >= this.#text.length ? "unexpected end of the file: the JSON is incomplete" : message,
    );
  }

  #ws(): void {
    while (this.i < this.#text.length && " \t\n\r".includes(this.#text[this.i]!)) this.i += 1;
  }

  #string(): void {
    const text = this.#text;
    this.i += 1;
    for (;;) {
      const c = text[this.i];
      if (c === undefined) this.#fail("unterminated string");
      if (c === '"') break;
      if (c === "\\") {
        if ('"\\/bfnrt'.includes(text[this.i + 1] ?? "x")) this.i += 2;
        else if (text[this.i + 1] === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(this.i + 2, this.i + 6))) this.i += 6;
        else this.#fail("invalid escape in a string");
      } else if (c < " ") this.#fail("control character (such as a line break) inside a string");
      else this.i += 1;
    }
    this.i += 1;
  }

  /**
   * Walks the members of the object or array the walker stands on, calling `visit` with each
   * member's key (or index) while the walker stands on its value; `visit` answers true to stop
   * there. Returns whether it stopped (else the walker is past the container).
   */
  #members(visit: (key: string | number) => boolean): boolean {
    const text = this.#text;
    const open = text[this.i];
    const close = open === "{" ? "}" : "]";
    this.i += 1;
    this.#ws();
    if (text[this.i] === close) {
      this.i += 1;
      return false;
    }
    for (let index = 0; ; index += 1) {
      let key: string | number = index;
      if (open === "{") {
        this.#ws();
        if (text[this.i] !== '"') this.#fail("expected a double-quoted property name");
        const start = this.i;
        this.#string();
        key = JSON.parse(text.slice(start, this.i)) as string;
        this.#ws();
        if (text[this.i] !== ":") this.#fail("expected ':' after the property name");
        this.i += 1;
      }
      this.#ws();
      if (visit(key)) return true;
      this.skipValue();
      this.#ws();
      if (text[this.i] === ",") this.i += 1;
      else if (text[this.i] === close) {
        this.i += 1;
        return false;
      } else this.#fail(`expected ',' or '${close}'`);
    }
  }

  /** Moves past the value the walker stands on (after any white space), checking it. */
  skipValue(): void {
    const text = this.#text;
    this.#ws();
    const c = text[this.i];
    if (c === "{" || c === "[") {
      this.#members(() => false);
      return;
    }
    if (c === '"') {
      this.#string();
      return;
    }
    NUMBER.lastIndex = this.i;
    if (NUMBER.test(text)) {
      this.i = NUMBER.lastIndex;
      return;
    }
    for (const literal of ["true", "false", "null"]) {
      if (text.startsWith(literal, this.i)) {
        this.i += literal.length;
        return;
      }
    }
    if (c === "\uFEFF") this.#fail("the file starts with a byte order mark; save it as UTF-8 without one");
    this.#fail(c === undefined ? "" : `unexpected character ${JSON.stringify(c)}`);
  }

  /** Moves to the value at `path` below the current one and returns its offset; stops at the deepest part that exists. */
  descend(path: readonly PropertyKey[]): number {
    for (const part of path) {
      this.#ws();
      const c = this.#text[this.i];
      const start = this.i;
      const container = typeof part === "number" ? c === "[" : typeof part === "string" && c === "{";
      if (!container) return this.i;
      if (!this.#members((key) => key === part)) return start;
    }
    this.#ws();
    return this.i;
  }

  /** Start offsets of the elements of the array the walker stands on (none when it is not an array). */
  elements(): number[] {
    const starts: number[] = [];
    this.#ws();
    if (this.#text[this.i] !== "[") return starts;
    this.#members(() => {
      starts.push(this.i);
      return false;
    });
    return starts;
  }
}
