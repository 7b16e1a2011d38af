//! Recursive local types: one `$defs` entry each, used through `$ref` where the format takes
//! it (written out a few levels deep in Gemini and Anthropic strict), and decoded in full.
//! A mutually recursive pair, an optional self-reference, an internally tagged enum, a
//! generic instance, one type in two parameters, and a generic nested in itself (which is
//! two different types, not recursion).

use serde::Serialize;

/// A folder and what it holds.
#[derive(Debug, Serialize)]
pub struct Folder {
    /// The folder's name.
    pub name: String,
    /// Files and folders inside it.
    pub entries: Vec<Entry>,
}

/// One entry of a folder.
#[derive(Debug, Serialize)]
pub enum Entry {
    /// A file.
    File {
        /// The file's name.
        name: String,
        /// Its size in bytes.
        size: u32,
    },
    /// A folder, holding more entries.
    Folder(Folder),
}

/// A linked list of readings.
#[derive(Debug, Serialize)]
pub struct Chain {
    /// This reading.
    pub value: i32,
    /// The rest of the list, if any.
    pub next: Option<Box<Chain>>,
}

/// An arithmetic expression.
#[derive(Debug, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Expr {
    /// A number.
    Num {
        /// Its value.
        value: i32,
    },
    /// The sum of two expressions.
    Add {
        /// The left operand.
        left: Box<Expr>,
        /// The right operand.
        right: Box<Expr>,
    },
    /// The negation of an expression.
    Neg {
        /// The operand.
        arg: Box<Expr>,
    },
}

/// A tree of values of one type.
#[derive(Debug, Serialize)]
pub struct Nested<T> {
    /// This node's value.
    pub value: T,
    /// The subtrees.
    pub more: Vec<Nested<T>>,
}

/// A value in a box.
#[derive(Debug, Serialize)]
pub struct Wrap<T> {
    /// The value.
    pub inner: T,
}

/// The total size of the files in a folder, at any depth.
///
/// # Arguments
///
/// * `root` - the folder to measure
pub fn folder_size(root: Folder) -> u64 {
    fn size(folder: &Folder) -> u64 {
        folder
            .entries
            .iter()
            .map(|entry| match entry {
                Entry::File { size, .. } => u64::from(*size),
                Entry::Folder(inner) => size(inner),
            })
            .sum()
    }
    size(&root)
}

/// The sum of a list of readings.
///
/// # Arguments
///
/// * `chain` - the first reading and the rest
pub fn sum_chain(chain: Chain) -> i64 {
    let mut total = 0;
    let mut next = Some(&chain);
    while let Some(link) = next {
        total += i64::from(link.value);
        next = link.next.as_deref();
    }
    total
}

fn value_of(expr: &Expr) -> i64 {
    match expr {
        Expr::Num { value } => i64::from(*value),
        Expr::Add { left, right } => value_of(left).saturating_add(value_of(right)),
        Expr::Neg { arg } => value_of(arg).saturating_neg(),
    }
}

/// Evaluates an expression.
///
/// # Arguments
///
/// * `expr` - what to evaluate
pub fn evaluate(expr: Expr) -> i64 {
    value_of(&expr)
}

/// Whether two expressions have the same value: one definition for both parameters.
///
/// # Arguments
///
/// * `left` - the first expression
/// * `right` - the second one; zero when absent
pub fn same_value(left: Expr, right: Option<Expr>) -> bool {
    value_of(&left) == right.as_ref().map_or(0, value_of)
}

/// The sum of a tree's values.
///
/// # Arguments
///
/// * `tree` - the values
pub fn nested_total(tree: Nested<u8>) -> u64 {
    fn total(tree: &Nested<u8>) -> u64 {
        u64::from(tree.value) + tree.more.iter().map(total).sum::<u64>()
    }
    total(&tree)
}

/// A value in two boxes: `Wrap<Wrap<u8>>` is not recursive.
///
/// # Arguments
///
/// * `wrap` - the boxes
pub fn unwrap_twice(wrap: Wrap<Wrap<u8>>) -> u8 {
    wrap.inner.inner
}
