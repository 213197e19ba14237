-- With approvals on (HERALD_APPROVALS), test messages reach only the devices an admin listed
-- here: a test send is content no second person approved, so its audience is the one door an
-- admin opens on purpose (each addition and removal is in the audit log).
CREATE TABLE test_devices (
    token text PRIMARY KEY,
    kind text NOT NULL DEFAULT 'token' CHECK (kind IN ('token', 'fid')),
    label text NOT NULL DEFAULT '',
    added_by text NOT NULL,
    added_at timestamptz NOT NULL DEFAULT now()
);
