import type { RulesHistory } from "../rules/history-api.ts";
import { summarize } from "../rules/layout.ts";
import type { RulesDocument } from "../rules/schema.ts";
import { OperatorError } from "./operator-client.ts";
import { count } from "../count.ts";

/**
 * `npm run rules`' logic without Node: the parsed command, a client of `/api/v1/operator/rules`
 * and the lines it prints (argument parsing and the file live in `src/cli/rules.ts`). Kept free
 * of Node APIs so the tests run it in workerd against the real worker.
 */

export type RulesCommand =
  | { action: "publish"; file: string; document: unknown; expect?: string }
  | { action: "rollback"; version?: string; expect?: string }
  | { action: "list" }
  | { action: "show" };

/** The document refused by the worker's checks: `FILE: discounts[2].value: …`, exit 2 like any bad input file. */
export class RulesFileError extends Error {
  constructor(file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = "RulesFileError";
  }
}

/** The operator surface said the live rules are not the version this command expected (412). */
export class RulesMovedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RulesMovedError";
  }
}

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

interface Live {
  version: string;
  document: RulesDocument;
}

interface ErrorBody {
  error?: { message?: string; code?: string; param?: string };
}

/** Calls `/api/v1/operator/rules` of one worker with the operator secret. */
export class RulesClient {
  readonly #base: string;
  readonly #secret: string;
  readonly #fetch: FetchLike;

  constructor(baseUrl: string, secret: string, fetchFn: FetchLike = (input, init) => fetch(input, init)) {
    this.#base = `${baseUrl.replace(/\/+$/, "")}/api/v1/operator/rules`;
    this.#secret = secret;
    this.#fetch = fetchFn;
  }

  /** The live document and its version, or null when none was published. */
  async live(): Promise<Live | null> {
    const res = await this.#call("", { method: "GET" });
    if (res.status === 404) return null;
    return this.#live(res);
  }

  /** Publishes `document`; `ifMatch` is the version the caller read (null: none was live). */
  async publish(document: unknown, ifMatch: string | null): Promise<Live> {
    const res = await this.#call("", {
      method: "PUT",
      headers: { "Content-Type": "application/json", ...(ifMatch === null ? {} : { "If-Match": `"${ifMatch}"` }) },
      body: JSON.stringify(document),
    });
    return this.#live(res);
  }

  async history(): Promise<RulesHistory> {
    const res = await this.#call("/versions", { method: "GET" });
    if (!res.ok) throw await this.#error(res);
    return (await res.json()) as RulesHistory;
  }

  async rollback(version: string | undefined, ifMatch: string | undefined): Promise<Live> {
    const res = await this.#call("/rollback", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(ifMatch === undefined ? {} : { "If-Match": `"${ifMatch}"` }) },
      body: JSON.stringify(version === undefined ? {} : { version }),
    });
    return this.#live(res);
  }

  #call(path: string, init: RequestInit): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("Authorization", `Bearer ${this.#secret}`);
    return this.#fetch(`${this.#base}${path}`, { ...init, headers });
  }

  async #live(res: Response): Promise<Live> {
    if (!res.ok) throw await this.#error(res);
    return {
      version: (res.headers.get("etag") ?? "").replace(/"/g, ""),
      document: (await res.json()) as RulesDocument,
    };
  }

  async #error(res: Response): Promise<Error> {
    const body = (await res.json().catch(() => null)) as ErrorBody | null;
    const message = body?.error?.message ?? `HTTP ${res.status}`;
    const error = new OperatorError(res.status, message);
    return Object.assign(error, { code: body?.error?.code, param: body?.error?.param });
  }
}

/** A count with thousands separators (`1,000 discounts`), through src/count.ts like every other. */
function plural(n: number, one: string): string {
  return count(n, one, `${one}s`, n.toLocaleString("en-US"));
}

/** `4 discounts (2 with a code), 1 shipping zone, tax exclusive`. */
function summary(document: RulesDocument): string {
  const s = summarize(document);
  return [
    `${plural(s.discounts, "discount")}${s.discounts > 0 ? ` (${s.codes} with a code)` : ""}`,
    plural(s.zones, "shipping zone"),
    s.tax === null ? "no tax" : `tax ${s.tax}`,
  ].join(", ");
}

