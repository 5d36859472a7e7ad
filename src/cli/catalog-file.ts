import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import type { SourceCatalog } from "../catalog/schema.ts";

/** Where a command writes: `file`, or stdout without one. */
export function outputSink(file: string | undefined): NodeJS.WritableStream {
  return file !== undefined ? createWriteStream(file) : process.stdout;
}

/** Writes `chunks` to `sink`, waiting when it is full; ends it when it is a file. Returns the bytes written. */
export async function writeChunks(sink: NodeJS.WritableStream, chunks: Iterable<string>): Promise<number> {
  let bytes = 0;
  for (const chunk of chunks) {
    bytes += Buffer.byteLength(chunk);
    if (!sink.write(chunk)) await once(sink, "drain");
  }
  if (sink !== process.stdout)
    await new Promise<void>((resolve, reject) =>
      (sink as WriteStream).end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
  return bytes;
}

/**
 * The same bytes as `JSON.stringify(catalog)` and a newline for a catalog whose products and
 * collections come last (as every catalog this project builds), a product at a time: a million
 * products never sit in one string (V8 caps a string near 512 MiB).
 */
export function* catalogJsonChunks(catalog: SourceCatalog): Generator<string> {
  const { products, collections, ...head } = catalog;
  yield `${JSON.stringify(head).slice(0, -1)}${Object.keys(head).length > 0 ? "," : ""}"products":[`;
  for (let i = 0; i < products.length; i++) yield `${i ? "," : ""}${JSON.stringify(products[i])}`;
  yield `],"collections":${JSON.stringify(collections)}}\n`;
}
