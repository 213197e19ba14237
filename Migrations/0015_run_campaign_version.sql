-- The campaign version each run sends, frozen when the run starts: with approvals on it is the
-- version a publisher approved, and the report and the runs API say which one went out.
ALTER TABLE runs ADD COLUMN campaign_version integer;

-- With approvals on, an approval lets a held campaign's run start: it wakes the schedulers too.
DROP TRIGGER campaigns_schedule_changed ON campaigns;
CREATE TRIGGER campaigns_schedule_changed
    AFTER INSERT OR UPDATE OF next_run_at, status, approval, approved_version ON campaigns
    FOR EACH ROW WHEN (NEW.status = 'scheduled' AND NEW.next_run_at IS NOT NULL)
    EXECUTE FUNCTION herald_notify_schedule();
