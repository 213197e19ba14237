-- A warehouse pulls every open and conversion (GET /api/v1/events) after a cursor: the order
-- events were recorded in, which their ids (the apps' own) do not give.
ALTER TABLE events ADD COLUMN seq bigserial;
CREATE UNIQUE INDEX events_seq ON events (seq);
CREATE INDEX events_received ON events (received_at);
