//! Generates the toolset from `src/tools` (and the prompts and resources beside it); the
//! warnings it expects are listed in `toolcall-warnings.txt`.

fn main() {
    toolcall_build::Builder::new().expect_warnings("toolcall-warnings.txt").compile();
}
