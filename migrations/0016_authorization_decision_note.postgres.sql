-- The note a human may leave with their decision on an authorization request (why it was approved
-- or rejected): shown wherever the request is, to exactly those who may see the request.
ALTER TABLE authorization_requests ADD COLUMN decision_note TEXT;
