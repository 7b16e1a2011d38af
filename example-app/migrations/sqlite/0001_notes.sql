-- The notes, by owner. IF NOT EXISTS: a database made before versioned migrations has
-- them already, and is recorded at version 1.
CREATE TABLE IF NOT EXISTS notes (
    id    INTEGER PRIMARY KEY AUTOINCREMENT,
    owner INTEGER NOT NULL,
    text  TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS notes_by_owner ON notes (owner, id);
