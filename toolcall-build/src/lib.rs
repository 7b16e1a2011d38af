//! Build-script helper for toolcall (work in progress).
