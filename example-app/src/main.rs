//! The example app (runtime-built tools until the generator lands).

use serde_json::json;
use toolcall_runtime::ir::{Param, Tool, Type};
use toolcall_runtime::{DynTool, Format};

fn main() {
    let weather = DynTool::new(
        Tool::new("get_weather")
            .description("Get the forecast for a city.")
            .param(Param::new("city", Type::string()).description("city name, e.g. \"Oslo\""))
            .param(Param::new("days", Type::integer_between(0, 255)).default(3)),
        |args| Ok(json!({"city": args["city"], "days": args["days"], "temp": 21.5})),
    );
    for format in Format::ALL {
        println!("{}: {}", format.as_str(), weather.render(format, false));
    }
    for args in
        [json!({"city": "Oslo"}), json!({"city": "Oslo", "days": "5"}), json!({"city": "Oslo", "c": 1})]
    {
        match weather.run(&args) {
            Ok(value) => println!("ok: {value}"),
            Err(error) => println!("error: {error}"),
        }
    }
}
