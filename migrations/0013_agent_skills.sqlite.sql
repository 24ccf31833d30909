-- A2A agent cards: the skills an admin declares for an agent (a JSON array of {id, name, description,
-- tags, examples}), null when none. The card is built from this row; the older wire format is unchanged.
ALTER TABLE users ADD COLUMN skills TEXT;
