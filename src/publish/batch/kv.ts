import { count } from "../../count.ts";
import type { ChangeBatch, BatchIssue } from "../../catalog/changes.ts";
import {
  type ColsTable,
  type CollectionMap,
  type DerivedMeta,
  decodeCounts,
  decodeOwners,
  denseCounts,
  derivedKeys,
  encodeCounts,
  encodeOwners,
  LIST_BLOCK,
  listBlocks,
} from "../../catalog/derived.ts";
import {
  chunkCount,
  keys,
  type ProductRecord,
  shardOf,
  type StoredVariant,
  type VersionMeta,
} from "../../catalog/layout.ts";
import type { SourceProduct } from "../../catalog/schema.ts";
import { chunksOf, collectionLines, collectionListLine, type KvEntry, productRecord, variantRecord } from "../build.ts";
import { contentLine } from "../content.ts";
import { type BlockLines, handleOfLine } from "./blocks.ts";
import { derivedOf, OwnerTable, type Reads } from "./owners.ts";
import { type FileLevel, type LiveTracking, planLevels } from "../../stock/publish-levels.ts";

/**
 * The KV side of a change batch (derived.ts, docs/decisions/0015): from the live version's
 * entries, the entries the batch's new version writes under its own prefix (the product shards,
 * variant shards, content shards, list and collection chunks its changes touch, the map blocks
 * naming their owners, the collections table) and nothing else: every other entry stays where it
 * is and is read from there.
 */

/** What the browse side and the version's meta need of the KV side. */
export interface KvChange {
  entries: KvEntry[];
  derived: DerivedMeta;
  products: number;
  collections: number;
  /** Each upserted product with its new record, and its record before (null: new). */
  upserted: { product: SourceProduct; record: ProductRecord; old: ProductRecord | null }[];
  /** The records of the products deleted. */
  deleted: ProductRecord[];
  /** Every record the batch changed (an upserted product's, or one whose collections changed), null when deleted. */
  records: Map<string, ProductRecord | null>;
  /** Every collection changed by this batch (header or members): its handle, title and count, null when deleted. */
  changedCollections: Map<string, { title: string; count: number } | null>;
  /** Collections whose members or order this batch set (upserted): each member's product slot and its rank (slot) in the collection, in order. */
  members: Map<string, [product: number, rank: number][]>;
  /** The collections after the batch, in order: handle, title, count. */
  headers: { handle: string; title: string; n: number }[];
  /** This version's stock chunk lines (VersionMeta.stock_delta): its tracked levels and the variants it stops tracking. */
  levels: string[];
  /** Levels the Stock shards will write for it by the publish's rule (planLevels): newly tracked or changed quantities. */
  written: number;
  /** The catalog's tracked variants after the batch. */
  tracked: number;
}

/** The product ids, by id, the live catalog gives another product than the one a batch upserts (browse side: its D1 rows). */
export type ProductIdsInUse = (ids: readonly string[]) => Promise<Map<string, string>>;

function tracked(record: ProductRecord | null): number {
  return record ? record.variants.filter((v) => v[7] !== undefined && v[7] !== null).length : 0;
}

interface Collection {
  handle: string;
  title: string;
  count: number;
  /** The lineage index holding its CollectionMap, -1: the root's as published. */
  map: number;
}

/** A collection's blocks: each block's owner and count, and the slots taken. */
interface Blocks {
  owners: Uint8Array;
  counts: Uint16Array;
  slots: number;
}

export interface KvInput {
  base: VersionMeta;
  version: string;
  batch: ChangeBatch;
  currency: string;
  reads: Reads;
  idsInUse: ProductIdsInUse;
  /** Adds a refusal (the batch names something the catalog does not allow). */
  issues: BatchIssue[];
}

