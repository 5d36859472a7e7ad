-- Order events out (contract 10.7): the outbox. Each event is written in the same batch as its
-- order (src/checkout/orders.ts), so an order never exists without its events, then handed to the
-- ORDER_EVENTS queue; the consumer (src/checkout/event-delivery.ts) records each attempt here.
-- Written only while ORDER_WEBHOOK_URL is set. Append-only: add the next number.
CREATE TABLE order_events (
  -- evt_ + a digest of the order id and the type: the same id on every retry and every re-write.
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL CHECK (type IN ('order.created', 'order.payment_mismatch')),
  order_id TEXT NOT NULL REFERENCES orders (id),
  created_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  -- When the next delivery is due (ms); NULL once delivered or given up (3 days after created_at).
  next_attempt_at INTEGER,
  -- Which queue message is current: a re-drive bumps it, and a message carrying an older number
  -- is acknowledged without a delivery, so a lost-and-found message never doubles the retries.
  send INTEGER NOT NULL DEFAULT 0,
  delivered_at INTEGER
);

-- What `orders -- events` lists (newest first) and the re-drive reads: the undelivered only.
CREATE INDEX order_events_undelivered ON order_events (created_at DESC, id DESC) WHERE delivered_at IS NULL;
CREATE INDEX order_events_by_order ON order_events (order_id);
