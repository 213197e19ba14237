-- Journeys: messages triggered by what a user does, in steps (send, wait, branch, exit) with a goal.
--
-- App events (`POST /api/v1/events` with "event") are what users did, reported by the app or its
-- backend, idempotent by the client's id. A journey's progress reads them by device and name.
CREATE TABLE app_events (
    id text PRIMARY KEY,
    device_token text NOT NULL,
    name text NOT NULL,
    properties jsonb NOT NULL DEFAULT '{}',
    occurred_at timestamptz NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX app_events_device ON app_events (device_token, name, occurred_at);
CREATE INDEX app_events_received ON app_events (received_at);

-- A journey: its draft (the definition being edited, `version` its edit count for If-Match) and
-- the version new entrants take (`published_version`, whose entry and goal are copied here so that
-- an event, or a device stored, finds the journeys it starts or ends through an index).
CREATE TABLE journeys (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name text NOT NULL,
    status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'live', 'paused', 'stopped')),
    draft jsonb NOT NULL,
    version integer NOT NULL DEFAULT 1,
    published_version integer,
    entry_event text,
    -- Entered on joining a segment (its rule in the version's definition) as devices are stored.
    entry_joins boolean NOT NULL DEFAULT false,
    goal_event text,
    created_by text,
    updated_by text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX journeys_entry_event ON journeys (entry_event) WHERE status = 'live';
CREATE INDEX journeys_entry_joins ON journeys (id) WHERE status = 'live' AND entry_joins;
CREATE INDEX journeys_goal_event ON journeys (goal_event) WHERE status IN ('live', 'paused');
CREATE INDEX journeys_listed ON journeys (created_at DESC, id DESC);

-- Every published version, as published: devices on it finish it as it was.
CREATE TABLE journey_versions (
    journey_id uuid NOT NULL REFERENCES journeys ON DELETE CASCADE,
    version integer NOT NULL,
    definition jsonb NOT NULL,
    published_at timestamptz NOT NULL DEFAULT now(),
    published_by text,
    PRIMARY KEY (journey_id, version)
);

-- A send step's message is a campaign of the journey (hidden from the campaign list, reported as
-- any campaign is: per variant, with FCM's figures), sent through runs of kind `journey` that stay
-- open while the journey lives (`planning`) and receive a request as each device reaches the step.
ALTER TABLE campaigns ADD COLUMN journey_id uuid REFERENCES journeys ON DELETE CASCADE;
CREATE TABLE journey_sends (
    journey_id uuid NOT NULL REFERENCES journeys ON DELETE CASCADE,
    version integer NOT NULL,
    step smallint NOT NULL,
    campaign_id uuid NOT NULL REFERENCES campaigns ON DELETE CASCADE,
    PRIMARY KEY (journey_id, version, step)
);
CREATE INDEX journey_sends_campaign ON journey_sends (campaign_id);

ALTER TABLE runs DROP CONSTRAINT runs_kind_check;
ALTER TABLE runs ADD CONSTRAINT runs_kind_check
    CHECK (kind IN ('fan_out', 'devices_planned', 'devices_streamed', 'one_call', 'unplanned', 'journey'));
-- A journey's run has no audience, so the release before reads it as a one-call send's (requests
-- to devices, sent by the same rules); should it end the run's planning and close it, the next
-- device to reach the step opens another.
CREATE OR REPLACE FUNCTION runs_kind_in_step() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind IS NULL THEN
        NEW.kind := run_kind_of(NEW.per_device, NEW.streamed, NEW.audience, NEW.status, NEW.planned);
    ELSE
        NEW.per_device := NEW.kind IN ('devices_planned', 'devices_streamed', 'one_call', 'journey');
        NEW.streamed := NEW.kind = 'devices_streamed';
    END IF;
    RETURN NEW;
END
$$;
CREATE INDEX runs_open_journey ON runs (campaign_id) WHERE kind = 'journey' AND status = 'sending';

-- Where each device is in each journey it entered: a few bytes, woken by `due_at`. A device is
-- in a journey once at a time; its row stays after it leaves (`status`), for the entry rules
-- (once ever, once per N days) and the report. `listens` names what wakes a resting device early
-- (an app event's name, or `opened`/`converted` of the last message).
CREATE TABLE journey_states (
    journey_id uuid NOT NULL REFERENCES journeys ON DELETE CASCADE,
    device_token text NOT NULL,
    version integer NOT NULL,
    step smallint NOT NULL,
    since timestamptz NOT NULL,
    due_at timestamptz,
    last_send smallint,
    listens text,
    holdout boolean NOT NULL,
    status text NOT NULL CHECK (status IN ('active', 'completed', 'goal', 'stopped', 'gone')),
    entered_at timestamptz NOT NULL,
    left_at timestamptz,
    entries integer NOT NULL DEFAULT 1,
    PRIMARY KEY (journey_id, device_token)
);
-- Due places are read per live journey, in due order: a paused journey's million waiting devices
-- are never read past.
CREATE INDEX journey_states_due ON journey_states (journey_id, due_at) WHERE status = 'active';
CREATE INDEX journey_states_device ON journey_states (device_token) WHERE status = 'active';
-- The few devices resting at a wait that listens for something, found by the events that wake them
-- (a batch of events once read every place of the journey against the batch: 1.7 ms a device at 100,000).
CREATE INDEX journey_states_listening ON journey_states (device_token) WHERE status = 'active' AND listens IS NOT NULL;

-- The report's counters, written as devices move (a row per batch, never updated: instances
-- moving devices at once never wait on one counter row). `step` -1 is the journey as a whole.
CREATE TABLE journey_counts (
    journey_id uuid NOT NULL REFERENCES journeys ON DELETE CASCADE,
    version integer NOT NULL,
    step smallint NOT NULL,
    counter text NOT NULL,
    holdout boolean NOT NULL,
    n bigint NOT NULL
);
CREATE INDEX journey_counts_journey ON journey_counts (journey_id);
