//! The notes in a plain `Vec`, with no SQL: the store a fuzzer or a test of millions of
//! calls uses ([`crate::app::Store::plain`]), where every query of the built-in SQLite
//! database would cost a trip to its connection's thread.
//!
//! It answers as the built-in database does, ids included (`tests/store.rs` holds the
//! two to the same answers over random sequences of writes and reads).

use crate::db::{SEED, Written, to_i64, to_u64};
use crate::models::Note;

/// The notes as the database's rows (id, owner, text, idempotency key: ids as it stores
/// them), and the id the next one gets.
#[derive(Debug)]
pub(crate) struct PlainNotes {
    rows: Vec<(i64, i64, String, Option<String>)>,
    /// Largest id ever given, as SQLite's AUTOINCREMENT remembers it.
    last_id: u64,
    seeded: bool,
}

impl PlainNotes {
    /// No notes, or the demo's when `seeded`.
    pub(crate) fn new(seeded: bool) -> PlainNotes {
        let mut notes = PlainNotes { rows: Vec::new(), last_id: 0, seeded };
        if seeded {
            for (owner, text) in SEED {
                notes.insert(*owner, text, None);
            }
        }
        notes
    }

    /// As it was made.
    pub(crate) fn reset(&mut self) {
        *self = PlainNotes::new(self.seeded);
    }

    /// `owner`'s newest notes, at most `limit`.
    pub(crate) fn notes_of(&self, owner: u64, limit: u32) -> Vec<Note> {
        let owner = to_i64(owner);
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        self.rows.iter().rev().filter(|row| row.1 == owner).take(limit).map(note).collect()
    }

    /// Writes a note for `owner`, unless `owner` has one written with the idempotency
    /// `key`: then that one, unwritten again.
    pub(crate) fn insert(&mut self, owner: u64, text: &str, key: Option<&str>) -> Written {
        let owner = to_i64(owner);
        let keyed = |row: &&(i64, i64, String, Option<String>)| {
            row.1 == owner && key.is_some() && row.3.as_deref() == key
        };
        // A write whose key was used takes an id all the same, as SQLite's AUTOINCREMENT
        // (and Postgres's identity) allots one before the conflict is found.
        self.last_id += 1;
        if let Some(row) = self.rows.iter().find(keyed) {
            return Written::Found(note(row));
        }
        let row = (to_i64(self.last_id), owner, text.to_owned(), key.map(str::to_owned));
        let written = note(&row);
        self.rows.push(row);
        Written::New(written)
    }

    /// Deletes note `id` when `owner` wrote it.
    pub(crate) fn remove(&mut self, owner: u64, id: u64) -> Option<Note> {
        let (owner, id) = (to_i64(owner), to_i64(id));
        let at = self.rows.iter().position(|row| row.0 == id && row.1 == owner)?;
        Some(note(&self.rows.remove(at)))
    }
}

/// The note a row reads as, as the database's rows read.
fn note(row: &(i64, i64, String, Option<String>)) -> Note {
    Note { id: to_u64(row.0), owner: to_u64(row.1), text: row.2.clone() }
}
