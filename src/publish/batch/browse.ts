import { optionFacet } from "../../browse/layout.ts";
import { type BrowseOverlay, overlayKey } from "../../browse/overlay.ts";
import { browseSnapshotKey } from "../../browse/snapshot.ts";
import type { Statement } from "../../browse/source.ts";
import { valueKey } from "../../browse/text.ts";
import { browseTable } from "../../browse/layout.ts";
import { lowerBound } from "../../browse/index/bound.ts";
import { keys, type ProductRecord, shardOf, type VersionMeta } from "../../catalog/layout.ts";
import { optionApiName, type SourceCatalog, type SourceProduct } from "../../catalog/schema.ts";
import { type BrowseTarget, browseIndexSql, writeBrowseSnapshot } from "../browse-index.ts";
import type { KvChange } from "./kv.ts";
import type { Reads } from "./owners.ts";
import { derivedOf } from "./owners.ts";

/**
 * The browse side of a change batch (browse/overlay.ts, docs/decisions/0015): the index of every
 * product changed since the root (the layer, rebuilt from them: a batch's browse work grows with
 * the products changed since the last full publish, not with the catalog) and the overlay that
 * tells each index what differs, computed from the root's D1 rows (which product spells a value
 * first, which has an option first, each product's lengths) and the batch state carried from
 * version to version (`browse/v<format>/<version>/batch`).
 */

/** What a batch version carries to the next (R2, beside its layer's snapshot). */
export interface BatchState {
  /** The products changed since the root and still in the catalog, by slot: their source and their collections' ranks. */
  products: [slot: number, product: SourceProduct, ranks: Record<string, number>][];
  /** The root's slots deleted or replaced, ascending. */
  removed: number[];
  scoring: BrowseOverlay["scoring"];
  /** The root's own sums of title and description lengths (absent in states written before them: read from the root). */
  rootSums?: { title: number; description: number };
  /**
   * Layers kept as they were, oldest first (BrowseOverlay.frozen): the version whose index it is,
   * its products' slots and those a later batch deleted or replaced, each ascending. Absent: none.
   */
  frozen?: { index: string; slots: number[]; removed: number[] }[];
  /**
   * The slots changed since the last frozen layer (since the root when none), ascending: the top
   * layer is rebuilt from those of them still in the catalog. Absent (a state written before
   * frozen layers): every changed product's.
   */
  top?: number[];
  /** Option names with the slot and place among its product's options where each first appears, in that order. */
  options: [name: string, slot: number, at: number][];
  /** `<facet>\u0000<key>` and its first spelling in the catalog, for every value a batch's products had or have. */
  displays: [key: string, display: string][];
  collections: BrowseOverlay["collections"];
}

/** Where a batch version's state is. */
export function batchStateKey(version: string): string {
  return `${browseSnapshotKey(version)}/batch`;
}

/** The catalog's own fields as the root stored them (its `g` row): what a batch is checked and indexed with. */
export type CatalogSettings = Omit<SourceCatalog, "products" | "collections">;

/** D1 statements against the root's index. */
async function query(target: BrowseTarget, statements: readonly Statement[]): Promise<Record<string, unknown>[][]> {
  const reader = target.snapshots?.reader;
  if (!reader) throw new Error("A change batch needs the browse index's database (its snapshots target's reader).");
  return statements.length === 0 ? [] : reader.batch(statements);
}

/** An index's sums of title and description lengths (its `l` rows; `where`: which of them). */
function lengthSums(table: string, where = "", params: Statement["params"] = []): Statement {
  const sql = `SELECT coalesce(sum(tl), 0) AS title, coalesce(sum(dl), 0) AS description FROM ${table}`;
  return { sql: where ? `${sql} WHERE ${where}` : sql, params };
}

/** A lengthSums answer as numbers. */
function sumsOf(rows: readonly Record<string, unknown>[] | undefined): { title: number; description: number } {
  return { title: Number(rows?.[0]?.title ?? 0), description: Number(rows?.[0]?.description ?? 0) };
}

/** The root a live version derives from (itself for a full publish). */
export function rootOf(base: VersionMeta): string {
  return base.browse_overlay?.root ?? derivedOf(base).lineage[0] ?? base.version;
}

