//! The loop on [`ScriptedModel`] and [`FunctionModel`], without any HTTP: what a request
//! carries, conversations that continue, usage, streaming, typed output and its retries.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use example_app::{App, toolset};
use serde::Deserialize;
use serde_json::json;
use toolcall_agent::{
    Agent, AgentError, Event, FunctionModel, Message, ModelResponse, OutputSpec, OutputType, ScriptedModel,
    ToolCall, ToolReturn, Usage,
};

fn agent(model: &ScriptedModel) -> Agent<App> {
    Agent::with_model(&toolset::ALL, App::demo(), model.clone())
}

#[tokio::test]
async fn a_scripted_model_sees_the_conversation_and_the_tools() {
    let model = ScriptedModel::new([
        ModelResponse::calls([ToolCall::new("c1", "add", r#"{"a":1,"b":2}"#)]).with_usage(7, 3),
        ModelResponse::text("3").with_usage(12, 1),
    ]);
    let outcome = agent(&model).system("Be brief.").run("add 1 and 2", |_| {}).await.unwrap();
    assert_eq!((outcome.answer.as_str(), outcome.turns), ("3", 2));
    assert_eq!(outcome.usage, Usage::new(19, 4));
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].tools, toolset::ALL.names().collect::<Vec<_>>());
    assert!(!requests[0].stream && requests[0].output.is_none());
    assert_eq!(requests[0].messages, [Message::system("Be brief."), Message::user("add 1 and 2")]);
    assert_eq!(
        requests[1].messages[2..],
        [
            Message::assistant_calls("", [ToolCall::new("c1", "add", r#"{"a":1,"b":2}"#)]),
            Message::Tool {
                results: vec![ToolReturn {
                    id: "c1".into(),
                    name: "add".into(),
                    content: "3".into(),
                    is_error: false,
                    blocks: Vec::new()
                }]
            },
        ]
    );
    assert_eq!(outcome.messages.len(), 5);
    assert_eq!(outcome.messages.last(), Some(&Message::assistant("3")));
}

#[tokio::test]
async fn a_failing_call_is_flagged_and_the_script_running_out_is_an_error() {
    let model = ScriptedModel::new([ModelResponse::calls([ToolCall::new("c1", "nope", "{}")])]);
    let error = agent(&model).run("go", |_| {}).await.unwrap_err();
    assert_eq!(error, AgentError::Model("the scripted model has no reply left for request 2".into()));
    let Message::Tool { results } = &model.requests()[1].messages[2] else { panic!("no tool answers") };
    assert!(results[0].is_error && results[0].content.contains("unknown_tool"), "{results:?}");

    let model = ScriptedModel::default();
    model.push_error(AgentError::Http { status: 500, message: "down".into() });
    assert_eq!(
        agent(&model).run("go", |_| {}).await.unwrap_err(),
        AgentError::Http { status: 500, message: "down".into() }
    );
}

#[tokio::test]
async fn a_conversation_continues_with_its_history() {
    let model =
        ScriptedModel::new([ModelResponse::text("Hi Ada."), ModelResponse::text("Your name is Ada.")]);
    let agent = agent(&model).system("Be brief.");
    let first = agent.run("I am Ada.", |_| {}).await.unwrap();
    assert_eq!(first.new_messages(), first.messages.as_slice());
    let second = agent.run_with_history(&first.messages, "What is my name?", |_| {}).await.unwrap();
    assert_eq!(second.answer, "Your name is Ada.");
    assert_eq!(second.messages.len(), 5);
    assert_eq!(
        second.new_messages(),
        [Message::user("What is my name?"), Message::assistant("Your name is Ada.")]
    );
    // The second request carries the whole history, the system message once.
    let sent = &model.requests()[1].messages;
    assert_eq!(sent[..3], first.messages[..]);
    assert_eq!(sent.iter().filter(|m| matches!(m, Message::System { .. })).count(), 1);
    // Histories survive serde, so they can be stored and resumed.
    let stored = serde_json::to_string(&second.messages).unwrap();
    assert_eq!(serde_json::from_str::<Vec<Message>>(&stored).unwrap(), second.messages);
}

#[tokio::test]
async fn streaming_a_scripted_reply_reports_it_word_by_word() {
    let model = ScriptedModel::new([ModelResponse::text("one two three")]);
    let mut texts = Vec::new();
    let outcome = agent(&model)
        .stream(true)
        .run("count", |event| {
            if let Event::Text(text) = event {
                texts.push(text.to_owned());
            }
        })
        .await
        .unwrap();
    assert_eq!(texts, ["one ", "two ", "three"]);
    assert_eq!(outcome.answer, "one two three");
    assert!(model.requests()[0].stream);
}

#[tokio::test]
async fn a_function_model_answers_from_the_request() {
    let model = FunctionModel::new(|request| {
        let tools = request.tools.names().len();
        match request.messages.last() {
            Some(Message::User { content }) => Ok(ModelResponse::text(format!("{content} ({tools} tools)"))),
            _ => Err(AgentError::Model("no prompt".into())),
        }
    });
    let agent = Agent::with_model(&toolset::ALL, App::demo(), model);
    let outcome = agent.run("echo", |_| {}).await.unwrap();
    assert_eq!(outcome.answer, format!("echo ({} tools)", toolset::ALL.len()));
}

/// A typed answer, decoded by hand (what toolcall-build would generate).
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Report {
    city: String,
    temp: f64,
}

impl OutputType for Report {
    fn spec() -> OutputSpec {
        OutputSpec {
            name: "Report".into(),
            description: "The weather report.".into(),
            schema: json!({"type": "object", "properties": {"city": {"type": "string"}, "temp": {"type": "number"}},
                "required": ["city", "temp"], "additionalProperties": false}),
            gemini_schema: None,
        }
    }

    fn decode(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }
}

#[tokio::test]
async fn a_typed_answer_that_does_not_decode_is_sent_back_to_be_fixed() {
    let model = ScriptedModel::new([
        ModelResponse::text(r#"{"city": "Oslo"}"#),
        ModelResponse::text(r#"{"city": "Oslo", "temp": 21.5}"#),
    ]);
    let (report, outcome) = agent(&model).run_output::<Report>("weather?", |_| {}).await.unwrap();
    assert_eq!(report, Report { city: "Oslo".into(), temp: 21.5 });
    assert_eq!(outcome.turns, 2);
    let requests = model.requests();
    assert_eq!(requests[0].output.as_deref(), Some("Report"));
    let Message::User { content } = &requests[1].messages[2] else { panic!("no retry prompt") };
    assert!(content.contains("missing field `temp`"), "{content}");
}

#[tokio::test]
async fn a_final_answer_tool_call_is_the_typed_answer_and_its_errors_go_back_as_its_result() {
    let model = ScriptedModel::new([
        ModelResponse::calls([ToolCall::new("t1", "Report", r#"{"city": 1}"#)]),
        ModelResponse::calls([ToolCall::new("t2", "Report", r#"{"city": "Oslo", "temp": 3.0}"#)]),
    ]);
    let (report, _) = agent(&model).run_output::<Report>("weather?", |_| {}).await.unwrap();
    assert_eq!(report.temp, 3.0);
    let Message::Tool { results } = &model.requests()[1].messages[2] else { panic!("no answer") };
    assert_eq!((results[0].id.as_str(), results[0].is_error), ("t1", true));
    assert!(results[0].content.contains("invalid type"), "{}", results[0].content);
}

#[tokio::test]
async fn typed_output_gives_up_after_its_retries() {
    let model = ScriptedModel::new([ModelResponse::text("nope"), ModelResponse::text("still nope")]);
    let error = agent(&model).output_retries(1).run_output::<Report>("weather?", |_| {}).await.unwrap_err();
    assert!(matches!(&error, AgentError::Output { attempts: 2, .. }), "{error:?}");
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn a_tool_that_keeps_refusing_calls_ends_the_run_past_its_retry_limit() {
    let bad = || ModelResponse::calls([ToolCall::new("c", "add", r#"{"a":"one","b":2}"#)]);
    let model = ScriptedModel::new([bad(), bad(), bad(), bad(), ModelResponse::text("never read")]);
    let error = agent(&model).run("add", |_| {}).await.unwrap_err();
    let AgentError::ToolRetries { tool, refused, message } = &error else { panic!("{error:?}") };
    assert_eq!((tool.as_str(), *refused), ("add", 4), "three retries allowed by default, the fourth ends it");
    assert!(message.starts_with("a: "), "the last refusal is named: {message}");
    assert_eq!(model.requests().len(), 4);

    // A call the tool accepts starts the count again; a lower limit applies per tool.
    let good = || ModelResponse::calls([ToolCall::new("g", "add", r#"{"a":1,"b":2}"#)]);
    let model = ScriptedModel::new([bad(), good(), bad(), ModelResponse::text("done")]);
    let outcome = agent(&model).tool_retries(1).run("add", |_| {}).await.unwrap();
    assert_eq!(outcome.answer, "done");
    let model = ScriptedModel::new([bad(), bad(), ModelResponse::text("never read")]);
    let error = agent(&model).tool_retries(1).run("add", |_| {}).await.unwrap_err();
    assert!(matches!(error, AgentError::ToolRetries { refused: 2, .. }), "{error:?}");
}

/// A tool returning `String` answers the model with the text itself, not its JSON
/// literal (#62): `say "hi"`, not `"say \"hi\""`; other values stay their JSON text.
#[tokio::test]
async fn a_string_result_reaches_the_model_as_its_text() {
    let model = ScriptedModel::new([
        ModelResponse::calls([
            ToolCall::new("c1", "echo_later", r#"{"text":"say \"hi\""}"#),
            ToolCall::new("c2", "divide_later", r#"{"a":1,"b":4}"#),
        ]),
        ModelResponse::text("done"),
    ]);
    let agent = Agent::with_model(&toolcall_fixtures::toolset::ALL, (), model.clone());
    agent.run("echo", |_| {}).await.unwrap();
    let Message::Tool { results } = &model.requests()[1].messages[2] else { panic!("no tool answers") };
    let contents: Vec<&str> = results.iter().map(|r| r.content.as_str()).collect();
    assert_eq!(contents, [r#"say "hi""#, "0.25"]);
}

/// `remove_note` confirms before it removes (`Progress::confirm_with`): a call the
/// approval callback approved is that confirmation, and the note goes; without a callback
/// no one can be asked, and the model is told nothing was done (#62).
#[tokio::test]
async fn an_approved_call_is_the_tools_confirmation_and_without_approval_nothing_is_removed() {
    let script = || {
        ScriptedModel::new([
            ModelResponse::calls([ToolCall::new("c1", "remove_note", r#"{"id":1}"#)]),
            ModelResponse::text("done"),
        ])
    };
    let answer = |model: &ScriptedModel| {
        let Message::Tool { results } = &model.requests()[1].messages[2] else { panic!("no tool answers") };
        (results[0].is_error, results[0].content.clone())
    };
    let model = script();
    let unasked = Agent::with_model(&toolset::ALL, App::demo(), model.clone());
    unasked.run("remove note 1", |_| {}).await.unwrap();
    let (is_error, content) = answer(&model);
    assert!(is_error, "{content}");
    assert!(
        content.contains(
            "note 1 was not removed: it needs the user's confirmation, and the user cannot be asked"
        ),
        "{content}"
    );
    assert_eq!(unasked.context().store.notes_of(1, 10).await.unwrap().len(), 2, "nothing was removed");

    let model = script();
    let approved = Agent::with_model(&toolset::ALL, App::demo(), model.clone()).approve(|_| async { true });
    approved.run("remove note 1", |_| {}).await.unwrap();
    assert_eq!(answer(&model), (false, r#"{"id":1,"owner":1,"text":"buy oat milk"}"#.to_owned()));
    assert_eq!(approved.context().store.notes_of(1, 10).await.unwrap().len(), 1, "the note went");
}
