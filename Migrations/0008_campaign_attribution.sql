-- Who made each version of a campaign: the user (by e-mail) or the API key (by name) whose write
-- produced the current content, so pages and the API can credit edits to the right actor rather
-- than to whoever happens to be signed in.
--
-- `version` and `updated_at` now count content writes only: scheduling, cancelling and the
-- scheduler's status moves (sending → sent) change `status`, not the version a client holds in
-- If-Match, so a cancel with the ETag just read is answered on its merits, not with 412.
ALTER TABLE campaigns ADD COLUMN updated_by text;
ALTER TABLE campaigns ADD COLUMN updated_by_kind text CHECK (updated_by_kind IN ('user', 'api_key', 'command_line'));

-- Rows written before attribution was kept were last changed by their author, as far as we know.
UPDATE campaigns SET updated_by = author,
    updated_by_kind = CASE WHEN author LIKE 'api-key:%' THEN 'api_key'
                           WHEN author LIKE 'cli:%' THEN 'command_line' ELSE 'user' END
WHERE author IS NOT NULL;
