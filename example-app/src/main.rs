//! The example app.

mod tools;
mod toolset {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

use toolcall_runtime::Format;

fn main() {
    println!("{}", toolset::ALL.emit(Format::OpenAi, true));
    println!("{:?}", toolset::ALL.run_json("get_weather", r#"{"city":"Oslo"}"#));
    println!("{:?}", toolset::weather::TOOLS.run_json("get_weather", r#"{"city":"Oslo","days":1.5}"#));
}
