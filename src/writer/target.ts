import type { KvEntry } from "../publish/build.ts";
import { bindingTarget, type CatalogKvTarget } from "../publish/publish.ts";

/**
 * Cloudflare allows one Worker invocation 1,000 operations on external services (KV, R2, D1; a
 * KV bulk read of up to 100 keys counts as one). A batch writes about 15 KV entries per product
 * it changes and its cleanup may delete a whole old version, so the writer spreads them: what a
 * batch reads it reads in bulk, and what it writes or deletes goes in chunks to the writer itself
 * (`EntrySink`, its own service binding), each chunk a new invocation with its own budget. The
 * coordinating call keeps the lease, the reads, the browse index and the pointer switch
 * (docs/decisions/0015-change-batches.md).
 */

/** The most entries one forwarded chunk puts or deletes: well within an invocation's 1,000 operations. */
export const CHUNK_ENTRIES = 400;
/** The most bytes of keys and values one forwarded chunk carries (an RPC message may be 32 MiB). */
export const CHUNK_BYTES = 8 * 1024 * 1024;
/** The most keys one KV bulk read takes. */
export const BULK_READ_KEYS = 100;

/** Where the writer sends its chunks: its own entrypoint, reached over its service binding. */
export interface EntrySink {
  putEntries(entries: KvEntry[]): Promise<void>;
  deleteEntries(keys: string[]): Promise<void>;
}

/** The catalog's KV for a batch run by the writer: bulk reads, writes and deletes sent to `sink` in chunks. */
export function writerTarget(kv: KVNamespace, sink: EntrySink): CatalogKvTarget {
  return {
    ...bindingTarget(kv),
    async readValues(keys) {
      const out: (string | null)[] = [];
      for (let at = 0; at < keys.length; at += BULK_READ_KEYS) {
        const chunk = keys.slice(at, at + BULK_READ_KEYS);
        const values = await kv.get(chunk, "text");
        for (const key of chunk) out.push(values.get(key) ?? null);
      }
      return out;
    },
    async writeEntries(entries, onWritten) {
      let chunk: KvEntry[] = [];
      let bytes = 0;
      const send = async () => {
        if (chunk.length === 0) return;
        const sent = chunk;
        chunk = [];
        bytes = 0;
        await sink.putEntries(sent);
        onWritten(sent.length);
      };
      for await (const entry of entries) {
        chunk.push(entry);
        bytes += entry.key.length + entry.value.length * 3;
        if (chunk.length >= CHUNK_ENTRIES || bytes >= CHUNK_BYTES) await send();
      }
      await send();
    },
    async deleteKeys(keys) {
      for (let at = 0; at < keys.length; at += CHUNK_ENTRIES)
        await sink.deleteEntries(keys.slice(at, at + CHUNK_ENTRIES));
    },
  };
}
