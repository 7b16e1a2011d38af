//! Results with output schemas: what serde writes for renames, skipped fields, `Option`
//! fields with and without `skip_serializing_if`, flattened structs, tagged and untagged
//! enums, nested local types, maps, vectors and floats that can be NaN. The inputs pick
//! the shape, so generated arguments reach every branch.

use std::collections::BTreeMap;

use serde::Serialize;

/// Where the report came from.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    /// The source system.
    pub system_name: String,
    /// Its version, left out when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
}

/// Paging details, flattened into the report.
#[derive(Debug, Serialize)]
pub struct Page {
    /// The page number.
    pub page: u32,
    /// Whether more follow.
    pub more: bool,
}

/// What the report found: internally tagged.
#[derive(Debug, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Finding {
    /// Nothing to see.
    AllClear,
    /// A problem with a severity.
    Problem {
        /// 1 (low) to 5 (high).
        severity: u8,
        /// What is wrong.
        summary: String,
    },
}

/// A measurement: untagged, a number or a label.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Measure {
    /// A ratio, which can be NaN (written as `null`).
    Ratio(f64),
    /// A label.
    Label(String),
}

/// Externally tagged, with a unit variant.
#[derive(Debug, Serialize)]
pub enum Trend {
    /// Going up, by how much.
    Up(u32),
    /// Going down, by how much.
    Down(u32),
    /// Not moving.
    Flat,
}

/// The report a tool returns.
#[derive(Debug, Serialize)]
#[serde(rename_all(serialize = "camelCase"))]
pub struct Report {
    /// The title.
    pub report_title: String,
    /// Never written.
    #[serde(skip_serializing)]
    pub internal_id: u64,
    /// Written as `null` when absent.
    pub comment: Option<String>,
    /// Left out when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Where it came from.
    pub origin: Origin,
    /// Paging, merged into this object.
    #[serde(flatten)]
    pub paging: Page,
    /// What was found.
    pub finding: Finding,
    /// Measurements.
    pub measures: Vec<Measure>,
    /// Counts by key.
    pub counts: BTreeMap<String, u32>,
    /// The trend.
    pub trend: Trend,
    /// A mean that is NaN when there is nothing to average.
    pub mean: f64,
}

/// Build a report whose shape follows the inputs.
///
/// # Arguments
///
/// * `seed` - picks the branches
/// * `title` - the title
/// * `values` - the numbers to summarize
pub fn report(seed: u8, title: String, values: Vec<i32>) -> Report {
    let count = values.len();
    let sum: f64 = values.iter().map(|v| f64::from(*v)).sum();
    let pick = |n: u8| seed % n;
    Report {
        report_title: title.clone(),
        internal_id: u64::from(seed),
        comment: (pick(2) == 0).then(|| format!("{count} values")),
        owner: (pick(3) == 0).then(|| "ops".to_owned()),
        origin: Origin {
            system_name: "fixtures".to_owned(),
            version: (pick(2) == 1).then_some(u32::from(seed)),
        },
        paging: Page { page: u32::from(seed), more: pick(2) == 0 },
        finding: match pick(2) {
            0 => Finding::AllClear,
            _ => Finding::Problem { severity: 1 + pick(5), summary: title },
        },
        measures: values
            .iter()
            .map(
                |v| {
                    if v % 2 == 0 {
                        Measure::Ratio(f64::from(*v) / 2.0)
                    } else {
                        Measure::Label(v.to_string())
                    }
                },
            )
            .chain((count == 0).then_some(Measure::Ratio(f64::NAN)))
            .collect(),
        counts: values.iter().map(|v| (v.to_string(), v.unsigned_abs())).collect(),
        trend: match pick(3) {
            0 => Trend::Up(u32::from(seed)),
            1 => Trend::Down(u32::from(seed)),
            _ => Trend::Flat,
        },
        mean: sum / count as f64,
    }
}

/// A result that is not an object: no output schema.
///
/// # Arguments
///
/// * `values` - the numbers
pub fn total(values: Vec<i32>) -> i64 {
    values.iter().map(|v| i64::from(*v)).sum()
}

/// A type with its own `Serialize`: the build cannot see its shape.
#[derive(Debug)]
pub struct Opaque(pub u8);

impl Serialize for Opaque {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(self.0)
    }
}

/// Returns a hand-serialized value: no output schema, and the build says why.
pub fn opaque() -> Opaque {
    Opaque(7)
}
