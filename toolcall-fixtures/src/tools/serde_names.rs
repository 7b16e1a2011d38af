//! Wire names from serde attributes read once, for both directions: `rename_all_fields`
//! on an enum, `rename_all` and `rename` that differ between serializing and
//! deserializing. The input schema and the decoder use the deserialize names; the result
//! is serialized by serde with the serialize names.

use serde::{Deserialize, Serialize};

/// Something to put in the calendar.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all_fields = "camelCase")]
pub enum Event {
    /// A meeting in a room.
    Meeting {
        /// When it starts.
        start_time: String,
        /// Where.
        room_name: String,
    },
    /// A phone call; its own `rename_all` wins over `rename_all_fields`.
    #[serde(rename_all = "kebab-case")]
    Call {
        /// Whom to call.
        phone_number: String,
    },
}

/// Who to tell.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all(serialize = "SCREAMING_SNAKE_CASE", deserialize = "camelCase"))]
pub struct Contact {
    /// Their name.
    pub full_name: String,
    /// Where to write.
    #[serde(rename(deserialize = "mail"))]
    pub email_address: String,
}

/// Put an event in the calendar and say who is told.
///
/// # Arguments
///
/// * `event` - what happens
/// * `contact` - who is told
pub fn schedule(event: Event, contact: Contact) -> Contact {
    let _ = event;
    contact
}
