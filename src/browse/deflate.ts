/**
 * deflate-raw both ways with the runtime's CompressionStream and DecompressionStream (workerd and
 * Node alike, so a snapshot is written by either and read by the engine): no dependency.
 */

/** `pieces` through `stream`, as one buffer: of exactly `size` bytes when given (else refused), or as long as it comes out. */
async function transform(
  stream: CompressionStream | DecompressionStream,
  pieces: readonly Uint8Array[],
  size?: number,
): Promise<Uint8Array> {
  const writer = stream.writable.getWriter();
  const written = (async () => {
    for (const piece of pieces) await writer.write(piece);
    await writer.close();
  })();
  // A damaged stream fails the reads below; the writes then fail or wait, unobserved.
  written.catch(() => {});
  const outs: Uint8Array[] = [];
  let total = 0;
  const into = size === undefined ? null : new Uint8Array(size);
  const reader = stream.readable.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (into) {
      if (total + value.byteLength > into.byteLength) throw new Error("deflated part out of range");
      into.set(value, total);
    } else outs.push(value);
    total += value.byteLength;
  }
  await written;
  if (into) {
    if (total !== into.byteLength) throw new Error("deflated part out of range");
    return into;
  }
  if (outs.length === 1) return outs[0] as Uint8Array;
  const out = new Uint8Array(total);
  let at = 0;
  for (const o of outs) {
    out.set(o, at);
    at += o.byteLength;
  }
  return out;
}

/** `bytes` deflated (deflate-raw, the runtime's default level). */
export const deflate = (bytes: Uint8Array): Promise<Uint8Array> =>
  transform(new CompressionStream("deflate-raw"), [bytes]);

/** What `pieces` (one deflate-raw stream, in order) inflate to; `size` when known (then one buffer, no concatenation). */
export const inflate = (pieces: readonly Uint8Array[], size?: number): Promise<Uint8Array> =>
  transform(new DecompressionStream("deflate-raw"), pieces, size);