/** The root's settings (currency, search terms...) from its `g` row; null for an index published before them. */
export async function rootSettings(target: BrowseTarget, root: string): Promise<CatalogSettings | null> {
  const [rows = []] = await query(target, [
    {
      sql: "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?1",
      params: [`bv_${root}_g`],
    },
  ]);
  if (Number(rows[0]?.n ?? 0) === 0) return null;
  const [found = []] = await query(target, [
    { sql: `SELECT v FROM ${browseTable(root, "g")} WHERE k = 'settings'`, params: [] },
  ]);
  const text = found[0]?.v;
  return typeof text === "string" ? (JSON.parse(text) as CatalogSettings) : null;
}

/** The live version's state: its own, or a full publish's seen as the root of batches. */
export async function stateOf(target: BrowseTarget, base: VersionMeta, reads: Reads): Promise<BatchState> {
  if (base.browse_overlay) {
    const bytes = await target.snapshots?.get?.(batchStateKey(base.version));
    if (!bytes) throw new Error(`The live catalog's batch state is missing (${batchStateKey(base.version)}).`);
    return JSON.parse(new TextDecoder().decode(bytes)) as BatchState;
  }
  const root = base.version;
  const t = (name: Parameters<typeof browseTable>[1]) => browseTable(root, name);
  const [count = [], sums, names = []] = await query(target, [
    { sql: `SELECT count(*) AS n FROM ${t("l")}`, params: [] },
    lengthSums(t("l")),
    { sql: `SELECT name FROM ${t("o")} ORDER BY ord`, params: [] },
  ]);
  const rootSums = sumsOf(sums);
  const list = names.map((row) => String(row.name));
  const slots = await optionSlots(target, root, list, new Set());
  const records = await rootRecords(target, root, base, [...slots.values()], reads);
  const options = list.flatMap((name): [string, number, number][] => {
    const slot = slots.get(name);
    if (slot === undefined) return [];
    return [[name, slot, records.get(slot)?.options.findIndex((o) => o.name === name) ?? 0]];
  });
  return {
    products: [],
    removed: [],
    scoring: { n: Number(count[0]?.n ?? 0), ...rootSums },
    rootSums,
    options: options.sort((a, b) => a[1] - b[1] || a[2] - b[2]),
    displays: [],
    collections: {},
  };
}

/** Product ids the catalog gives a product, by id: the root's rows not removed, and the layer's products. */
export async function idsInUse(
  target: BrowseTarget,
  root: string,
  state: BatchState,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (ids.length === 0) return found;
  const removed = new Set(state.removed);
  const [rows = []] = await query(target, [
    {
      sql: `SELECT gid, handle, id FROM ${browseTable(root, "p")} WHERE gid IN (SELECT value FROM json_each(?1))`,
      params: [JSON.stringify(ids)],
    },
  ]);
  for (const row of rows) if (!removed.has(Number(row.id))) found.set(String(row.gid), String(row.handle));
  const wanted = new Set(ids);
  for (const [, p] of state.products) if (wanted.has(p.id)) found.set(p.id, p.handle);
  return found;
}

/** The facet values a product's first spelling counts for: its vendor, product type, tags and declared option values. */
function spellings(p: {
  vendor: string;
  product_type: string;
  tags: readonly string[];
  options: readonly { name: string; values: readonly string[] }[];
}): Map<string, string> {
  const out = new Map<string, string>();
  const see = (facet: string, value: string) => {
    const key = `${facet}\u0000${valueKey(value)}`;
    if (!out.has(key)) out.set(key, value);
  };
  see("vendor", p.vendor);
  if (p.product_type !== "") see("product_type", p.product_type);
  for (const t of p.tags) see("tag", t);
  for (const o of p.options) for (const v of o.values) see(optionFacet(optionApiName(o.name)), v);
  return out;
}

/** A stored record's options as spellings() reads them (labels are the source names). */
function recordSource(r: ProductRecord) {
  return { ...r, options: r.options.map((o) => ({ name: o.label, values: o.values })) };
}

/**
 * Products a layer holds before it is frozen (kept as it is, and the next batch starts a new
 * one): a batch rebuilds at most this many plus its own, and each frozen layer is one more index
 * every browse answer of the version merges (docs/decisions/0015).
 */
export const LAYER_LIMIT = 1_000;

/**
 * Frozen layers a version keeps at most: the batch after a version that has this many rebuilds
 * its layer from every product changed since the root instead (and freezes it in turn when it
 * holds LAYER_LIMIT), so an answer merges at most this many layers beside the root's shards and
 * the top layer.
 */
export const MAX_FROZEN = 8;

