/**
 * The real KV binding with every `get` recorded: a count of reads, not a mock (each read still
 * goes to the binding).
 */
export function countingKv(kv: KVNamespace): { kv: KVNamespace; reads: string[] } {
  const reads: string[] = [];
  const proxy = new Proxy(kv, {
    get(target, prop) {
      if (prop === "get") {
        return (key: string, ...rest: unknown[]) => {
          reads.push(key);
          return (target.get as (...a: unknown[]) => unknown)(key, ...rest);
        };
      }
      const value: unknown = Reflect.get(target, prop);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { kv: proxy, reads };
}
