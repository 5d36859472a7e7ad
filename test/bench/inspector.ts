/**
 * A tiny DevTools protocol client over Node's built-in WebSocket, for workerd's inspector
 * (Miniflare's `inspectorPort`): profile.ts takes CPU profiles with it, memory.ts heap sizes.
 */
export interface InspectorTarget {
  id?: string;
  title?: string;
  webSocketDebuggerUrl: string;
}

/** Every isolate workerd exposes: the worker's own, and each of Miniflare's simulators and helpers. */
export async function inspectorTargets(port: number): Promise<InspectorTarget[]> {
  return (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as InspectorTarget[];
}

export async function inspector(port: number, worker: string | InspectorTarget) {
  const targets = typeof worker === "string" ? await inspectorTargets(port) : [worker];
  const target =
    typeof worker === "string"
      ? (targets.find((t) => `${t.id ?? ""}${t.title ?? ""}${t.webSocketDebuggerUrl}`.includes(worker)) ?? targets[0])
      : worker;
  if (!target) throw new Error("workerd exposes no inspector target");
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", reject, { once: true });
  });
  let nextId = 1;
  const pending = new Map<number, (result: unknown) => void>();
  ws.addEventListener("message", (event) => {
    const msg = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) pending.get(msg.id)?.(msg.result);
  });
  return {
    send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
      const id = nextId++;
      ws.send(JSON.stringify({ id, method, params }));
      return new Promise<T>((resolve) => pending.set(id, resolve as (r: unknown) => void));
    },
    close: () => ws.close(),
  };
}
