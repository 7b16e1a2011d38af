//! Publishes which optional decoders this build of toolcall-runtime has, to the build
//! scripts of the crates that depend on it (`links` metadata: they read
//! `DEP_TOOLCALL_RUNTIME_FEATURES`, e.g. `chrono,uuid`). toolcall-build uses it to report a
//! tool parameter whose decoder needs a feature the crate did not enable, at the parameter.
fn main() {
    let features: Vec<&str> = [("chrono", "CARGO_FEATURE_CHRONO"), ("uuid", "CARGO_FEATURE_UUID")]
        .into_iter()
        .filter(|(_, var)| std::env::var_os(var).is_some())
        .map(|(feature, _)| feature)
        .collect();
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:features={}", features.join(","));
}
