import type { IssuedToken, TokenList, TokenRecord } from "./api.ts";

/**
 * The token CLI's logic without Node: argument parsing and a client of the operator surface.
 * Kept free of Node APIs so the tests run it in workerd against the real worker.
 */

export type TokenAction = "issue" | "revoke" | "rotate" | "list";

export interface TokenCommand {
  action: TokenAction;
  target: "local" | "remote";
  label?: string;
  id?: string;
  url?: string;
  /** Local state directory for the dev server this command may start (wrangler's --persist-to). */
  persistTo?: string;
}

/** A mistake in the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export const USAGE = `Usage: npm run token -- <issue|revoke|rotate|list> [--local|--remote] [--label NAME] [--id TOKEN_ID] [--url URL] [--persist-to DIR]

  issue   [--label NAME]   issue a token for a new holder (new, empty cart); prints the token once
  revoke  --id TOKEN_ID    revoke a token; its next cart request fails
  rotate  --id TOKEN_ID    new token for the same holder (the cart carries over); the old one is revoked
  list                     list token records (never tokens or hashes)

  --local   (default) the running dev server at --url (default http://localhost:8787), or, when
            none answers, a dev server started for this one command on the same local state
            (.wrangler/state, or --persist-to DIR)
  --remote  the deployed worker at --url (or STOREFRONT_URL); needs OPERATOR_SECRET in the environment`;

const ACTIONS: readonly string[] = ["issue", "revoke", "rotate", "list"];

/** Parses `npm run token -- …` arguments. */
export function parseTokenArgs(argv: readonly string[]): TokenCommand {
  const [action, ...rest] = argv;
  if (!action || !ACTIONS.includes(action)) throw new UsageError(`Unknown or missing command: ${action ?? "(none)"}`);
  const command: TokenCommand = { action: action as TokenAction, target: "local" };
  let targets = 0;
  for (let i = 0; i < rest.length; i += 1) {
    const flag = rest[i];
    const [name, inline] = flag?.startsWith("--") && flag.includes("=") ? [flag.slice(0, flag.indexOf("=")), flag.slice(flag.indexOf("=") + 1)] : [flag, undefined];
    const value = (): string => {
      const v = inline ?? rest[++i];
      if (v === undefined || v === "") throw new UsageError(`${name} needs a value`);
      return v;
    };
    switch (name) {
      case "--local":
      case "--remote":
        command.target = name === "--local" ? "local" : "remote";
        targets += 1;
        break;
      case "--label":
        command.label = value();
        break;
      case "--id":
        command.id = value();
        break;
      case "--url":
        command.url = value();
        break;
      case "--persist-to":
        command.persistTo = value();
        break;
      default:
        throw new UsageError(`Unknown option: ${flag}`);
    }
  }
  if (targets > 1) throw new UsageError("Give --local or --remote, not both.");
  if ((command.action === "revoke" || command.action === "rotate") && !command.id) {
    throw new UsageError(`${command.action} needs --id TOKEN_ID (see: npm run token -- list)`);
  }
  if (command.target === "remote" && command.persistTo !== undefined) throw new UsageError("--persist-to applies to --local only.");
  if (command.action !== "issue" && command.label !== undefined) throw new UsageError("--label applies to issue only.");
  return command;
}

/** A non-2xx answer from the operator surface, with the envelope's message (never a token). */
export class OperatorError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "OperatorError";
    this.status = status;
  }
}

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Calls `/api/v1/operator/tokens` of one worker with the operator secret. */
export class OperatorClient {
  readonly #base: string;
  readonly #secret: string;
  readonly #fetch: FetchLike;

  constructor(baseUrl: string, secret: string, fetchFn: FetchLike = (input, init) => fetch(input, init)) {
    this.#base = `${baseUrl.replace(/\/+$/, "")}/api/v1/operator/tokens`;
    this.#secret = secret;
    this.#fetch = fetchFn;
  }

  issue(label?: string): Promise<IssuedToken> {
    return this.#call("", "POST", label === undefined ? {} : { label });
  }

  async list(): Promise<TokenRecord[]> {
    return (await this.#call<TokenList>("", "GET")).data;
  }

  revoke(id: string): Promise<TokenRecord> {
    return this.#call(`/${encodeURIComponent(id)}/revoke`, "POST");
  }

  rotate(id: string): Promise<IssuedToken> {
    return this.#call(`/${encodeURIComponent(id)}/rotate`, "POST");
  }

  async #call<T>(path: string, method: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.#secret}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await this.#fetch(`${this.#base}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const payload = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    if (!res.ok) throw new OperatorError(res.status, payload?.error?.message ?? `HTTP ${res.status}`);
    return payload as T;
  }
}

/** Runs one parsed command against a client and returns the lines to print. */
export async function runTokenCommand(command: TokenCommand, client: OperatorClient): Promise<string[]> {
  const describe = (r: TokenRecord) =>
    `${r.id}  holder=${r.holder}  label=${JSON.stringify(r.label)}  created=${r.created_at}  ${r.revoked_at ? `revoked=${r.revoked_at}` : "active"}`;
  switch (command.action) {
    case "issue": {
      const issued = await client.issue(command.label);
      return [`Issued ${describe(issued)}`, "The token is shown this once. Store it now:", issued.token];
    }
    case "rotate": {
      const issued = await client.rotate(command.id ?? "");
      return [`Rotated ${command.id} (now revoked) into ${describe(issued)}`, "The new token is shown this once. Store it now:", issued.token];
    }
    case "revoke": {
      const record = await client.revoke(command.id ?? "");
      return [`Revoked ${describe(record)}`];
    }
    case "list": {
      const records = await client.list();
      return records.length === 0 ? ["No tokens."] : records.map(describe);
    }
  }
}
