-- A streamed run reads its audience in token order from its position (`runs.plan_after`). A
-- device that moves to its FID mid-run changes its place in that order: read already under its
-- token, its FID ahead of the position would be read (and sent) again, so the run skips it here;
-- not read yet, its FID behind the position would never be read, so the move gives the run a
-- batch of it (see StreamedRunStore.followMove). Kept until the run closes.
CREATE TABLE run_skips (
    run_id uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    token  text NOT NULL,
    PRIMARY KEY (run_id, token)
);