export interface BrowseInput {
  base: VersionMeta;
  version: string;
  target: BrowseTarget;
  settings: CatalogSettings;
  state: BatchState;
  kv: KvChange;
  /** The collections after the batch, in order: handle, title, count. */
  headers: { handle: string; title: string; n: number }[];
  reads: Reads;
  /** LAYER_LIMIT unless given (tests freeze small layers). */
  layerLimit?: number;
}

/**
 * Writes the new version's layer (D1 tables and snapshot) and its overlay and state, and returns
 * the overlay's summary for the version's meta.
 */
export async function deriveBrowse(
  input: BrowseInput,
): Promise<{ root: string; shards: number; layer: string | null; frozen?: string[] }> {
  const { base, version, target, settings, kv, reads } = input;
  const root = rootOf(base);
  const shards = base.browse_overlay?.shards ?? base.browse_shards ?? 1;
  const t = (name: Parameters<typeof browseTable>[1]) => browseTable(root, name);
  const state: BatchState = structuredClone(input.state);

  // The changed products: replaced and added in place, deleted out; the root's slots they held, removed.
  const bySlot = new Map(state.products.map((e) => [e[0], e]));
  const removed = new Set(state.removed);
  const newlyRemoved: number[] = [];
  const takeRoot = (slot: number) => {
    if (slot < derivedOf(base).root && !removed.has(slot)) {
      removed.add(slot);
      newlyRemoved.push(slot);
    }
  };
  // The top layer's slots; a frozen layer's product the batch changes is taken out of it.
  const frozen = state.frozen ?? [];
  const top = new Set(state.top ?? state.products.map(([slot]) => slot));
  const change = (slot: number) => {
    takeRoot(slot);
    top.add(slot);
    for (const f of frozen)
      if (f.slots[lowerBound(f.slots, slot)] === slot && !f.removed.includes(slot)) {
        f.removed.splice(lowerBound(f.removed, slot), 0, slot);
      }
  };
  for (const { product, record } of kv.upserted) {
    change(record.pos);
    bySlot.set(record.pos, [record.pos, product, record.in]);
  }
  for (const record of kv.deleted) {
    change(record.pos);
    bySlot.delete(record.pos);
  }
  // The collections' ranks of changed products whose collections the batch changed.
  for (const entry of bySlot.values()) {
    const record = kv.records.get(entry[1].handle);
    if (record) entry[2] = record.in;
  }
  state.products = [...bySlot.values()].sort((a, b) => a[0] - b[0]);
  state.removed = [...removed].sort((a, b) => a - b);

  // The catalog's sums: the root's less its removed products' lengths, plus the layer's (below).
  const [goneRows] = await query(target, [
    lengthSums(t("l"), "id IN (SELECT value FROM json_each(?1))", [JSON.stringify(state.removed)]),
  ]);
  const gone = sumsOf(goneRows);
  // The root's own sums never change: read once (a whole scan of its `l`) and carried in the state.
  if (!state.rootSums) state.rootSums = sumsOf((await query(target, [lengthSums(t("l"))]))[0]);
  const rootSums = state.rootSums;

  // The layer: its tables and snapshot, written whole from the products changed since the last
  // frozen layer (the earlier ones stay as they are, told what a batch since took out of them).
  // MAX_FROZEN of them: all folded into this batch's layer.
  if (frozen.length >= MAX_FROZEN) {
    for (const [slot] of state.products) top.add(slot);
    frozen.length = 0;
  }
  const topProducts = state.products.filter(([slot]) => top.has(slot));
  const layer = topProducts.length > 0 ? version : null;
  if (layer) {
    const members: [string, number, number][] = [];
    topProducts.forEach(([, , ranks], id) => {
      for (const [handle, rank] of Object.entries(ranks)) members.push([handle, rank, id]);
    });
    const catalog = { ...settings, products: topProducts.map(([, p]) => p), collections: [] };
    let group: string[] = [];
    for await (const statement of browseIndexSql(catalog, version, {
      slots: topProducts.map(([slot]) => slot),
      headers: input.headers,
      members,
    })) {
      group.push(statement);
      if (group.length >= 64) {
        await target.run(group);
        group = [];
      }
    }
    if (group.length > 0) await target.run(group);
    if (target.snapshots) await writeBrowseSnapshot(target.snapshots, version, 1);
  }
  // The layers' sums: each frozen one's less what a batch took out of it, and the top one's.
  const layerSums = (
    await query(target, [
      ...frozen.map((f) =>
        lengthSums(
          browseTable(f.index, "l"),
          `id NOT IN (SELECT id FROM ${browseTable(f.index, "s")} WHERE slot IN (SELECT value FROM json_each(?1)))`,
          [JSON.stringify(f.removed)],
        ),
      ),
      ...(layer ? [lengthSums(browseTable(layer, "l"))] : []),
    ])
  ).map(sumsOf);
  const sum = (field: "title" | "description") => layerSums.reduce((n, sums) => n + sums[field], 0);
  state.scoring = {
    n: kv.products,
    title: rootSums.title - gone.title + sum("title"),
    description: rootSums.description - gone.description + sum("description"),
  };
  // The overlay's frozen layers are those before this batch's; a layer holding LAYER_LIMIT
  // products is frozen for the batches after it, which start a new one.
  const before = frozen.map((f) => ({ index: f.index, removed: [...f.removed] }));
  if (layer && topProducts.length >= (input.layerLimit ?? LAYER_LIMIT)) {
    frozen.push({ index: layer, slots: topProducts.map(([slot]) => slot), removed: [] });
    top.clear();
  }
  state.frozen = frozen;
  state.top = [...top].filter((slot) => bySlot.has(slot)).sort((a, b) => a - b);

  // First spellings and option names: recomputed for what the batch's products had or have.
  const affected = new Set<string>();
  const names = new Set<string>();
  for (const { product, old } of kv.upserted) {
    for (const key of spellings(product).keys()) affected.add(key);
    for (const o of product.options) names.add(optionApiName(o.name));
    if (old) {
      for (const key of spellings(recordSource(old)).keys()) affected.add(key);
      for (const o of old.options) names.add(o.name);
    }
  }
  for (const old of kv.deleted) {
    for (const key of spellings(recordSource(old)).keys()) affected.add(key);
    for (const o of old.options) names.add(o.name);
  }
  const displays = new Map(state.displays);
  await firstSpellings(target, root, state, [...affected], displays, reads, base);
  state.displays = [...displays];
  await firstOptions(target, root, state, names, reads, base);

  // Collections: their headers after the batch; members where a batch set them.
  for (const [handle, change] of kv.changedCollections) {
    if (change === null) {
      state.collections[handle] = null;
      continue;
    }
    const was = state.collections[handle];
    const set = kv.members.get(handle);
    const deleted = new Set(kv.deleted.map((r) => r.pos));
    const members = set ?? (was?.members ? was.members.filter(([slot]) => !deleted.has(slot)) : undefined);
    state.collections[handle] = { title: change.title, n: change.count, ...(members ? { members } : {}) };
  }
  for (const [handle, c] of Object.entries(state.collections)) {
    if (!c?.members || kv.changedCollections.has(handle)) continue;
    const deleted = new Set(kv.deleted.map((r) => r.pos));
    if (c.members.some(([slot]) => deleted.has(slot))) c.members = c.members.filter(([slot]) => !deleted.has(slot));
  }

  const overlay: BrowseOverlay = {
    root,
    shards,
    layer,
    ...(before.length > 0 ? { frozen: before } : {}),
    scoring: state.scoring,
    options: state.options.map(([name]) => name),
    displays: state.displays,
    collections: state.collections,
    removed: state.removed,
  };
  const snapshots = target.snapshots;
  if (!snapshots) throw new Error("A change batch needs the snapshots bucket for its overlay.");
  await snapshots.put(overlayKey(version), new TextEncoder().encode(JSON.stringify(overlay)));
  await snapshots.put(batchStateKey(version), new TextEncoder().encode(JSON.stringify(state)));
  return { root, shards, layer, ...(before.length > 0 ? { frozen: before.map((f) => f.index) } : {}) };
}

