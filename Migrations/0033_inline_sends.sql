-- With approvals on (HERALD_APPROVALS), nothing reaches a device that a second person did not
-- approve, except what an admin exempted on purpose: an API key allowed to send inline
-- transactional one-call messages (an order service's receipts). Set when the key is created,
-- audited with it, shown in the keys list.
ALTER TABLE api_keys ADD COLUMN inline_sends boolean NOT NULL DEFAULT false;
