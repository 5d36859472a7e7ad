/**
 * The operator tools' one argument and usage helper, on `node:util` parseArgs. Every CLI
 * declares its options once (with their help lines), and gets the same behaviour:
 * - `--help`/`-h` anywhere before `--` prints the usage on stdout and exits 0;
 * - a mistyped option, a missing value, a value out of range: one line naming the option on
 *   stderr, a pointer to `--help`, exit 2 (never a stack trace);
 * - a broken input file: `file:line:column: what is wrong`, exit 2 (throw {@link InputError};
 *   `readJsonFile` in ./json-file.ts does for JSON);
 * - anything else that goes wrong: its message only, exit 1.
 *
 *     const cli = defineCli({
 *       command: "npm run catalog:import",
 *       args: "<file>",
 *       summary: "Turns a store's export into the project's catalog format.",
 *       positionals: { min: 1, max: 1 },
 *       options: {
 *         out: { type: "string", value: "FILE", help: "where to write the catalog" },
 *         limit: { type: "integer", value: "N", min: 1, default: 100, help: "at most N products" },
 *         publish: { type: "boolean", help: "publish it as well" },
 *       },
 *     });
 *     await runCli(cli, async () => {
 *       const { values, positionals } = cli.parse();   // values.limit: number, values.out: string | undefined
 *       const data = readJsonFile(positionals[0]!);      // ./json-file.ts: InputError with file:line:column
 *     });
 */
import { parseArgs } from "node:util";

/** A mistake in the command line: printed with a pointer to `--help`, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Where in an input file a problem is (1-based line and column). */
export interface InputLocation {
  file: string;
  line?: number;
  column?: number;
}

/** Bad input data (a file that does not parse or validate): `file:line:column: message`, exit 2. */
export class InputError extends Error {
  constructor(message: string, where?: InputLocation) {
    const prefix = where ? [where.file, where.line, where.column].filter((p) => p !== undefined).join(":") : "";
    super(prefix ? `${prefix}: ${message}` : message);
    this.name = "InputError";
  }
}

interface BaseOption {
  /** One line for `--help`. */
  help: string;
  /** A one-letter alias (`-h` is taken by --help). */
  short?: string;
}
/** `--name`: true when given. */
export interface BooleanOption extends BaseOption {
  type: "boolean";
}
/** `--name VALUE` or `--name=VALUE`. */
export interface StringOption extends BaseOption {
  type: "string";
  /** The placeholder in the usage, e.g. `FILE`. */
  value: string;
  default?: string;
  /** The only values accepted. */
  choices?: readonly string[];
}
/** `--name N`: a whole number, checked against `min`/`max` (negative values are read, then refused by `min`). */
export interface IntegerOption extends BaseOption {
  type: "integer";
  value: string;
  default?: number;
  min?: number;
  max?: number;
}
export type OptionSpec = BooleanOption | StringOption | IntegerOption;

export interface CliSpec<O extends Record<string, OptionSpec>> {
  /** How the command is run, e.g. `npm run catalog:publish`. */
  command: string;
  /** Its positional arguments in the usage line, e.g. `[file]` or `<issue|revoke|rotate|list>`. */
  args?: string;
  /** What the command does, one or two sentences. */
  summary: string;
  options: O;
  /** How many positional arguments are accepted (default: none). */
  positionals?: { min?: number; max?: number };
  /** More usage text after the options (examples, decisions worth knowing). */
  notes?: string;
}

/** The parsed value type of each declared option. */
export type CliValues<O extends Record<string, OptionSpec>> = {
  [K in keyof O]: O[K] extends BooleanOption
    ? boolean
    : O[K] extends { type: "integer"; default: number }
      ? number
      : O[K] extends IntegerOption
        ? number | undefined
        : O[K] extends { type: "string"; default: string }
          ? string
          : string | undefined;
};

export interface Cli<O extends Record<string, OptionSpec>> {
  /** The full `--help` text. */
  readonly usage: string;
  /** How to ask for it, e.g. `npm run catalog:publish -- --help`. */
  readonly helpCommand: string;
  /**
   * Parses `argv` (default: this process's arguments). `--help` prints the usage and exits 0;
   * anything wrong throws a {@link UsageError} naming the option (use {@link runCli}).
   */
  parse(argv?: readonly string[]): { values: CliValues<O>; positionals: string[] };
}

/** The usage text: the command, the summary, one aligned line per option, then the notes. */
function usageText(spec: CliSpec<Record<string, OptionSpec>>): string {
  const rows = Object.entries(spec.options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : ""}--${name}${o.type === "boolean" ? "" : ` ${o.value}`}`;
    const extra = [
      o.type === "string" && o.choices ? `one of ${o.choices.join(", ")}` : "",
      o.type === "integer" && (o.min !== undefined || o.max !== undefined) ? `${o.min ?? "…"} to ${o.max ?? "…"}` : "",
      o.type !== "boolean" && o.default !== undefined ? `default ${o.default}` : "",
    ].filter(Boolean);
    return [flag, `${o.help}${extra.length ? ` (${extra.join("; ")})` : ""}`] as const;
  });
  rows.push(["-h, --help", "print this help and exit"]);
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  const lines = [
    `Usage: ${spec.command} -- ${spec.args ? `${spec.args} ` : ""}[options]`,
    "",
    spec.summary,
    "",
    "Options:",
    ...rows.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`),
  ];
  if (spec.notes) lines.push("", spec.notes.trim());
  return `${lines.join("\n")}\n`;
}

