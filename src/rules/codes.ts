/**
 * A code as the shopper's and the document's are compared: trimmed, NFKC (full-width letters
 * too), upper case. Its own module so pricing reaches it without the document's schema.
 */
export function codeKey(code: string): string {
  return code.trim().normalize("NFKC").toUpperCase();
}
