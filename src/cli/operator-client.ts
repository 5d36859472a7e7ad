import type { IssuedToken, ShopperRevocation, TokenList, TokenRecord } from "../auth/api.ts";

/**
 * The token CLI's logic without Node: the parsed command and a client of the operator surface
 * (argument parsing lives in `src/cli/token.ts`). Kept free of Node APIs so the tests run it in
 * workerd against the real worker.
 */

export type TokenAction = "issue" | "revoke" | "rotate" | "list";

export interface TokenCommand {
  action: TokenAction;
  target: "local" | "remote";
  label?: string;
  id?: string;
  /** revoke by the token itself: its SHA-256 (hex), computed on the operator's machine. Never the token. */
  tokenSha256?: string;
  /** revoke a shopper token (`sf_cart_…`): the holder it names, read on the operator's machine. Never the token. */
  shopperHolder?: string;
  url?: string;
  /** Local state directory for the dev server this command may start (wrangler's --persist-to). */
  persistTo?: string;
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

  /** Revokes the token whose SHA-256 this is; the token itself is never sent. */
  revokeByHash(tokenSha256: string): Promise<TokenRecord> {
    return this.#call("/revoke", "POST", { token_sha256: tokenSha256 });
  }

  /** Revokes a shopper token by the holder it names; its signature is never sent. */
  revokeShopper(holder: string): Promise<ShopperRevocation> {
    return this.#call("/revoke-shopper", "POST", { holder });
  }

  /**
   * Rotates with a fresh Idempotency-Key, sent again on the one retry after a lost connection,
   * so a rotation whose answer was lost hands over its token instead of failing as already done.
   */
  async rotate(id: string): Promise<IssuedToken> {
    const key = crypto.randomUUID();
    const path = `/${encodeURIComponent(id)}/rotate`;
    try {
      return await this.#call(path, "POST", undefined, key);
    } catch (error) {
      if (error instanceof OperatorError) throw error;
      return this.#call(path, "POST", undefined, key);
    }
  }

  async #call<T>(path: string, method: string, body?: unknown, idempotencyKey?: string): Promise<T> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.#secret}` };
    if (idempotencyKey !== undefined) headers["Idempotency-Key"] = idempotencyKey;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await this.#fetch(`${this.#base}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const payload = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    if (!res.ok) throw new OperatorError(res.status, payload?.error?.message ?? `HTTP ${res.status}`);
    return payload as T;
  }
}

/** Runs one parsed command against a client and returns the lines to print. */
export async function runTokenCommand(command: TokenCommand, client: OperatorClient): Promise<string[]> {
  const describe = (r: TokenRecord) =>
    `${r.id}  holder=${r.holder}  label=${JSON.stringify(r.label)}  created=${r.created_at}  ` +
    `${r.revoked_at ? `revoked=${r.revoked_at}` : "active"}`;
  switch (command.action) {
    case "issue": {
      const issued = await client.issue(command.label);
      return [`Issued ${describe(issued)}`, "The token is shown this once. Store it now:", issued.token];
    }
    case "rotate": {
      const issued = await client.rotate(command.id ?? "");
      return [
        `Rotated ${command.id} (now revoked) into ${describe(issued)}`,
        "The new token is shown this once. Store it now:",
        issued.token,
      ];
    }
    case "revoke": {
      if (command.shopperHolder !== undefined) {
        const revoked = await client.revokeShopper(command.shopperHolder);
        return [
          `Revoked the shopper token of holder=${revoked.holder} (and every token renewed from it) ` +
            `at ${revoked.revoked_at}: its cart refuses it from the next request.`,
        ];
      }
      const record =
        command.tokenSha256 !== undefined
          ? await client.revokeByHash(command.tokenSha256)
          : await client.revoke(command.id ?? "");
      return [`Revoked ${describe(record)}`];
    }
    case "list": {
      const records = await client.list();
      return records.length === 0 ? ["No tokens."] : records.map(describe);
    }
  }
}
