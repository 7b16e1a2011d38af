//! Typed output end to end: `toolcall_fixtures::models::Forecast` is named in the fixture
//! crate's `build.rs` with `Builder::output_type`, and nothing else is written for it. The
//! generated `OutputType` impl gives `run_output` its spec and decodes the answers with
//! the type's generated decoder; a wrong answer goes back with that decoder's error.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolcall_agent::{
    Agent, FunctionModel, Message, ModelResponse, OutputSpec, OutputType, ScriptedModel, ToolCall,
};
use toolcall_fixtures::models::Forecast;
use toolcall_fixtures::toolset;

#[test]
fn the_generated_spec_is_strict_and_named_and_described_by_the_type() {
    let spec = Forecast::spec();
    assert_eq!(spec.name, "Forecast");
    assert_eq!(spec.description, "The forecast for one city, as the agent answers it.");
    assert_eq!(
        spec.schema,
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city."},
                "tempC": {"type": "number", "description": "The temperature, in degrees Celsius."},
                "remarks": {
                    "type": ["array", "null"],
                    "items": {"type": "string"},
                    "description": "Anything worth knowing (also read as `notes`)."
                }
            },
            "required": ["city", "tempC", "remarks"],
            "additionalProperties": false
        })
    );
    let gemini = spec.gemini_schema.expect("a Gemini schema");
    assert_eq!(gemini["required"], json!(["city", "tempC"]));
    assert!(gemini.get("additionalProperties").is_none(), "{gemini}");
}

#[test]
fn the_generated_decoder_reads_serde_names_aliases_and_defaults() {
    let forecast = Forecast::decode(r#"{"city": "Oslo", "tempC": 21.5, "notes": ["dry"]}"#).unwrap();
    assert_eq!(forecast, Forecast { city: "Oslo".into(), temp_c: 21.5, remarks: vec!["dry".into()] });
    // Strict mode sends every property: `null` for the defaulted one is its default.
    let forecast = Forecast::decode(r#"{"city": "Oslo", "tempC": 3, "remarks": null}"#).unwrap();
    assert!(forecast.remarks.is_empty());
    assert_eq!(Forecast::decode(r#"{"city": "Oslo"}"#).unwrap_err(), "tempC: missing required argument");
    let error = Forecast::decode(r#"{"city": "Oslo", "tempC": 1, "temp": 2}"#).unwrap_err();
    assert!(error.starts_with(r#"unknown argument "temp""#), "{error}");
}

/// What a model was asked: the output spec and the conversation, per request.
type Seen = Arc<Mutex<Vec<(Option<OutputSpec>, Vec<Message>)>>>;

#[tokio::test]
async fn run_output_sends_the_spec_sends_a_wrong_answer_back_and_decodes_the_fixed_one() {
    let seen: Seen = Arc::default();
    let record = seen.clone();
    let model = FunctionModel::new(move |request| {
        let mut seen = record.lock().unwrap();
        seen.push((request.output.cloned(), request.messages.to_vec()));
        Ok(match seen.len() {
            1 => ModelResponse::text(r#"{"city": "Oslo", "tempC": "warm", "remarks": null}"#),
            _ => ModelResponse::text(r#"{"city": "Oslo", "tempC": 21.5, "remarks": ["dry"]}"#),
        })
    });
    let agent = Agent::with_model(&toolset::ALL, (), model);
    let (forecast, outcome) = agent.run_output::<Forecast>("Weather in Oslo?", |_| {}).await.unwrap();
    assert_eq!(forecast, Forecast { city: "Oslo".into(), temp_c: 21.5, remarks: vec!["dry".into()] });
    assert_eq!(outcome.turns, 2);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    for (spec, _) in seen.iter() {
        assert_eq!(spec.as_ref(), Some(&Forecast::spec()));
    }
    let Some(Message::User { content }) = seen[1].1.last() else {
        panic!("no retry prompt: {:?}", seen[1].1)
    };
    assert!(content.contains(r#"tempC: expected a number, got "warm""#), "{content}");
}

#[tokio::test]
async fn a_final_answer_tool_call_gets_the_decoders_error_as_its_result() {
    let model = ScriptedModel::new([
        ModelResponse::calls([ToolCall::new("t1", "Forecast", r#"{"city": 7, "tempC": 1}"#)]),
        ModelResponse::calls([ToolCall::new("t2", "Forecast", r#"{"city": "Bergen", "tempC": 9}"#)]),
    ]);
    let agent = Agent::with_model(&toolset::ALL, (), model.clone());
    let (forecast, _) = agent.run_output::<Forecast>("Weather in Bergen?", |_| {}).await.unwrap();
    assert_eq!((forecast.city.as_str(), forecast.temp_c), ("Bergen", 9.0));
    assert_eq!(model.requests()[0].output.as_deref(), Some("Forecast"));
    let Message::Tool { results } = &model.requests()[1].messages[2] else { panic!("no answer") };
    assert!(results[0].is_error, "{results:?}");
    assert!(results[0].content.contains("city: expected a string, got 7"), "{}", results[0].content);
}
