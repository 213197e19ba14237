-- One-call sends (POST /api/v1/sends): an internal tool sends one message to a few devices now.
-- An inline message becomes a campaign of its own, marked so that the campaign list leaves it out
-- (it is found by its id, and its run reports as any run). A key of the `sends` scope may make
-- such sends and read them, nothing else.
ALTER TABLE campaigns ADD COLUMN one_call boolean NOT NULL DEFAULT false;
ALTER TABLE api_keys DROP CONSTRAINT api_keys_scope_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_scope_check CHECK (scope IN ('full', 'events', 'devices', 'sends'));