/** Rows the root's index gives, a few at a time from a place on, for the first one a batch did not remove. */
const SEEK = 32;

/**
 * For each of `sources` (SQL giving a key's products ascending from `?2`, the key's own
 * parameter `?1`): its first product in the root, and the first not removed. A round of index
 * seeks per SEEK removed products in a row: the root's first is nearly always still there.
 */
async function firstLive(
  target: BrowseTarget,
  sources: readonly { sql: string; param: string | number }[],
  removed: ReadonlySet<number>,
): Promise<{ first: number | null; live: number | null }[]> {
  const out = sources.map(() => ({ first: null as number | null, live: null as number | null, from: 0, done: false }));
  for (;;) {
    const open = out.map((o, i) => [o, i] as const).filter(([o]) => !o.done);
    if (open.length === 0) break;
    const results = await query(
      target,
      open.map(([o, i]) => ({
        sql: `${(sources[i] as { sql: string }).sql} LIMIT ${SEEK}`,
        params: [(sources[i] as { param: string | number }).param, o.from],
      })),
    );
    open.forEach(([o], r) => {
      const ids = (results[r] ?? []).map((row) => Number(row.id));
      if (o.from === 0) o.first = ids[0] ?? null;
      const live = ids.find((id) => !removed.has(id));
      if (live !== undefined) o.live = live;
      if (live !== undefined || ids.length < SEEK) o.done = true;
      else o.from = (ids.at(-1) as number) + 1;
    });
  }
  return out.map(({ first, live }) => ({ first, live }));
}

