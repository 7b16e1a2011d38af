//! `Rc<str>` and `Arc<str>` parameters decode without copying through serde.

use std::rc::Rc;
use std::sync::Arc;

/// Shared strings.
pub fn shared_strings(counted: Rc<str>, shared: Arc<str>) -> String {
    format!("{counted}{shared}")
}
