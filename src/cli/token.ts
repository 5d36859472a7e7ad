// npm run token -- <issue|revoke|rotate|list> [options]   (--help for usage)
//
// Every command goes through the worker's operator surface (/api/v1/operator/tokens), never
// straight to KV: revocation must reach the holder's cart Durable Object, and only the running
// worker can reach it. For --local with no dev server answering, this starts `wrangler dev` for
// the one command, on the same persisted local state, and stops it.
import { readFileSync } from "node:fs";
import {
  OperatorClient,
  OperatorError,
  runTokenCommand,
  type TokenAction,
  type TokenCommand,
} from "./operator-client.ts";
import { hashToken, isWellFormedToken } from "../auth/token.ts";
import { isShopperToken, shopperHolderOf } from "../auth/shopper-token.ts";
import { defineCli, runCli, UsageError } from "./args.ts";
import { type OperatorTarget, withOperator } from "./operator-target.ts";

export { remoteUrl } from "./operator-target.ts";

const cli = defineCli({
  command: "npm run token",
  args: "<issue|revoke|rotate|list>",
  summary: `Issues, lists, revokes and rotates customer tokens through the worker's operator surface.

  issue   [--label NAME]   a token for a new holder (a new, empty cart); printed this once
  list                     token records: id, holder, label, created, revoked (never a token)
  revoke  --id TOKEN_ID    revoke a token; its very next cart request fails
  revoke  --token TOKEN    revoke a leaked token you hold but whose id you do not know: only its
                           SHA-256, computed here, is sent (--token - reads it from stdin); for a
                           shopper token (sf_cart_…) only the holder it names is sent
  rotate  --id TOKEN_ID    a new token for the same holder (the cart carries over); the old one is revoked`,
  positionals: { max: 1 },
  options: {
    local: { type: "boolean", help: "the running npm run dev server (the default), or one started for this command" },
    remote: {
      type: "boolean",
      help: "the deployed worker at --url (or STOREFRONT_URL); needs OPERATOR_SECRET in the environment",
    },
    label: { type: "string", value: "NAME", help: "issue: a label for the token's record" },
    id: { type: "string", value: "TOKEN_ID", help: "revoke, rotate: the token's id (tok_…)" },
    token: {
      type: "string",
      value: "TOKEN",
      help: "revoke: the token itself (sf_live_… or a shopper's sf_cart_…); - reads it from stdin",
    },
    url: {
      type: "string",
      value: "URL",
      help:
        "the worker's address (--local default: the npm run dev server of the state, on whatever " +
        "port it chose, else http://localhost:$PORT, PORT default 8787)",
    },
    "persist-to": {
      type: "string",
      value: "DIR",
      help: "--local: the local state of a dev server started for this command",
    },
  },
  notes: `--local uses OPERATOR_SECRET from the environment or npm run dev's development value.
It finds the npm run dev server of the local state (.wrangler/state, or --persist-to DIR) on
whatever port it serves (npm run dev records it in DIR/dev-server.json). If no server answers
(and no --url was given), wrangler dev is started on that state for this one command.`,
});

const ACTIONS: readonly TokenAction[] = ["issue", "revoke", "rotate", "list"];

/** Reads the command line into a command; the token of `revoke --token` is hashed here and dropped. */
async function parseTokenCommand(argv?: readonly string[]): Promise<TokenCommand> {
  const { values, positionals } = cli.parse(argv);
  const action = positionals[0];
  if (action === undefined) throw new UsageError("Missing command: one of issue, revoke, rotate, list.");
  if (!ACTIONS.includes(action as TokenAction))
    throw new UsageError(`Unknown command ${JSON.stringify(action)}: use one of issue, revoke, rotate, list.`);
  if (values.local && values.remote) throw new UsageError("Give --local or --remote, not both.");
  const command: TokenCommand = { action: action as TokenAction, target: values.remote ? "remote" : "local" };
  if (values.url !== undefined) command.url = values.url;
  if (values["persist-to"] !== undefined) command.persistTo = values["persist-to"];
  if (values.label !== undefined) command.label = values.label;
  if (values.id !== undefined) command.id = values.id;
  if (command.action !== "issue" && values.label !== undefined) throw new UsageError("--label applies to issue only.");
  if (command.action !== "revoke" && values.token !== undefined)
    throw new UsageError("--token applies to revoke only.");
  if (command.target === "remote" && command.persistTo !== undefined)
    throw new UsageError("--persist-to applies to --local only.");
  if (command.action === "revoke") {
    if ((values.id === undefined) === (values.token === undefined))
      throw new UsageError("revoke needs --id TOKEN_ID or --token TOKEN (one of them).");
    if (values.token !== undefined) {
      const token = values.token === "-" ? readFileSync(0, "utf8").trim() : values.token;
      // Never echo it: a mistyped token is still mostly a secret.
      if (isShopperToken(token)) {
        // A shopper token is stored nowhere: it is revoked by the holder it names, read here.
        const holder = shopperHolderOf(token);
        if (holder === null)
          throw new UsageError("--token is not a whole shopper token (sf_cart_ and 106 hex digits).");
        command.shopperHolder = holder;
      } else if (!isWellFormedToken(token)) {
        throw new UsageError(
          "--token is not a storefront token (sf_live_…, sf_dev_… or sf_cart_…, letters, digits and _).",
        );
      } else {
        command.tokenSha256 = await hashToken(token);
      }
    }
  }
  if (command.action === "rotate" && values.id === undefined)
    throw new UsageError("rotate needs --id TOKEN_ID (see: npm run token -- list).");
  if ((command.action === "issue" || command.action === "list") && values.id !== undefined)
    throw new UsageError(`--id applies to revoke and rotate only.`);
  return command;
}

async function run(command: TokenCommand): Promise<string[]> {
  const target: OperatorTarget = { target: command.target };
  if (command.url !== undefined) target.url = command.url;
  if (command.persistTo !== undefined) target.persistTo = command.persistTo;
  return withOperator(target, (url, secret) => runTokenCommand(command, new OperatorClient(url, secret)));
}

await runCli(
  cli,
  async () => {
    const lines = await run(await parseTokenCommand());
    for (const line of lines) process.stdout.write(`${line}\n`);
  },
  (error) =>
    error instanceof OperatorError
      ? { message: `The operator surface answered ${error.status}: ${error.message}`, exitCode: 1 }
      : undefined,
);
