-- The review page said "Last decision by ana@…" without the decision: once a rejected campaign is
-- resubmitted (or an approved one edited), its state no longer tells whether the kept decision
-- approved or rejected it. The decision is now kept beside the decider and the comment.
ALTER TABLE campaigns ADD COLUMN approval_decision text CHECK (approval_decision IN ('approved', 'rejected'));
UPDATE campaigns SET approval_decision = approval
    WHERE approval IN ('approved', 'rejected') AND approval_decided_by IS NOT NULL;