/**
 * Each affected value's first spelling in the catalog: of the first product having it, the
 * root's first one not removed (its rows: `p` for vendor and type, `v` and `u` for tags and
 * option values) or a changed product's, whichever comes first.
 */
async function firstSpellings(
  target: BrowseTarget,
  root: string,
  state: BatchState,
  affected: readonly string[],
  displays: Map<string, string>,
  reads: Reads,
  base: VersionMeta,
): Promise<void> {
  if (affected.length === 0) return;
  const t = (name: Parameters<typeof browseTable>[1]) => browseTable(root, name);
  const removed = new Set(state.removed);
  const parts = affected.map((key) => key.split("\u0000") as [string, string]);
  const rows = await query(
    target,
    parts.map(([facet, value]) => ({
      sql: `SELECT id, d FROM ${t("d")} WHERE f = ?1 AND k = ?2`,
      params: [facet, value],
    })),
  );
  const valueIds = rows.map((r) => (r[0] ? Number(r[0].id) : null));
  // Per value: where its products are (vendor and type: `p`'s columns; any other: `v`, then `u`).
  const sources: { sql: string; param: string | number; at: number }[] = [];
  parts.forEach(([facet, value], at) => {
    if (facet === "vendor" || facet === "product_type") {
      const column = facet === "vendor" ? "vendor" : "ptype";
      sources.push({ sql: `SELECT id FROM ${t("p")} WHERE ${column} = ?1 AND id >= ?2 ORDER BY id`, param: value, at });
      return;
    }
    const vid = valueIds[at];
    if (vid === null || vid === undefined) return;
    for (const table of ["v", "u"] as const)
      sources.push({
        sql: `SELECT pid AS id FROM ${t(table)} WHERE vid = ?1 AND pid >= ?2 ORDER BY pid`,
        param: vid,
        at,
      });
  });
  const seeks = await firstLive(target, sources, removed);
  const found = parts.map((_, at) => {
    let first: number | null = null;
    let live: number | null = null;
    sources.forEach((source, i) => {
      if (source.at !== at) return;
      const seek = seeks[i] as { first: number | null; live: number | null };
      if (seek.first !== null && (first === null || seek.first < first)) first = seek.first;
      if (seek.live !== null && (live === null || seek.live < live)) live = seek.live;
    });
    const d = rows[at]?.[0] ? String(rows[at]?.[0]?.d) : null;
    return { key: affected[at] as string, d, first: first as number | null, live: live as number | null };
  });
  // The changed products' first spelling of each value, in one pass over them (by slot).
  const wanted = new Set(affected);
  const changedFirst = new Map<string, { slot: number; spelling: string }>();
  for (const [slot, p] of state.products) {
    if (changedFirst.size === wanted.size) break;
    for (const [key, spelling] of spellings(p))
      if (wanted.has(key) && !changedFirst.has(key)) changedFirst.set(key, { slot, spelling });
  }
  // A changed product, where one comes first; the root's others' spellings from their records.
  const best = found.map(({ key, d, first, live }) => {
    // The root's own spelling when its first product is still there; else that product's record says.
    let pick: { slot: number; spelling: string | null } | null =
      live === null ? null : { slot: live, spelling: live === first ? d : null };
    const changed = changedFirst.get(key);
    if (changed && (!pick || changed.slot < pick.slot)) pick = changed;
    return { key, pick };
  });
  const slots = best.flatMap(({ pick }) => (pick && pick.spelling === null ? [pick.slot] : []));
  if (slots.length > 0) {
    const records = await rootRecords(target, root, base, slots, reads);
    for (const b of best)
      if (b.pick && b.pick.spelling === null) {
        const record = records.get(b.pick.slot);
        b.pick.spelling = record ? (spellings(recordSource(record)).get(b.key) ?? null) : null;
      }
  }
  // Kept whatever the root says: the layer's own rows spell a value as its products first do.
  for (const { key, pick } of best) {
    if (!pick || pick.spelling === null) displays.delete(key);
    else displays.set(key, pick.spelling);
  }
}

