-- The API key that made a one-call send (POST /api/v1/sends), so that a key of the `sends` scope
-- reads only the sends it made: GET /api/v1/sends/{id} of another caller's send answers 404, as
-- if there were none. Null for every other run, for a send made in a session, and for sends made
-- before this migration (which a `sends`-scope key then no longer reads).
ALTER TABLE runs ADD COLUMN api_key_id uuid;
