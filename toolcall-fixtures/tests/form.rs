//! A form's answer decoded by the generated `Form` impl (`Builder::form_type`): its
//! mistakes name the form's fields, never arguments (#62 item 6).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use toolcall_fixtures::models::Confirm;
use toolcall_runtime::Form;

#[test]
fn an_answer_decodes_into_the_form_type() {
    let answer = Confirm::decode(&json!({"confirm": true, "copies": 2})).unwrap();
    assert_eq!(answer, Confirm { confirm: true, copies: 2, reason: None });
}

#[test]
fn an_extra_field_is_an_unknown_field_of_the_form() {
    let error = Confirm::decode(&json!({"confirm": true, "copies": 2, "why": "x"})).unwrap_err();
    assert_eq!(error, r#"unknown field "why""#);
    let error = Confirm::decode(&json!({"confirm": true, "copies": 2, "reasn": "x"})).unwrap_err();
    assert_eq!(error, r#"unknown field "reasn" (did you mean "reason"?)"#);
}

#[test]
fn other_mistakes_name_the_field_too() {
    let error = Confirm::decode(&json!({"confirm": true})).unwrap_err();
    assert_eq!(error, r#"missing required field "copies""#);
    let error = Confirm::decode(&json!({"confirm": true, "copies": "two"})).unwrap_err();
    assert_eq!(error, r#"copies: expected an integer, got "two""#);
    let error = Confirm::decode(&json!(["yes"])).unwrap_err();
    assert_eq!(error, r#"expected an object, got ["yes"]"#);
}
