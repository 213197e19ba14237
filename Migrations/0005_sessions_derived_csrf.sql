-- A session's CSRF token is derived from its id (which only the browser holds; the table keeps
-- its SHA-256), so no token is stored: a copy of the database yields neither a session nor a
-- token to forge a form with.
ALTER TABLE sessions DROP COLUMN csrf_token;
