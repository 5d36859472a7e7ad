/**
 * One page of an ORDERS table newest first (created_at, then id, both descending: a total order,
 * so pages never skip or repeat): `limit` rows after the row `startingAfter`, among the rows
 * `where` keeps (SQL of the adapters below, its values bound as `?` from `binds`), and how many
 * rows `where` keeps in all. Null when `startingAfter` names no row. The orders and their events
 * page the same way.
 */
export async function newestFirst<Row>(
  db: D1Database,
  table: "orders" | "order_events",
  where: string,
  binds: readonly unknown[],
  limit: number,
  startingAfter?: string,
): Promise<{ count: number; rows: Row[]; has_more: boolean } | null> {
  let after = "";
  const cursor: unknown[] = [];
  if (startingAfter !== undefined) {
    const row = await db
      .prepare(`SELECT created_at, id FROM ${table} WHERE id = ?`)
      .bind(startingAfter)
      .first<{ created_at: number; id: string }>();
    if (!row) return null;
    after = " AND (created_at < ? OR (created_at = ? AND id < ?))";
    cursor.push(row.created_at, row.created_at, row.id);
  }
  const [rows, counted] = await db.batch([
    db
      .prepare(`SELECT * FROM ${table} WHERE ${where}${after} ORDER BY created_at DESC, id DESC LIMIT ?`)
      .bind(...binds, ...cursor, limit + 1),
    db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).bind(...binds),
  ]);
  const found = (rows?.results ?? []) as Row[];
  return {
    count: Number((counted?.results[0] as { n: number } | undefined)?.n ?? 0),
    rows: found.slice(0, limit),
    has_more: found.length > limit,
  };
}
