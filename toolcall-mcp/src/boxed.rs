//! Large futures put on the heap where they are made, not made and then moved there.
//!
//! `Box::pin(make())` builds the future on the stack and copies it into its allocation:
//! for the futures of a request's path (kilobytes each) that copy was most of the memory
//! a call moved, and past 2 KiB glibc's `memcpy` turns to `rep movsb`, costlier per call.
//! Allocating first and writing the future into the allocation lets the compiler build it
//! there (a call's result written straight to its destination).

use std::pin::Pin;

/// The future `make` gives, pinned on the heap: allocated first, then built in place.
#[inline(always)]
pub(crate) fn boxed<F>(make: impl FnOnce() -> F) -> Pin<Box<F>> {
    Box::into_pin(Box::write(Box::new_uninit(), make()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_future_boxed_in_place_runs_as_boxed() {
        let made = boxed(|| async { [7u8; 4096].iter().map(|&b| usize::from(b)).sum::<usize>() });
        assert_eq!(made.await, 7 * 4096);
    }
}
