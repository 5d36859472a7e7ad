/**
 * What the importer says about a file it cannot take. Every problem names where it is, so an
 * operator can open the export at that spot: a CSV line and column (the field number, with its
 * header), or a JSON line and character column (with the JSON path).
 */

/** One problem, located in the source file. */
export interface ImportIssue {
  /** 1-based line of the file. */
  line?: number;
  /** 1-based: the CSV field number, or the JSON character column. */
  column?: number;
  /** The CSV header of that column (`Variant Price`). */
  header?: string;
  /** The JSON path (`products[2].variants[0].price`). */
  path?: string;
  message: string;
}

/** At most this many problems are listed; the rest are counted. */
export const MAX_ISSUES = 20;

export function formatIssue(file: string, issue: ImportIssue): string {
  let where = file;
  if (issue.line !== undefined) where += ` line ${issue.line}`;
  if (issue.column !== undefined) where += `${issue.line !== undefined ? "," : ""} column ${issue.column}`;
  if (issue.header !== undefined) where += ` ${JSON.stringify(issue.header)}`;
  if (issue.path !== undefined) where += ` (${issue.path})`;
  return `${where}: ${issue.message}`;
}

/**
 * The file is malformed: nothing was imported and nothing may be published. `issues` are in file
 * order; `more` counts those left out after MAX_ISSUES.
 */
export class ImportError extends Error {
  readonly file: string;
  readonly issues: ImportIssue[];
  readonly more: number;
  constructor(file: string, issues: ImportIssue[], more = 0) {
    const lines = issues.map((issue) => formatIssue(file, issue));
    if (more > 0) lines.push(`... and ${more} more`);
    super(
      lines.length === 1 ? (lines[0] ?? "") : `${file} has ${issues.length + more} problems:\n  ${lines.join("\n  ")}`,
    );
    this.name = "ImportError";
    this.file = file;
    this.issues = issues;
    this.more = more;
  }
}

/** Collects issues while a file is read, so one run lists every problem (up to MAX_ISSUES). */
export class IssueList {
  readonly items: ImportIssue[] = [];
  private extra = 0;
  add(issue: ImportIssue): void {
    if (this.items.length < MAX_ISSUES) this.items.push(issue);
    else this.extra += 1;
  }
  get count(): number {
    return this.items.length + this.extra;
  }
  /** Throws an ImportError when anything was found. */
  throwIfAny(file: string): void {
    if (this.count === 0) return;
    const sorted = [...this.items].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
    throw new ImportError(file, sorted, this.extra);
  }
}
