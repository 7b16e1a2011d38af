-- A note written with a client's idempotency key keeps it: a retry with the same key
-- finds the note instead of writing it again. Notes without a key (NULL) are never
-- equal to each other, so the unique index holds only for keyed ones.
ALTER TABLE notes ADD COLUMN idempotency_key TEXT;
CREATE UNIQUE INDEX IF NOT EXISTS notes_by_idempotency_key ON notes (owner, idempotency_key);
