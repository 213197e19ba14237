-- The language each user reads Herald's pages in (issue 16): one of the languages Herald's string
-- tables hold; NULL until the user picks one, and then the browser's Accept-Language decides.
ALTER TABLE users ADD COLUMN language text CHECK (language IN ('en', 'fa', 'he', 'hi', 'vi'));

-- A session's viewer carries the language, and every instance caches viewers: a change tells them
-- all, as a change of role does (migration 0007).
DROP TRIGGER users_auth_changed ON users;
CREATE TRIGGER users_auth_changed AFTER UPDATE OF role, disabled, password_hash, language OR DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION herald_auth_changed();
