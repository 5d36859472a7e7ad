interface RouteEntry {
  method: string;
  path: string;
}

function compilePattern(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => {
      if (segment === "*") return ".*";
      if (segment.startsWith(":")) return "[^/]+";
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  // Exact, like Hono's strict router: `/products/` is not `/products`.
  return new RegExp(`^${source}$`);
}

/**
 * Which methods each path answers, read from the app's own routes once they are mounted. The 405
 * `Allow` header and the CORS preflight's `Access-Control-Allow-Methods` both come from here, so
 * neither can drift from the routes.
 */
export class RouteTable {
  #routes: { method: string; pattern: RegExp }[] = [];

  load(routes: readonly RouteEntry[]): void {
    this.#routes = routes
      .filter((r) => r.method !== "ALL" && r.method !== "OPTIONS")
      .map((r) => ({ method: r.method, pattern: compilePattern(r.path) }));
  }

  /** The methods `path` answers (with HEAD wherever GET is, and OPTIONS), or [] for an unknown path. */
  allowedMethods(path: string): string[] {
    const allow = new Set<string>();
    for (const route of this.#routes) if (route.pattern.test(path)) allow.add(route.method);
    if (allow.size === 0) return [];
    if (allow.has("GET")) allow.add("HEAD");
    allow.add("OPTIONS");
    return [...allow].sort();
  }
}
