import { TokenStore } from "../auth/token-store.ts";

/**
 * The two tokens local development ships with. They are seeded into local state only, and any
 * worker whose ENVIRONMENT is not `development` refuses every `sf_dev_` token, so they are
 * useless against a deployed worker even if they leak from the README.
 */
export const DEV_TOKENS = [
  { token: "sf_dev_LocalToken_A1", id: "tok_dev_A1", holder: "hld_dev_A1", label: "development A1" },
  { token: "sf_dev_LocalToken_B2", id: "tok_dev_B2", holder: "hld_dev_B2", label: "development B2" },
] as const;

/** Which dev tokens work in this local state, and the ids of those that were revoked. */
export interface DevTokenState {
  working: string[];
  revokedIds: string[];
}

/**
 * Seeds the development tokens into `env.TOKENS` (local state, via `openLocalEnv`). Idempotent:
 * a token already present is left as it is, revoked or not, so `npm run dev` can run it every
 * time; the answer says which ones work, so only those are announced.
 */
export async function seedDevTokens(env: Pick<Env, "TOKENS">): Promise<DevTokenState> {
  const store = new TokenStore(env.TOKENS);
  const state: DevTokenState = { working: [], revokedIds: [] };
  for (const { token, id, holder, label } of DEV_TOKENS) {
    await store.seed(token, { id, holder, label });
    const record = await store.findByToken(token);
    if (record && !record.revoked_at) state.working.push(token);
    else state.revokedIds.push(id);
  }
  return state;
}
