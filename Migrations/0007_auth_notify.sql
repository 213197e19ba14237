-- Every instance keeps the sessions and API keys it has checked for a short time, to answer
-- without a query per request. Whatever ends or changes a credential — a key revoked, a session
-- ended, a user disabled or given another role — tells every instance at once, from the database
-- itself, whichever path made the change (the pages, the API, the command line, plain SQL).
CREATE FUNCTION herald_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'api_keys' THEN
        PERFORM pg_notify('herald_auth', 'key:' || OLD.key_sha256);
    ELSIF TG_TABLE_NAME = 'sessions' THEN
        PERFORM pg_notify('herald_auth', 'session:' || OLD.id_sha256);
    ELSE
        PERFORM pg_notify('herald_auth', 'user:' || OLD.id::text);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER api_keys_auth_changed AFTER UPDATE OF revoked_at, role, scope OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION herald_auth_changed();
CREATE TRIGGER sessions_auth_changed AFTER DELETE ON sessions
    FOR EACH ROW EXECUTE FUNCTION herald_auth_changed();
-- A session cut short by hand (its end or its last activity moved back) ends at once too.
CREATE TRIGGER sessions_auth_shortened AFTER UPDATE OF expires_at, last_seen_at ON sessions
    FOR EACH ROW WHEN (NEW.expires_at < OLD.expires_at OR NEW.last_seen_at < OLD.last_seen_at)
    EXECUTE FUNCTION herald_auth_changed();
CREATE TRIGGER users_auth_changed AFTER UPDATE OF role, disabled, password_hash OR DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION herald_auth_changed();
