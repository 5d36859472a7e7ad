/**
 * What must never appear in a response or a log line: the tokens a suite used, their SHA-256
 * hashes (the stored form), the operator secret, and anything shaped like a stack trace.
 */

/** A V8 stack frame (`    at fn (file.ts:12:3)`) or a source position, the marks of a leaked trace. */
const STACK_TRACE = /\n\s+at\s|\bat\s[^\s]+\s\([^)]*:\d+:\d+\)|\.(?:ts|js|mjs):\d+:\d+/;

/** Hex SHA-256, the form token hashes are stored in. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A growing set of secrets, with their hashes, that texts are checked against. */
export class SecretScanner {
  readonly #secrets = new Set<string>();

  /** Adds a token (and its hash) or any other secret. */
  async add(secret: string): Promise<void> {
    this.#secrets.add(secret);
    this.#secrets.add(await sha256Hex(secret));
  }

  /** What in `text` should not be there: a secret, a hash of one, or a stack trace. */
  findings(text: string): string[] {
    const found: string[] = [];
    for (const secret of this.#secrets) if (text.includes(secret)) found.push(`secret ${secret.slice(0, 12)}…`);
    if (STACK_TRACE.test(text)) found.push("stack trace");
    return found;
  }
}