/** The records of root products by slot (their handles from the root's `p`; their records, the root's still, from KV). */
async function rootRecords(
  target: BrowseTarget,
  root: string,
  base: VersionMeta,
  slots: readonly number[],
  reads: Reads,
): Promise<Map<number, ProductRecord>> {
  const [rows = []] = await query(target, [
    {
      sql: `SELECT id, handle FROM ${browseTable(root, "p")} WHERE id IN (SELECT value FROM json_each(?1))`,
      params: [JSON.stringify([...new Set(slots)])],
    },
  ]);
  const handles = new Map(rows.map((r) => [String(r.handle), Number(r.id)]));
  const records = await recordsOf(base, [...handles.keys()], reads);
  const out = new Map<number, ProductRecord>();
  for (const [handle, record] of records) out.set(handles.get(handle) as number, record);
  return out;
}

/** The records of root products (unchanged since the root, so the live version's shards hold the root's). */
async function recordsOf(
  base: VersionMeta,
  handles: readonly string[],
  reads: Reads,
): Promise<Map<string, ProductRecord>> {
  const { OwnerTable } = await import("./owners.ts");
  const derived = derivedOf(base);
  const ps = new OwnerTable("ps", base.product_shards, derived.maps.ps);
  const shards = [...new Set(handles.map((h) => shardOf(h, base.product_shards)))];
  await ps.load(reads, derived.lineage, shards);
  const texts = await reads.many(shards.map((s) => keys.productShard(derived.lineage[ps.owner(s)] as string, s)));
  const out = new Map<string, ProductRecord>();
  for (const text of texts) {
    const shard = JSON.parse(text ?? "{}") as Record<string, ProductRecord>;
    for (const h of handles) if (Object.hasOwn(shard, h)) out.set(h, shard[h] as ProductRecord);
  }
  return out;
}

/**
 * The catalog's option names in order of first appearance, recomputed for the names the batch's
 * products had or have: each at the first product having it, the root's first not removed (any
 * of its values in `v` or `u`) or a changed product's, then by its place among that product's
 * options.
 */
async function firstOptions(
  target: BrowseTarget,
  root: string,
  state: BatchState,
  names: ReadonlySet<string>,
  reads: Reads,
  base: VersionMeta,
): Promise<void> {
  if (names.size === 0) return;
  const list = [...names];
  const rootSlots = await optionSlots(target, root, list, new Set(state.removed));
  const records = await rootRecords(target, root, base, [...rootSlots.values()], reads);
  const kept = new Map(state.options.filter(([name]) => !names.has(name)).map((o) => [o[0], o]));
  for (const name of list) {
    let best: [string, number, number] | null = null;
    const slot = rootSlots.get(name);
    if (slot !== undefined) best = [name, slot, records.get(slot)?.options.findIndex((o) => o.name === name) ?? 0];
    for (const [s, p] of state.products) {
      if (best && s >= best[1]) break;
      const at = p.options.findIndex((o) => optionApiName(o.name) === name);
      if (at >= 0) {
        best = [name, s, at];
        break;
      }
    }
    if (best) kept.set(name, best);
  }
  state.options = [...kept.values()].sort((a, b) => a[1] - b[1] || a[2] - b[2]);
}

/** The root's first product not removed having each option name (any of its values, in `v` or `u`). */
async function optionSlots(
  target: BrowseTarget,
  root: string,
  names: readonly string[],
  removed: ReadonlySet<number>,
): Promise<Map<string, number>> {
  const t = (name: Parameters<typeof browseTable>[1]) => browseTable(root, name);
  const rows = await query(
    target,
    names.map((name) => ({ sql: `SELECT id FROM ${t("d")} WHERE f = ?1`, params: [optionFacet(name)] })),
  );
  const sources: { sql: string; param: number; name: string }[] = [];
  names.forEach((name, i) => {
    for (const row of rows[i] ?? [])
      for (const table of ["v", "u"] as const)
        sources.push({
          sql: `SELECT pid AS id FROM ${t(table)} WHERE vid = ?1 AND pid >= ?2 ORDER BY pid`,
          param: Number(row.id),
          name,
        });
  });
  const seeks = await firstLive(target, sources, removed);
  const out = new Map<string, number>();
  sources.forEach((source, i) => {
    const live = seeks[i]?.live;
    if (live === null || live === undefined) return;
    const was = out.get(source.name);
    if (was === undefined || live < was) out.set(source.name, live);
  });
  return out;
}
