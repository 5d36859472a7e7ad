import { DurableObject } from "cloudflare:workers";
import type { Currency } from "../money.ts";
import { sha256Hex } from "../sha256.ts";
import { newVersionName } from "../version-name.ts";
import { RULES_POINTER_KEY, type RulesMeta, type RulesPointer, rulesDocumentKey, summarize } from "./layout.ts";
import { migrateRules } from "./migrations.ts";
import type { RulesIssue } from "./schema.ts";
import { parseRules } from "./parse.ts";

/** Documents kept for a rollback beyond the live and the previous one (the catalog keeps 5; rules are small). */
export const KEEP_RULES_VERSIONS = 10;

/** A published version: its meta and its document as JSON text. */
export interface RulesVersion {
  meta: RulesMeta;
  document: string;
}

/**
 * What `If-Match` asked: nothing (`none`), any live version (`*`), or one of these versions. A
 * write without it is refused while rules are live (`precondition_required`): a careful client
 * never overwrites rules it has not read.
 */
export type IfMatch = { kind: "none" } | { kind: "any" } | { kind: "versions"; versions: readonly string[] };

export type RulesWrite =
  | { ok: true; live: RulesVersion; previous: string | null; changed: boolean }
  | { ok: false; code: "rules_version_mismatch" | "precondition_required"; live: string | null }
  | { ok: false; code: "resource_missing" | "nothing_to_roll_back"; message: string }
  | { ok: false; code: "rules_invalid"; message: string; issues: RulesIssue[] }
  | { ok: false; code: "rules_unavailable"; message: string };

/** One line of the history: a publish or rollback, and whether its version is live and still kept. */
export interface RulesHistoryEntry {
  seq: number;
  at: string;
  action: "publish" | "rollback";
  version: string;
  from: string | null;
  live: boolean;
  kept: boolean;
  meta: RulesMeta | null;
}

interface LiveRow extends Record<string, SqlStorageValue> {
  current: string | null;
  previous: string | null;
  mirrored: number;
}

/**
 * The rules document's one writer (contract 10.1): a single SQLite Durable Object (named `live`)
 * that publishes and rolls back one operation at a time, so `If-Match` is a real compare-and-swap
 * (KV has none). It keeps the truth (every kept version, the append-only history, which version
 * is live) and mirrors the live one into KV, where every cart reads it (store.ts): the version's
 * document under its own key first, then the pointer. SQLite commits before the pointer write
 * leaves the object (the output gate), so KV never names a version this object does not know; a
 * pointer write that fails is undone here and re-done from this object's state by the next
 * operation (`#mirror`), so the two never stay apart.
 */
