// npm run rules -- <publish FILE|list|rollback [VERSION]|show> [options]   (--help for usage)
//
// The store's rules document (contract 10.1: discounts, shipping zones, tax) through the worker's
// operator surface (/api/v1/operator/rules), never straight to storage: its one writer is a
// Durable Object reachable only through the running worker. For --local with no dev server
// answering, this starts `wrangler dev` for the one command, like npm run stock.
import { VERSION_NAME } from "../version-name.ts";
import { defineCli, runCli, UsageError } from "./args.ts";
import { readJsonFile } from "./json-file.ts";
import { OperatorError } from "./operator-client.ts";
import { type OperatorTarget, operatorTargetFrom, withOperator } from "./operator-target.ts";
import { type RulesCommand, RulesClient, RulesFileError, RulesMovedError, runRulesCommand } from "./rules-client.ts";

const VERSION = VERSION_NAME;

const cli = defineCli({
  command: "npm run rules",
  args: "<publish FILE | list | rollback [VERSION] | show>",
  summary: `Publishes, lists, rolls back and shows the store's rules document (discounts, shipping
zones and rates, tax), apart from the catalog: a new discount never republishes a product.

  publish FILE        check FILE against the live catalog's currency and publish it as a new version
                      (the same document as the live one publishes nothing)
  list                every publish and rollback, oldest first; * marks the live version
  rollback [VERSION]  make the previous version (or VERSION) live again, one pointer switch
  show                the live document: each discount, zone and rate, the tax

Carts price with a new version within 1 s where it was published (at once under npm run dev) and
within about 61 s everywhere. A mistake in FILE prints FILE: path: what is wrong (exit 2), and
nothing is published.`,
  positionals: { min: 1, max: 2 },
  options: {
    local: { type: "boolean", help: "the running npm run dev server (the default), or one started for this command" },
    remote: {
      type: "boolean",
      help: "the deployed worker at --url (or STOREFRONT_URL); needs OPERATOR_SECRET in the environment",
    },
    expect: {
      type: "string",
      value: "VERSION",
      help: "publish, rollback: refuse (nothing changed) unless VERSION is the live one (default for publish: whatever is live when it runs)",
    },
    url: {
      type: "string",
      value: "URL",
      help: "the worker's address (--local default: http://localhost:$PORT, PORT default 8787)",
    },
    "persist-to": {
      type: "string",
      value: "DIR",
      help: "--local: the local state of a dev server started for this command",
    },
  },
  notes: `--local uses OPERATOR_SECRET from the environment or npm run dev's development value.
Examples:
  npm run rules -- publish rules.json
  npm run rules -- publish rules.json --remote --url https://shop.example.workers.dev
  npm run rules -- list
  npm run rules -- rollback 20261201T090000Z-3f9a1c`,
});

function parseRulesCommand(argv?: readonly string[]): { command: RulesCommand; target: OperatorTarget } {
  const { values, positionals } = cli.parse(argv);
  const [action, arg] = positionals;
  if (values.local && values.remote) throw new UsageError("Give --local or --remote, not both.");
  if (values.expect !== undefined && !VERSION.test(values.expect))
    throw new UsageError(
      `--expect takes a rules version (npm run rules -- list); got ${JSON.stringify(values.expect)}.`,
    );
  let command: RulesCommand;
  switch (action) {
    case "publish":
      if (arg === undefined) throw new UsageError("publish needs the rules FILE (JSON).");
      command = {
        action,
        file: arg,
        document: readJsonFile(arg),
        ...(values.expect !== undefined ? { expect: values.expect } : {}),
      };
      break;
    case "rollback":
      if (arg !== undefined && !VERSION.test(arg))
        throw new UsageError(`${JSON.stringify(arg)} is not a rules version (npm run rules -- list).`);
      command = {
        action,
        ...(arg !== undefined ? { version: arg } : {}),
        ...(values.expect !== undefined ? { expect: values.expect } : {}),
      };
      break;
    case "list":
    case "show":
      if (arg !== undefined) throw new UsageError(`${action} takes no argument; got ${JSON.stringify(arg)}.`);
      if (values.expect !== undefined) throw new UsageError("--expect applies to publish and rollback only.");
      command = { action };
      break;
    default:
      throw new UsageError(`Unknown command ${JSON.stringify(action)}: use one of publish, list, rollback, show.`);
  }
  return { command, target: operatorTargetFrom(values) };
}

await runCli(
  cli,
  async () => {
    const { command, target } = parseRulesCommand();
    const lines = await withOperator(target, (url, secret) => runRulesCommand(command, new RulesClient(url, secret)));
    for (const line of lines) process.stdout.write(`${line}\n`);
  },
  (error) =>
    error instanceof RulesFileError
      ? { message: error.message, exitCode: 2 }
      : error instanceof RulesMovedError
        ? { message: error.message, exitCode: 1 }
        : error instanceof OperatorError
          ? { message: `The operator surface answered ${error.status}: ${error.message}`, exitCode: 1 }
          : undefined,
);
