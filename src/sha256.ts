/**
 * SHA-256 through Web Crypto, the same in workerd and Node 24: the one digest helper for token
 * hashes, ETags, request fingerprints, catalog digests and secret comparison.
 */
const encoder = new TextEncoder();

export async function sha256(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", encoder.encode(text));
}

/** Lower-case hex of the digest, or of its first `bytes` bytes. */
export async function sha256Hex(text: string, bytes = 32): Promise<string> {
  const digest = new Uint8Array(await sha256(text), 0, bytes);
  let out = "";
  for (const b of digest) out += b.toString(16).padStart(2, "0");
  return out;
}
