import { invalidRequest } from "./errors.ts";

/** What the Authorization header held. */
export type Credential = { kind: "none" } | { kind: "bearer"; token: string } | { kind: "unusable" };

/**
 * Reads the one Authorization header. The scheme word is case-insensitive (RFC 7235), the token
 * is taken byte for byte. Two headers reach the worker joined by a comma, which no token
 * contains, so a comma means two credentials: 400, never a guess at which one was meant.
 * The query string is never looked at.
 */
export function readCredential(header: string | undefined | null): Credential {
  if (header === undefined || header === null || header.trim() === "") return { kind: "none" };
  if (header.includes(",")) {
    throw invalidRequest("parameter_invalid", "Send exactly one Authorization header.", "Authorization");
  }
  const match = /^\s*([A-Za-z]+) +(\S+)\s*$/.exec(header);
  if (match?.[1]?.toLowerCase() !== "bearer" || !match[2]) return { kind: "unusable" };
  return { kind: "bearer", token: match[2] };
}

/**
 * Where a 401's `docs_url` points: the reference of the server that answered (its own origin +
 * `/docs`), so `npm run dev` links to the local page and a deployment to its own. `DOCS_URL`,
 * when set to an absolute URL, overrides it (docs hosted elsewhere).
 */
export function docsUrlFor(requestUrl: string, override: string | undefined): string {
  if (override && URL.canParse(override)) return override;
  return new URL("/docs", requestUrl).href;
}