export async function deriveKv(input: KvInput): Promise<KvChange | null> {
  const { base, version, batch, currency, reads, issues } = input;
  const before = derivedOf(base);
  const lineage = [...before.lineage, version];
  if (lineage.length > 255)
    throw new Error(
      `${count(before.lineage.length - 1, "change batch", "change batches")} are layered on catalog ${before.lineage[0]}: publish the ` +
        "catalog in full (npm run catalog:publish) before the next batch.",
    );
  const me = lineage.length - 1;
  const of = (owner: number) => lineage[owner] as string;
  const ps = new OwnerTable("ps", base.product_shards, before.maps.ps);
  const vs = new OwnerTable("vs", base.variant_shards, before.maps.vs);
  const cs = new OwnerTable("cs", base.content_shards ?? 0, before.maps.cs);

  // The collections as the live version has them.
  const cols = await collectionsOf(base, before, reads);
  const byHandle = new Map(cols.map((c) => [c.handle, c]));

  // Records: every product the batch names, and the members of the collections it upserts or deletes.
  const shards = new Map<number, Record<string, ProductRecord>>();
  const loadRecords = async (handles: Iterable<string>) => {
    const wanted = [...new Set([...handles].map((h) => shardOf(h, base.product_shards)))].filter((s) => !shards.has(s));
    await ps.load(reads, before.lineage, wanted);
    const texts = await reads.many(wanted.map((s) => keys.productShard(of(ps.owner(s)), s)));
    wanted.forEach((s, i) => {
      const text = texts[i];
      if (text === null || text === undefined)
        throw new Error(`A product shard of the live catalog is missing (${s}).`);
      shards.set(s, JSON.parse(text) as Record<string, ProductRecord>);
    });
  };
  const recordOf = (handle: string): ProductRecord | null => {
    const shard = shards.get(shardOf(handle, base.product_shards));
    return shard && Object.hasOwn(shard, handle) ? (shard[handle] ?? null) : null;
  };
  const membersBefore = new Map<string, string[]>();
  const collectionBlocks = new Map<string, Blocks>();
  const blocksOf = async (c: Collection): Promise<Blocks> => {
    let blocks = collectionBlocks.get(c.handle);
    if (!blocks) {
      if (c.map < 0) {
        // The root's blocks as published: their counts are the root's (its first chunk's header),
        // not the collection's now, since a deletion since leaves the chunks as they were.
        const text = await reads.required(keys.collectionProductsChunk(of(0), c.handle, 0));
        const published = (JSON.parse(text.slice(0, text.indexOf("\n") >>> 0)) as { count: number }).count;
        const counts = denseCounts(published);
        blocks = { owners: new Uint8Array(counts.length), counts, slots: published };
      } else {
        const stored = JSON.parse(
          await reads.required(derivedKeys.collectionMap(of(c.map), c.handle)),
        ) as CollectionMap;
        blocks = { owners: decodeOwners(stored.o), counts: decodeCounts(stored.n), slots: stored.slots };
      }
      collectionBlocks.set(c.handle, blocks);
    }
    return blocks;
  };
  const collectionBlock = async (c: Collection, block: number): Promise<BlockLines> => {
    const blocks = await blocksOf(c);
    const n = blocks.counts[block] ?? 0;
    if (n === 0) return { plain: [], handles: [] };
    const owner = of(blocks.owners[block] ?? 0);
    const text = await reads.required(keys.collectionProductsChunk(owner, c.handle, block));
    const plain = text.split("\n").slice(1, 1 + n);
    return { plain, handles: plain.map(handleOfLine) };
  };
  const membersOf = async (c: Collection): Promise<string[]> => {
    let members = membersBefore.get(c.handle);
    if (!members) {
      const blocks = await blocksOf(c);
      members = [];
      for (let b = 0; b < blocks.counts.length; b++) members.push(...(await collectionBlock(c, b)).handles);
      membersBefore.set(c.handle, members);
    }
    return members;
  };
  for (const c of batch.collections.upsert) {
    const old = byHandle.get(c.handle);
    if (old) await membersOf(old);
  }
  for (const handle of batch.collections.delete) {
    const old = byHandle.get(handle);
    if (old) await membersOf(old);
  }
  await loadRecords([
    ...batch.upsert.map((p) => p.handle),
    ...batch.delete,
    ...batch.collections.upsert.flatMap((c) => c.products),
    ...[...membersBefore.values()].flat(),
  ]);
  // A collection's chunks say who joined it (see below: a change leaves them as they were), so a
  // member since deleted, or deleted and added again, is no member now.
  for (const [handle, members] of membersBefore)
    membersBefore.set(
      handle,
      members.filter((h) => recordOf(h)?.in[handle] !== undefined),
    );

  // What the catalog does not allow.
  const upserted = new Set(batch.upsert.map((p) => p.handle));
  const deleting = new Set(batch.delete);
  batch.delete.forEach((handle, i) => {
    if (!recordOf(handle)) issues.push({ path: ["delete", i], message: `no product has the handle "${handle}"` });
  });
  batch.collections.upsert.forEach((c, i) => {
    c.products.forEach((handle, j) => {
      if (!upserted.has(handle) && !recordOf(handle))
        issues.push({
          path: ["collections", "upsert", i, "products", j],
          message: `no product has handle "${handle}"`,
        });
    });
  });
  batch.collections.delete.forEach((handle, i) => {
    if (!byHandle.has(handle))
      issues.push({ path: ["collections", "delete", i], message: `no collection has the handle "${handle}"` });
  });
  // Ids unique in the whole catalog: a variant's in its variant shard, a product's from the browse rows.
  const variantShards = new Map<number, Record<string, StoredVariant>>();
  const loadVariants = async (ids: Iterable<string>) => {
    const wanted = [...new Set([...ids].map((id) => shardOf(id, base.variant_shards)))].filter(
      (s) => !variantShards.has(s),
    );
    await vs.load(reads, before.lineage, wanted);
    const texts = await reads.many(wanted.map((s) => keys.variantShard(of(vs.owner(s)), s)));
    wanted.forEach((s, i) => variantShards.set(s, JSON.parse(texts[i] ?? "{}") as Record<string, StoredVariant>));
  };
  const oldRecords = [...upserted, ...deleting].map(recordOf).filter((r): r is ProductRecord => r !== null);
  await loadVariants([
    ...batch.upsert.flatMap((p) => p.variants.map((v) => v.id)),
    ...oldRecords.flatMap((r) => r.variants.map((v) => v[0])),
  ]);
  const freed = new Set([...deleting, ...upserted]);
  batch.upsert.forEach((p, i) => {
    p.variants.forEach((v, j) => {
      const shard = variantShards.get(shardOf(v.id, base.variant_shards));
      const holder = shard && Object.hasOwn(shard, v.id) ? shard[v.id]?.h : undefined;
      if (holder !== undefined && holder !== p.handle && !freed.has(holder))
        issues.push({
          path: ["upsert", i, "variants", j, "id"],
          message: `variant id ${v.id} is used by product "${holder}"`,
        });
    });
  });
  const inUse = await input.idsInUse(batch.upsert.map((p) => p.id));
  batch.upsert.forEach((p, i) => {
    const holder = inUse.get(p.id);
    if (holder !== undefined && holder !== p.handle && !freed.has(holder))
      issues.push({ path: ["upsert", i, "id"], message: `id ${p.id} is used by product "${holder}"` });
  });
  if (issues.length > 0) return null;
  if (
    batch.upsert.length + batch.delete.length + batch.collections.upsert.length + batch.collections.delete.length ===
    0
  )
    return null;

  // The new records.
  let slots = before.slots;
  const next = new Map<string, ProductRecord | null>();
  const changes: KvChange["upserted"] = [];
  for (const p of batch.upsert) {
    const old = recordOf(p.handle);
    const slot = old ? old.pos : slots++;
    const record = productRecord(p, slot, old ? { ...old.in } : {}, currency);
    next.set(p.handle, record);
    changes.push({ product: p, record, old });
  }
  const deleted: ProductRecord[] = [];
  for (const handle of batch.delete) {
    deleted.push(recordOf(handle) as ProductRecord);
    next.set(handle, null);
  }
  const current = (handle: string) => (next.has(handle) ? (next.get(handle) ?? null) : recordOf(handle));
  /** A record the batch changes only by its collections: copied before its `in` is changed. */
  const touch = (handle: string): ProductRecord => {
    let record = next.get(handle);
    if (record === undefined) {
      record = { ...(recordOf(handle) as ProductRecord) };
      record.in = { ...record.in };
      next.set(handle, record);
    }
    return record as ProductRecord;
  };

  // Collections: members gone with their products, collections upserted and deleted.
  const changedCollections = new Map<string, { title: string; count: number } | null>();
  const members = new Map<string, [number, number][]>();
  /** Per upserted collection, block -> its lines (every block written now). */
  const collectionEdits = new Map<string, Map<number, BlockLines>>();
  const newBlocks = new Map<string, Blocks>();
  // A product changed or deleted stays in its collections' chunks as they were: a batch's version
  // answers its lists from its browse index (docs/decisions/0015), and those chunks serve later
  // batches only as the record of who is a member. The counts and the collections table follow.
  for (const old of [...changes.map((c) => c.old), ...deleted]) {
    if (!old) continue;
    const gone = next.get(old.handle) === null;
    for (const handle of Object.keys(old.in)) {
      const c = byHandle.get(handle);
      if (!c || batch.collections.upsert.some((u) => u.handle === handle) || batch.collections.delete.includes(handle))
        continue;
      if (gone) c.count--;
      changedCollections.set(handle, { title: c.title, count: c.count });
    }
  }
  for (const c of batch.collections.upsert) {
    const old = byHandle.get(c.handle);
    const before = old ? (membersBefore.get(c.handle) ?? []) : [];
    const kept = new Set(c.products);
    const retained = before.filter((h) => kept.has(h));
    const known = new Set(before);
    const firstNew = c.products.findIndex((h) => !known.has(h));
    const appendOnly =
      old !== undefined &&
      c.products.slice(0, firstNew < 0 ? c.products.length : firstNew).join("\n") === retained.join("\n") &&
      (firstNew < 0 || c.products.slice(firstNew).every((h) => !known.has(h)));
    // A member this batch deletes has no record left to leave the collection from.
    for (const h of before) if (!kept.has(h) && current(h)) delete touch(h).in[c.handle];
    // A new collection has no blocks before this batch (map -1: none to read); its own are written below.
    const entry: Collection = old ?? { handle: c.handle, title: c.title, count: 0, map: -1 };
    if (!old) {
      cols.push(entry);
      byHandle.set(c.handle, entry);
    }
    entry.title = c.title;
    entry.count = c.products.length;
    let taken = 0;
    if (appendOnly) taken = (await blocksOf(old)).slots;
    const order: [number, number][] = [];
    for (const [index, h] of c.products.entries()) {
      const record = touch(h);
      const slot = appendOnly && known.has(h) ? (record.in[c.handle] as number) : appendOnly ? taken++ : index;
      record.in[c.handle] = slot;
      order.push([record.pos, slot]);
    }
    if (!appendOnly) taken = c.products.length;
    members.set(c.handle, order);
    // Its blocks, all of them written now.
    const counts = new Uint16Array(listBlocks(taken));
    const blocks = new Map<number, BlockLines>();
    for (const [h, [, slot]] of c.products.map((h, i) => [h, order[i] as [number, number]] as const)) {
      const b = Math.floor(slot / LIST_BLOCK);
      let lines = blocks.get(b);
      if (!lines) {
        lines = { plain: [], handles: [] };
        blocks.set(b, lines);
      }
      lines.plain.push(collectionLines(current(h) as ProductRecord, null)[0]);
      lines.handles.push(h);
      counts[b] = (counts[b] as number) + 1;
    }
    newBlocks.set(c.handle, { owners: new Uint8Array(counts.length).fill(me), counts, slots: taken });
    collectionEdits.set(c.handle, blocks);
    entry.map = me;
    changedCollections.set(c.handle, { title: c.title, count: c.products.length });
  }
  for (const handle of batch.collections.delete) {
    for (const h of membersBefore.get(handle) ?? []) if (current(h)) delete touch(h).in[handle];
    const at = cols.findIndex((c) => c.handle === handle);
    if (at >= 0) cols.splice(at, 1);
    byHandle.delete(handle);
    changedCollections.set(handle, null);
    collectionEdits.delete(handle);
  }

  const entries: KvEntry[] = [];
  // Each upserted collection's blocks, all written now: header line first, then the block's plain
  // lines (no look-ahead, no image series: only later batches read them, for the members).
  for (const [handle, edits] of collectionEdits) {
    const c = byHandle.get(handle) as Collection;
    const blocks = newBlocks.get(handle) as Blocks;
    const header = JSON.stringify({ handle, title: c.title, count: c.count, pos: cols.indexOf(c) });
    for (const [b, lines] of edits) {
      entries.push({
        key: keys.collectionProductsChunk(version, handle, b),
        value: [header, ...lines.plain].join("\n"),
      });
    }
    const map: CollectionMap = { o: encodeOwners(blocks.owners), n: encodeCounts(blocks.counts), slots: blocks.slots };
    entries.push({ key: derivedKeys.collectionMap(version, handle), value: JSON.stringify(map) });
    c.map = me;
    changedCollections.set(handle, { title: c.title, count: c.count });
  }
  let colsOwner = before.cols;
  if (changedCollections.size > 0) {
    colsOwner = me;
    const table: ColsTable = { list: cols.map((c) => [c.handle, c.title, c.count, c.map]) };
    entries.push({ key: derivedKeys.cols(version), value: JSON.stringify(table) });
    const lines = cols.map((c) => collectionListLine(c.handle, c.title, c.count));
    for (const [k, text] of chunksOf(lines.length, (i) => lines[i] as string))
      entries.push({ key: keys.collectionChunk(version, k), value: text });
  }

  // Product shards.
  const touchedShards = new Set([...next.keys()].map((h) => shardOf(h, base.product_shards)));
  for (const s of touchedShards) {
    const shard = { ...(shards.get(s) as Record<string, ProductRecord>) };
    for (const [handle, record] of next) {
      if (shardOf(handle, base.product_shards) !== s) continue;
      if (record === null) delete shard[handle];
      else shard[handle] = record;
    }
    entries.push({ key: keys.productShard(version, s), value: JSON.stringify(shard) });
    ps.set(s, me);
  }

  // Variant shards: the old variants out, the new ones in.
  const touchedVariants = new Set<number>();
  for (const record of oldRecords)
    for (const [id] of record.variants) {
      const s = shardOf(id, base.variant_shards);
      delete (variantShards.get(s) as Record<string, StoredVariant>)[id];
      touchedVariants.add(s);
    }
  // A variant names its product's collections (`cl`, what a cart's discounts match), in the
  // catalog's order of collections as a full publish lists them.
  const order = new Map(cols.map((c, i) => [c.handle, i]));
  const ranksOf = (record: ProductRecord): Record<string, number> =>
    Object.fromEntries(Object.entries(record.in).sort(([a], [b]) => (order.get(a) ?? 0) - (order.get(b) ?? 0)));
  for (const p of batch.upsert) {
    const ranks = ranksOf(next.get(p.handle) as ProductRecord);
    for (const v of p.variants) {
      const s = shardOf(v.id, base.variant_shards);
      (variantShards.get(s) as Record<string, StoredVariant>)[v.id] = variantRecord(p, v, ranks, currency);
      touchedVariants.add(s);
    }
  }
  // Products the batch changed only by their collections: their variants' `cl` follows.
  const regrouped = [...next].filter(
    (entry): entry is [string, ProductRecord] =>
      entry[1] !== null &&
      !upserted.has(entry[0]) &&
      Object.keys(entry[1].in).sort().join("\n") !==
        Object.keys(recordOf(entry[0])?.in ?? {})
          .sort()
          .join("\n"),
  );
  await loadVariants(regrouped.flatMap(([, r]) => r.variants.map((v) => v[0])));
  for (const [, record] of regrouped) {
    const cl = Object.keys(ranksOf(record));
    for (const [id] of record.variants) {
      const s = shardOf(id, base.variant_shards);
      const stored = (variantShards.get(s) as Record<string, StoredVariant>)[id];
      if (!stored) continue;
      if (cl.length > 0) stored.cl = cl;
      else delete stored.cl;
      touchedVariants.add(s);
    }
  }
  for (const s of touchedVariants) {
    entries.push({ key: keys.variantShard(version, s), value: JSON.stringify(variantShards.get(s)) });
    vs.set(s, me);
  }

  // Content shards: the old lines out, the new ones (sanitised as a publish does) in.
  if (base.content_shards !== undefined) {
    const lines = new Map<string, string | null>();
    for (const handle of deleting) lines.set(handle, null);
    for (const p of batch.upsert) lines.set(p.handle, contentLine(p));
    const touchedContent = [...new Set([...lines.keys()].map((h) => shardOf(h, base.content_shards as number)))];
    await cs.load(reads, before.lineage, touchedContent);
    const texts = await reads.many(touchedContent.map((s) => keys.contentShard(of(cs.owner(s)), s)));
    touchedContent.forEach((s, i) => {
      const kept = (texts[i] ?? "").split("\n").filter((line) => {
        if (line === "") return false;
        return !lines.has(line.slice(0, line.indexOf("\t")));
      });
      for (const [handle, line] of lines)
        if (line !== null && shardOf(handle, base.content_shards as number) === s) kept.push(line);
      entries.push({ key: keys.contentShard(version, s), value: kept.join("\n") });
      cs.set(s, me);
    });
  }

  // Map blocks, then what live stock takes from this version (VersionMeta.stock_delta): a level
  // line for each tracked variant of an upserted product, `<id>\t-` for each the batch stops
  // tracking. The Stock shards apply the publish's rule to them (planLevels): a level is written
  // only where the batch newly tracks the variant or gives another quantity than the version
  // before; `written` is that rule's count against the version before's file quantities.
  for (const table of [ps, vs, cs]) entries.push(...table.entries(version));
  const file = new Map<string, FileLevel>();
  for (const { product } of changes)
    for (const v of product.variants)
      if (v.inventory_quantity !== undefined)
        file.set(v.id, { quantity: v.inventory_quantity, policy: v.inventory_policy ?? "deny" });
  const live = new Map<string, LiveTracking>();
  for (const record of oldRecords)
    for (const v of record.variants)
      if (v[7] !== undefined && v[7] !== null) live.set(v[0], { published: v[7], operator: false });
  const plan = planLevels(file, live, "keep");
  const levels = [
    ...[...file].map(([id, l]) => `${id}\t${l.quantity}\t${l.policy}`),
    ...[...live.keys()].filter((id) => !file.has(id)).map((id) => `${id}\t-`),
  ];
  const trackedAfter =
    (base.stock_tracked ?? 0) -
    oldRecords.reduce((n, r) => n + tracked(r), 0) +
    changes.reduce((n, c) => n + tracked(c.record), 0);
  const derived: DerivedMeta = {
    lineage,
    maps: { ps: ps.mapOwners(me), vs: vs.mapOwners(me), cs: cs.mapOwners(me), pl: before.maps.pl },
    cols: colsOwner,
    slots,
    root: before.root,
  };
  return {
    entries,
    derived,
    products: base.products + changes.filter((c) => c.old === null).length - deleted.length,
    collections: cols.length,
    upserted: changes,
    deleted,
    records: next,
    changedCollections,
    headers: cols.map((c) => ({ handle: c.handle, title: c.title, n: c.count })),
    members,
    levels,
    written: plan.written,
    tracked: trackedAfter,
  };
}

/** The live version's collections in order: its collections table, or the root's list chunks. */
async function collectionsOf(base: VersionMeta, derived: DerivedMeta, reads: Reads): Promise<Collection[]> {
  if (derived.cols >= 0) {
    const table = JSON.parse(
      await reads.required(derivedKeys.cols(derived.lineage[derived.cols] as string)),
    ) as ColsTable;
    return table.list.map(([handle, title, count, map]) => ({ handle, title, count, map }));
  }
  const root = derived.lineage[0] as string;
  const out: Collection[] = [];
  const texts = await reads.many(
    Array.from({ length: chunkCount(base.collections) }, (_, k) => keys.collectionChunk(root, k)),
  );
  texts.forEach((text, k) => {
    const lines = (text ?? "").split("\n").filter((l) => l !== "");
    for (const line of lines.slice(0, k === texts.length - 1 ? lines.length : LIST_BLOCK)) {
      const item = JSON.parse(line) as { handle: string; title: string; products_count: number };
      out.push({
        handle: item.handle,
        title: item.title,
        count: item.products_count,
        map: -1,
      });
    }
  });
  return out;
}
