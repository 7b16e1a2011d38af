//! Enum variants that hold a struct, in each of serde's taggings (#35). An internally
//! tagged newtype variant puts its struct's fields beside the tag; where the struct is a
//! `$ref` (it holds the enum again, or another parameter defined it first) the schema
//! still has to say so. serde decodes the internally tagged enums with newtype variants
//! (the generated decoder does not merge a payload with its tag), so they derive
//! `Deserialize`; every type here does, so tests can ask serde for its verdict.

use serde::{Deserialize, Serialize};

/// A folder: entries that may be folders again.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Folder {
    /// What it holds.
    pub entries: Vec<Entry>,
}

/// One entry of a folder, internally tagged: a sub-folder's `entries` sit beside `kind`.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Entry {
    /// A file.
    File {
        /// Its size in bytes.
        size: u64,
    },
    /// A folder inside the folder (recursive: the variant's struct is a `$ref`).
    Sub(Folder),
}

/// What a file is like: not recursive.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stat {
    /// Its size in bytes.
    pub size: u64,
    /// Whether it may be written, false when absent.
    #[serde(default)]
    pub read_only: bool,
    /// Who owns it, if anyone.
    pub owner: Option<String>,
}

/// An item, internally tagged by `type`: a newtype variant over a flat struct, a struct
/// variant and a unit variant.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Item {
    /// A file's details, beside the tag.
    Stat(Stat),
    /// A link to elsewhere.
    Link {
        /// Where it points.
        target: String,
    },
    /// Nothing there.
    Missing,
}

/// A tree node, adjacently tagged: the payload under `c`, the folder recursive.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", content = "c")]
pub enum Node {
    /// A number.
    Leaf(u32),
    /// More nodes.
    Branch(Branch),
    /// Nothing.
    Empty,
}

/// The children of a branch.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Branch {
    /// The nodes below.
    pub nodes: Vec<Node>,
}

/// Part of a document, externally tagged (serde's default).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub enum Part {
    /// Some text.
    Text(String),
    /// A group of parts (recursive).
    Group(Group),
    /// A break.
    Break,
}

/// Parts grouped together.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// The group's title.
    pub title: String,
    /// What it holds.
    pub parts: Vec<Part>,
}

/// A quantity, untagged: a number, or a list of quantities (recursive).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Quantity {
    /// A plain number.
    Count(i64),
    /// A sum of quantities.
    Sum(Sum),
}

/// Quantities to add up.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Sum {
    /// The terms.
    pub terms: Vec<Quantity>,
}

/// Returns the folder as decoded: the shape.
///
/// # Arguments
///
/// * `root` - the folder
pub fn folder_tree(root: Folder) -> Folder {
    root
}

/// Returns the item as decoded: the variant's struct written out beside the tag.
///
/// # Arguments
///
/// * `item` - the item
pub fn item(item: Item) -> Item {
    item
}

/// Returns both as decoded: `Stat` is defined by the first parameter, so the item's
/// `Stat` variant refers to it.
///
/// # Arguments
///
/// * `stat` - a file's details
/// * `item` - an item, maybe a file's details again
pub fn stat_and_item(stat: Stat, item: Item) -> (Stat, Item) {
    (stat, item)
}

/// Returns the node as decoded.
///
/// # Arguments
///
/// * `node` - the tree
pub fn node(node: Node) -> Node {
    node
}

/// Returns the part as decoded.
///
/// # Arguments
///
/// * `part` - the document
pub fn part(part: Part) -> Part {
    part
}

/// Returns the quantity as decoded.
///
/// # Arguments
///
/// * `quantity` - the quantity
pub fn quantity(quantity: Quantity) -> Quantity {
    quantity
}
