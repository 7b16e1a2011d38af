//! `#[serde(alias = "..")]`: a field or variant is also read under each alias, by both
//! decoders (the one-pass fast decoder and the exact one), as serde reads it. The schema
//! shows the main name only. A field given under two of its names is refused, as serde
//! refuses a duplicate field. Every type derives `Deserialize` as well, so tests can
//! compare with serde's own decoding; the build still writes the decoders.
//!
//! The aliases are old spellings a client may still send; none is a lowercase word of at
//! most six letters, so the agreement tests' random keys never hit one by chance (the IR
//! those tests compare with does not know aliases: see RELIABILITY.md).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A brush: every field fast, so the one-pass decoder reads it.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Brush {
    /// Its colour; once sent as `hex_colour`.
    #[serde(alias = "hex_colour")]
    pub colour: String,
    /// Line width in pixels, under either of two older names.
    #[serde(alias = "stroke_width", alias = "lineWidth")]
    pub width: u32,
    /// How lines end: `lineCap`, or its snake_case spelling (aliases are not renamed).
    #[serde(alias = "line_cap")]
    pub line_cap: String,
    /// Opacity in percent, 100 when absent.
    #[serde(default = "full", alias = "opacity_pct")]
    pub opacity: u8,
    /// A label, if any.
    #[serde(alias = "caption_text")]
    pub label: Option<String>,
}

fn full() -> u8 {
    100
}

/// A labelled record: its map field keeps it from the fast decoder (exact decoder only).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Its name; once `display_name`.
    #[serde(alias = "display_name")]
    pub name: String,
    /// Free labels; once `metadata`.
    #[serde(alias = "metadata")]
    pub labels: BTreeMap<String, String>,
    /// How many; once `quantity`, 0 when absent.
    #[serde(default, alias = "quantity")]
    pub count: u32,
}

/// A tone: unit variants only, externally tagged, so the fast decoder reads it.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub enum Tone {
    /// Grey, in either spelling.
    #[serde(alias = "Grey")]
    Gray,
    /// Black.
    Black,
}

/// A fill, externally tagged, with unit, newtype and struct variants aliased.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub enum Fill {
    /// One colour.
    #[serde(alias = "Flat")]
    Solid(String),
    /// From one colour to another.
    #[serde(alias = "Ramp")]
    Gradient {
        /// The first colour.
        from: String,
        /// The last colour.
        to: String,
    },
    /// No fill.
    #[serde(alias = "Clear")]
    Empty,
}

/// A mark, internally tagged by `type`.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Mark {
    /// A point.
    #[serde(alias = "Dot")]
    Point {
        /// Where.
        x: i32,
    },
    /// No mark.
    #[serde(alias = "Nothing")]
    Blank,
}

/// A step, adjacently tagged by `t` and `c`.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", content = "c")]
pub enum Step {
    /// Move by this much.
    #[serde(alias = "Shift")]
    Move(i32),
    /// Turn to a heading.
    #[serde(alias = "Rotate")]
    Turn {
        /// Degrees.
        degrees: u16,
    },
    /// Stop.
    #[serde(alias = "Halt")]
    Stop,
}

/// Returns the brush as decoded (the fast decoder's struct).
///
/// # Arguments
///
/// * `brush` - the brush
pub fn paint_brush(brush: Brush) -> Brush {
    brush
}

/// Returns the record as decoded (the exact decoder's struct).
///
/// # Arguments
///
/// * `record` - the record
pub fn labelled_record(record: Record) -> Record {
    record
}

/// Returns the tones as decoded.
///
/// # Arguments
///
/// * `tone` - one tone
/// * `more` - more of them
pub fn tones(tone: Tone, more: Vec<Tone>) -> (Tone, Vec<Tone>) {
    (tone, more)
}

/// Returns the enums as decoded, one per tagging.
///
/// # Arguments
///
/// * `fill` - externally tagged
/// * `mark` - internally tagged
/// * `step` - adjacently tagged
pub fn aliased_variants(fill: Fill, mark: Mark, step: Step) -> (Fill, Mark, Step) {
    (fill, mark, step)
}
