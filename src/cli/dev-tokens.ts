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

/**
 * Seeds the development tokens into `env.TOKENS` (local state, via `openLocalEnv`). Idempotent:
 * a token already present is left as it is, revoked or not, so `npm run dev` can run it every time.
 */
export async function seedDevTokens(env: Pick<Env, "TOKENS">): Promise<void> {
  const store = new TokenStore(env.TOKENS);
  for (const { token, id, holder, label } of DEV_TOKENS) {
    await store.seed(token, { id, holder, label });
  }
}