export class RulesPublisher extends DurableObject<Env> {
  readonly #sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    void ctx.blockConcurrencyWhile(async () => {
      migrateRules(this.#sql);
    });
  }

  /** The live version and its document, or null when no rules were ever published. */
  async live(): Promise<RulesVersion | null> {
    const current = this.#liveRow().current;
    return current === null ? null : this.#version(current);
  }

  /** Every publish and rollback, oldest first. */
  async history(): Promise<RulesHistoryEntry[]> {
    const live = this.#liveRow().current;
    const rows = this.#sql
      .exec<{ seq: number; at: number; action: "publish" | "rollback"; version: string; from_version: string | null }>(
        "SELECT seq, at, action, version, from_version FROM history ORDER BY seq",
      )
      .toArray();
    const metas = new Map(
      this.#sql
        .exec<{ version: string; meta: string }>("SELECT version, meta FROM versions")
        .toArray()
        .map((r) => [r.version, JSON.parse(r.meta) as RulesMeta]),
    );
    // Every switch appends an entry, so the last one names the live version.
    const last = rows.at(-1)?.seq;
    return rows.map((r) => ({
      seq: r.seq,
      at: new Date(r.at).toISOString(),
      action: r.action,
      version: r.version,
      from: r.from_version,
      live: r.seq === last && r.version === live,
      kept: metas.has(r.version),
      meta: metas.get(r.version) ?? null,
    }));
  }

  /**
   * Publishes `document` (JSON text, validated by the caller against `currency`) as a new version,
   * unless `ifMatch` says the live rules changed meanwhile. The same document as the live one
   * publishes nothing (`changed: false`).
   */
  async publish(input: { document: string; currency: Currency; ifMatch: IfMatch }): Promise<RulesWrite> {
    return this.#serialised(async () => {
      const live = this.#liveRow();
      const refused = checkIfMatch(input.ifMatch, live.current);
      if (refused) return refused;
      const digest = await sha256Hex(input.document);
      const current = live.current === null ? null : this.#version(live.current);
      if (current?.meta.digest === digest && current.meta.currency === input.currency)
        return { ok: true, live: current, previous: live.previous, changed: false };
      let version = newVersionName();
      while (this.#has(version)) version = newVersionName();
      const meta: RulesMeta = {
        version,
        digest,
        published_at: new Date().toISOString(),
        currency: input.currency,
        ...summarize(JSON.parse(input.document)),
      };
      await this.env.CATALOG.put(rulesDocumentKey(version), input.document);
      this.#sql.exec(
        "INSERT INTO versions (version, document, meta) VALUES (?, ?, ?)",
        version,
        input.document,
        JSON.stringify(meta),
      );
      await this.#switch("publish", version, live);
      return { ok: true, live: { meta, document: input.document }, previous: live.current, changed: true };
    });
  }

  /**
   * Makes a kept version live again with one pointer switch: by default the previous one (the two
   * swap places, so a second rollback undoes the first). The document is checked against the
   * catalog's `currency` first: a catalog republished in another currency refuses rules whose
   * amounts it cannot charge.
   */
  async rollback(input: { to?: string; currency: Currency; ifMatch: IfMatch }): Promise<RulesWrite> {
    return this.#serialised(async () => {
      const live = this.#liveRow();
      const refused = checkIfMatch(input.ifMatch, live.current, true);
      if (refused) return refused;
      const to = input.to ?? live.previous;
      if (to === null || live.current === null)
        return {
          ok: false,
          code: "nothing_to_roll_back",
          message: "There is no previous rules version to roll back to.",
        };
      if (to === live.current)
        return { ok: false, code: "nothing_to_roll_back", message: `Rules version ${to} is already live.` };
      const target = this.#version(to);
      if (!target) {
        const known = this.#sql.exec("SELECT 1 FROM history WHERE version = ?", to).toArray().length > 0;
        return {
          ok: false,
          code: "resource_missing",
          message: known
            ? `Rules version ${to} was deleted by a cleanup (the last ${KEEP_RULES_VERSIONS} versions are kept): publish its document again instead.`
            : `No rules version ${to} (see npm run rules -- list).`,
        };
      }
      const parsed = parseRules(JSON.parse(target.document), input.currency);
      if (!parsed.ok)
        return {
          ok: false,
          code: "rules_invalid",
          message: `Rules version ${to} does not fit the live catalog's currency (${input.currency}).`,
          issues: parsed.issues,
        };
      await this.#switch("rollback", to, live);
      return { ok: true, live: target, previous: live.current, changed: true };
    });
  }

  /**
   * Runs one write alone: nothing else reaches this object until it is done, and the KV pointer
   * is first brought in line with this object's state if a write before it could not finish.
   */
  async #serialised(write: () => Promise<RulesWrite>): Promise<RulesWrite> {
    let outcome: RulesWrite | undefined;
    // Nothing may throw out of blockConcurrencyWhile (the runtime would reset the object): a
    // storage failure is an answer, after this object's own state was put back (#switch).
    await this.ctx.blockConcurrencyWhile(async () => {
      try {
        await this.#mirror();
        outcome = await write();
      } catch (error) {
        outcome = {
          ok: false,
          code: "rules_unavailable",
          message: `The rules store did not answer (${error instanceof Error ? error.message : "error"}): nothing changed. Retry.`,
        };
      }
    });
    return outcome!;
  }

  /** Records `version` as live (history, pointer row), then switches KV's pointer; undone if that write fails. */
  async #switch(action: "publish" | "rollback", version: string, before: LiveRow): Promise<void> {
    this.#sql.exec(
      "INSERT INTO history (at, action, version, from_version) VALUES (?, ?, ?, ?)",
      Date.now(),
      action,
      version,
      before.current,
    );
    const seq = this.#sql.exec<{ seq: number }>("SELECT last_insert_rowid() AS seq").one().seq;
    this.#sql.exec("UPDATE live SET current = ?, previous = ?, mirrored = 0", version, before.current);
    try {
      await this.#mirror();
    } catch (error) {
      // Not switched: this write never happened. KV may hold either pointer now, so the next
      // operation writes it again from the row restored here (mirrored stays 0).
      this.#sql.exec("DELETE FROM history WHERE seq = ?", seq);
      this.#sql.exec("UPDATE live SET current = ?, previous = ?, mirrored = 0", before.current, before.previous);
      throw error;
    }
    await this.#cleanUp();
  }

  /** Writes KV's pointer from this object's live row when they may differ. */
  async #mirror(): Promise<void> {
    const live = this.#liveRow();
    if (live.mirrored === 1) return;
    if (live.current === null) await this.env.CATALOG.delete(RULES_POINTER_KEY);
    else {
      const pointer: RulesPointer = {
        current: this.#meta(live.current)!,
        previous: live.previous === null ? null : this.#meta(live.previous),
      };
      await this.env.CATALOG.put(RULES_POINTER_KEY, JSON.stringify(pointer));
    }
    this.#sql.exec("UPDATE live SET mirrored = 1");
  }

  /** Deletes the documents of versions beyond the live, the previous and the last KEEP_RULES_VERSIONS published. */
  async #cleanUp(): Promise<void> {
    const live = this.#liveRow();
    const recent = this.#sql
      .exec<{ version: string }>(
        "SELECT version FROM history WHERE action = 'publish' GROUP BY version ORDER BY MAX(seq) DESC LIMIT ?",
        KEEP_RULES_VERSIONS,
      )
      .toArray()
      .map((r) => r.version);
    const keep = new Set([live.current, live.previous, ...recent]);
    const stale = this.#sql
      .exec<{ version: string }>("SELECT version FROM versions")
      .toArray()
      .map((r) => r.version)
      .filter((v) => !keep.has(v));
    for (const version of stale) {
      await this.env.CATALOG.delete(rulesDocumentKey(version));
      this.#sql.exec("DELETE FROM versions WHERE version = ?", version);
    }
  }

  #liveRow(): LiveRow {
    return this.#sql.exec<LiveRow>("SELECT current, previous, mirrored FROM live").one();
  }

  #has(version: string): boolean {
    return (
      this.#sql
        .exec(
          "SELECT 1 FROM history WHERE version = ? UNION SELECT 1 FROM versions WHERE version = ?",
          version,
          version,
        )
        .toArray().length > 0
    );
  }

  #meta(version: string): RulesMeta | null {
    const row = this.#sql.exec<{ meta: string }>("SELECT meta FROM versions WHERE version = ?", version).toArray()[0];
    return row ? (JSON.parse(row.meta) as RulesMeta) : null;
  }

  #version(version: string): RulesVersion | null {
    const row = this.#sql
      .exec<{ document: string; meta: string }>("SELECT document, meta FROM versions WHERE version = ?", version)
      .toArray()[0];
    return row ? { meta: JSON.parse(row.meta) as RulesMeta, document: row.document } : null;
  }
}

/**
 * `If-Match` against the live version: a list that does not name it is stale (412); none at all
 * while rules are live is refused (428), since the writer has not said what it read. A rollback
 * without it is allowed: it names what to go back to, never a document written blind.
 */
function checkIfMatch(ifMatch: IfMatch, live: string | null, optional = false): RulesWrite | null {
  if (ifMatch.kind === "none")
    return live === null || optional ? null : { ok: false, code: "precondition_required", live };
  if (ifMatch.kind === "any") return live === null ? { ok: false, code: "rules_version_mismatch", live } : null;
  return live !== null && ifMatch.versions.includes(live) ? null : { ok: false, code: "rules_version_mismatch", live };
}
