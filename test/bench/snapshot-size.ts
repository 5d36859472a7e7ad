/**
 * The browse index of N generated products, built as a remote publish builds its snapshot (the
 * index's SQL into node:sqlite, read back with the engine's reader, encoded): time of each step,
 * the snapshot's size and its parts' sizes as stored, the time to decode it and build the VersionIndex (Node's V8), the
 * bytes the index holds, and this process's peak RSS. No Miniflare, no KV: one process.
 *
 *   npm exec -- node test/bench/snapshot-size.ts [products]     (default 100,000)
 */
import { browseDataFromSnapshot, decodeSnapshot, encodeSnapshot } from "../../src/browse/snapshot.ts";
import { readBrowseData } from "../../src/browse/source.ts";
import { VersionIndex } from "../../src/browse/index/version-index.ts";
import { snapshotTree, writeBrowseIndex } from "../../src/publish/browse-index.ts";
import { sqliteMirror } from "../../src/publish/browse-remote.ts";
import { generateCatalog } from "../../src/publish/generate.ts";

const products = Number(process.argv[2] ?? 100_000);
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const step = async <T>(name: string, run: () => T | Promise<T>): Promise<T> => {
  const t = performance.now();
  const out = await run();
  console.log(`${name}: ${((performance.now() - t) / 1000).toFixed(2)} s (rss ${mib(process.memoryUsage().rss)} MiB)`);
  return out;
};

const catalog = await step(`generate ${products}`, () => generateCatalog({ products }));
const mirror = sqliteMirror();
const version = "size";
await step("index SQL into node:sqlite", () =>
  writeBrowseIndex({ run: async (s) => mirror.run(s), tables: async () => [] }, catalog, version),
);
const data = await step("read back (readBrowseData)", () => readBrowseData(mirror.reader, version));
// As writeBrowseSnapshot does: the data plus the derived parts, items deflated by block, handles packed.
const full = await step("build index, pack items", () => snapshotTree(data));
const chunks = await step("encode", () => encodeSnapshot(full));
console.log(`snapshot ${mib(chunks.reduce((n, c) => n + c.byteLength, 0))} MiB in ${chunks.length} chunks`);

/** Bytes per top-level part as stored (items deflated): typed arrays (lists included) counted exactly, the rest as its JSON. */
function sizeOf(value: unknown): number {
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (value instanceof Map) return [...value.values()].reduce((n: number, v) => n + sizeOf(v), 0);
  if (Array.isArray(value) && value.length > 0 && ArrayBuffer.isView(value[0]))
    return value.reduce((n: number, v) => n + sizeOf(v), 0);
  if (value !== null && typeof value === "object" && !Array.isArray(value))
    return Object.values(value).reduce((n: number, v) => n + sizeOf(v), 0);
  return JSON.stringify(value ?? null).length;
}
for (const [name, value] of Object.entries(full)) console.log(`  part ${name}: ${mib(sizeOf(value))} MiB`);

const index = await step("decode + VersionIndex", async () => new VersionIndex(await browseDataFromSnapshot(chunks)));
await step("decode only", () => decodeSnapshot(chunks));
console.log(
  `index holds ${mib(index.bytes)} MiB in typed arrays; peak RSS ${mib(process.resourceUsage().maxRSS * 1024)} MiB`,
);
