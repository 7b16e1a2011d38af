//! Dates and ids: chrono and uuid types map to strings with a `format`, and a value that
//! does not parse is an `InvalidArgument` the model can correct.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use serde::Serialize;
use uuid::Uuid;

/// Count the days from one date to another (negative when `to` is earlier).
///
/// # Arguments
///
/// * `from` - the first day, e.g. "2025-01-31"
/// * `to` - the last day
pub fn days_between(from: NaiveDate, to: NaiveDate) -> i64 {
    (to - from).num_days()
}

/// A meeting on the calendar.
#[derive(Debug, Serialize)]
pub struct Meeting {
    /// The meeting's id.
    pub id: String,
    /// What it is about.
    pub title: String,
    /// When it starts, RFC 3339 in UTC.
    pub starts_at: String,
    /// The day of the week it starts on.
    pub weekday: String,
}

/// Put a meeting on the calendar.
///
/// # Arguments
///
/// * `id` - the meeting's id, chosen by the caller
/// * `title` - what it is about
/// * `starts_at` - when it starts, e.g. "2025-03-14T09:30:00Z"
pub fn schedule_meeting(id: Uuid, title: String, starts_at: DateTime<Utc>) -> Meeting {
    Meeting {
        id: id.to_string(),
        title,
        starts_at: starts_at.to_rfc3339(),
        weekday: starts_at.weekday().to_string(),
    }
}
