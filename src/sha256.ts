/**
 * SHA-256 through Web Crypto, the same in workerd and Node 24: the one digest helper for token
 * hashes, ETags, request fingerprints, catalog digests and secret comparison.
 */
const encoder = new TextEncoder();

export async function sha256(text: string | Uint8Array): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", typeof text === "string" ? encoder.encode(text) : text);
}

/** Lower-case hex of the digest (of a text's UTF-8, or of bytes as they are), or of its first `bytes` bytes. */
export async function sha256Hex(text: string | Uint8Array, bytes = 32): Promise<string> {
  const digest = new Uint8Array(await sha256(text), 0, bytes);
  let out = "";
  for (const b of digest) out += b.toString(16).padStart(2, "0");
  return out;
}