/** What `show` prints of a document: each discount, each zone with its rates, the tax. */
function describeDocument(document: RulesDocument): string[] {
  const lines: string[] = [];
  const discounts = document.discounts ?? [];
  lines.push(`Discounts (${discounts.length}):`);
  for (const d of discounts) {
    const value =
      d.kind === "percentage"
        ? ` ${d.value}%`
        : d.kind === "fixed_amount"
          ? ` ${d.value}${d.per_item ? " per item" : ""}`
          : "";
    const limits = [
      d.minimum_subtotal !== undefined ? `min subtotal ${d.minimum_subtotal}` : "",
      d.minimum_quantity !== undefined ? `min ${plural(d.minimum_quantity, "unit")}` : "",
      d.starts_at !== undefined ? `from ${d.starts_at}` : "",
      d.ends_at !== undefined ? `until ${d.ends_at}` : "",
      d.usage_limit !== undefined ? `limit ${plural(d.usage_limit, "use")}` : "",
      d.once_per_buyer ? "once per buyer" : "",
    ].filter(Boolean);
    // Uses (committed, held, left) join this line once the usage counters exist (contract 10.3).
    lines.push(
      `  ${d.id}  ${d.code === undefined ? "automatic" : `code ${d.code}`}  ${d.kind}${value}  ${JSON.stringify(d.title)}${limits.length > 0 ? `  (${limits.join(", ")})` : ""}`,
    );
  }
  const zones = document.shipping?.zones ?? [];
  lines.push(`Shipping zones (${zones.length}):`);
  for (const zone of zones)
    lines.push(
      `  ${zone.name} (${zone.countries.join(", ")}): ${zone.rates.map((r) => `${r.id} ${r.price}`).join(", ")}`,
    );
  const tax = document.tax;
  lines.push(
    tax === undefined
      ? "Tax: none"
      : `Tax: ${tax.mode}, ${plural(tax.rates?.length ?? 0, "rate")}, shipping ${tax.shipping_taxable ? "taxed" : "not taxed"}`,
  );
  return lines;
}

/** Runs a parsed command and returns the lines to print. */
export async function runRulesCommand(command: RulesCommand, client: RulesClient): Promise<string[]> {
  try {
    return await run(command, client);
  } catch (error) {
    if (!(error instanceof OperatorError)) throw error;
    const code = (error as OperatorError & { code?: string }).code;
    if (command.action === "publish" && error.status === 400 && code !== "invalid_json")
      throw new RulesFileError(command.file, error.message);
    if (code === "rules_version_mismatch")
      throw new RulesMovedError(
        `${error.message.split(":")[0]}. Nothing changed: see npm run rules -- show, then run again.`,
      );
    throw error;
  }
}

async function run(command: RulesCommand, client: RulesClient): Promise<string[]> {
  switch (command.action) {
    case "show": {
      const live = await client.live();
      if (!live) return ["No rules are published: no discounts, no shipping charges, no tax."];
      const entry = (await client.history()).data.findLast((e) => e.version === live.version);
      return [
        `Live rules ${live.version}${entry ? ` (${entry.action === "publish" ? "published" : "rolled back to"} ${entry.at})` : ""}: ${summary(live.document)}.`,
        ...describeDocument(live.document),
      ];
    }
    case "list": {
      const history = await client.history();
      if (history.count === 0) return ["No rules were ever published."];
      return history.data.map((e) => {
        const what = e.kept
          ? `${plural(e.discounts ?? 0, "discount")}, ${plural(e.zones ?? 0, "zone")}, ${e.tax === null ? "no tax" : `tax ${e.tax}`}`
          : "document deleted by a cleanup";
        return `${e.live ? "*" : " "} ${String(e.seq).padStart(3)}  ${e.at}  ${e.action.padEnd(8)}  ${e.version}  ${e.from === null ? "(first)" : `from ${e.from}`}  ${what}`;
      });
    }
    case "rollback": {
      const before = command.expect ?? (await client.live())?.version;
      const live = await client.rollback(command.version, command.expect);
      return [
        `Rolled back: rules ${live.version} are live again (were ${before ?? "none"}): ${summary(live.document)}.`,
      ];
    }
    case "publish": {
      // Without --expect, whatever is live now is what this publish replaces (read just before).
      const before = command.expect ?? (await client.live())?.version ?? null;
      const live = await client.publish(command.document, before);
      if (live.version === before)
        return [`Unchanged: rules ${live.version} are already live with this document (${command.file}).`];
      return [
        `Published rules ${live.version} from ${command.file}${before === null ? "" : ` (replacing ${before})`}: ${summary(live.document)}.`,
      ];
    }
  }
}
