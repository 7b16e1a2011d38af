//! Put aside: `Arc<str>: DeserializeOwned` is not satisfied (serde's `rc` feature is off).

use std::rc::Rc;
use std::sync::Arc;

/// Shared strings.
pub fn shared_strings(counted: Rc<str>, shared: Arc<str>) -> String {
    format!("{counted}{shared}")
}