/** Edit distance (a swap of two neighbours counts once), to suggest the option a typo meant. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  let beforePrevious = previous;
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      // Two letters swapped (--lcoal) count as one slip.
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        current[j] = Math.min(current[j]!, beforePrevious[j - 2]! + 1);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}

function suggestion(given: string, names: readonly string[]): string {
  const best = names.map((name) => ({ name, d: distance(given, name) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= Math.max(1, Math.floor(best.name.length / 3)) ? ` Did you mean --${best.name}?` : "";
}

/** Turns parseArgs' own errors into one short line that names the option. */
function usageErrorFrom(error: unknown, names: readonly string[]): UsageError {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const option = /'(-{1,2}[^' ]+)/.exec(message)?.[1] ?? "";
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return new UsageError(`Unknown option ${option}.${suggestion(option.replace(/^-+/, ""), names)}`);
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return message.includes("argument missing") || message.includes("ambiguous")
        ? new UsageError(`${option} needs a value.`)
        : new UsageError(`${option} takes no value.`);
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return new UsageError(`Unexpected argument ${/'([^']*)'/.exec(message)?.[1] ?? ""}.`);
    default:
      return new UsageError(message);
  }
}

/**
 * parseArgs reads `--products -5` as an option with its value missing. For integer options a
 * following `-<digits>` is their value, so the range check can say what is wrong with it.
 */
function joinNegativeNumbers(argv: readonly string[], integers: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === "--") return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    if (arg.startsWith("--") && integers.has(arg.slice(2)) && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i += 1;
    } else out.push(arg);
  }
  return out;
}

/** Declares a command's options once; `parse()` reads them, `usage` is its `--help`. */
export function defineCli<const O extends Record<string, OptionSpec>>(spec: CliSpec<O>): Cli<O> {
  const usage = usageText(spec);
  const names = Object.keys(spec.options);
  const integers = new Set(names.filter((name) => spec.options[name]!.type === "integer"));
  const config = Object.fromEntries(
    Object.entries(spec.options).map(([name, o]) => [
      name,
      {
        type: o.type === "boolean" ? ("boolean" as const) : ("string" as const),
        ...(o.short ? { short: o.short } : {}),
      },
    ]),
  );
  return {
    usage,
    helpCommand: `${spec.command} -- --help`,
    parse(argv = process.argv.slice(2)) {
      const end = argv.indexOf("--");
      if ((end === -1 ? argv : argv.slice(0, end)).some((arg) => arg === "--help" || arg === "-h")) {
        process.stdout.write(usage);
        process.exit(0);
      }
      let parsed;
      try {
        parsed = parseArgs({
          args: joinNegativeNumbers(argv, integers),
          options: config,
          allowPositionals: true,
          strict: true,
        });
      } catch (error) {
        throw usageErrorFrom(error, names);
      }
      const { min = 0, max = 0 } = spec.positionals ?? {};
      if (parsed.positionals.length > max) {
        throw new UsageError(
          max === 0
            ? `Unexpected argument ${parsed.positionals[0]}.`
            : `Unexpected argument ${parsed.positionals[max]} (at most ${max}).`,
        );
      }
      if (parsed.positionals.length < min) throw new UsageError(`Missing argument (${min} needed).`);
      const values: Record<string, unknown> = {};
      for (const [name, o] of Object.entries(spec.options)) {
        const raw = (parsed.values as Record<string, string | boolean | undefined>)[name];
        if (o.type === "boolean") values[name] = raw === true;
        else if (typeof raw !== "string") values[name] = o.default;
        else if (o.type === "string") {
          if (raw === "") throw new UsageError(`--${name} needs a value.`);
          if (o.choices && !o.choices.includes(raw))
            throw new UsageError(`--${name} must be one of ${o.choices.join(", ")}; got ${JSON.stringify(raw)}.`);
          values[name] = raw;
        } else {
          const n = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
          const range = `${o.min !== undefined ? ` from ${o.min}` : ""}${o.max !== undefined ? ` to ${o.max}` : ""}`;
          if (!Number.isSafeInteger(n) || (o.min !== undefined && n < o.min) || (o.max !== undefined && n > o.max)) {
            throw new UsageError(`--${name} must be a whole number${range}; got ${JSON.stringify(raw)}.`);
          }
          values[name] = n;
        }
      }
      return { values: values as CliValues<O>, positionals: parsed.positionals };
    },
  };
}

/**
 * Runs a CLI's main function and turns what it throws into a message and an exit code:
 * UsageError 2 (with a pointer to `--help`), InputError 2, anything else 1; `classify` may
 * give a domain error its own message and code. Never prints a stack trace.
 */
export async function runCli(
  cli: { helpCommand: string },
  main: () => unknown,
  classify?: (error: unknown) => { message: string; exitCode: number } | undefined,
): Promise<void> {
  try {
    await main();
  } catch (error) {
    const known = classify?.(error);
    if (known) {
      process.stderr.write(`${known.message}\n`);
      process.exitCode = known.exitCode;
    } else if (error instanceof UsageError) {
      process.stderr.write(`${error.message} Run ${cli.helpCommand} for usage.\n`);
      process.exitCode = 2;
    } else if (error instanceof InputError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  }
}
