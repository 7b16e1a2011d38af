//! Parameter headers (`ToolParam::header`, MCP SEP-2243): the checks a parameter mirrored
//! into an HTTP header must pass, and the `x-mcp-header` key written into its schema.
//!
//! Takes a lowered parameter with the `.header(..)` of its `TOOL_PARAMS` entry and gives
//! its [`ParamHeader`], or a located diagnostic saying why it has none; takes a tool's
//! plain input schema text and gives it with `"x-mcp-header":"<name>"` written last in
//! each such parameter's property.
//!
//! The rules are the ones rmcp checks a tool's input schema against
//! (`validate_param_header_annotations` in `rmcp::transport::common::mcp_headers`) and the
//! 2026-07-28 specification's: the name is a non-empty RFC 9110 token, unique
//! case-insensitively within the tool, on a property reached from the root through
//! `properties` alone (a parameter always is) whose schema has one `type`: `string`,
//! `integer` or `boolean`. A client drops a tool that breaks one of them, so each is an
//! error. The specification also keeps a mirrored integer within ±(2^53 − 1); that binds
//! the values of a call, not the schema, so an integer type reaching past it is a warning.
//!
//! Only the plain input schema carries the key: the one MCP servers list
//! (`emit(Format::Mcp, false)`), which the non-strict OpenAI, Responses and Anthropic
//! definitions share (their providers accept unknown keywords). The strict schemas
//! (OpenAI's, shared with MCP strict) and Gemini's, whose providers refuse unknown
//! keywords, never carry it. There an `Option<T>` parameter is `T`'s schema, only not
//! required: absent or `null`, no header is sent, which rmcp's check of a request allows;
//! `Option<Option<T>>` is nullable, an `anyOf` without a single `type`, which clients
//! refuse.

use std::ops::Range;

use toolcall_runtime::ir::{MAX_SAFE_INTEGER, MIN_SAFE_INTEGER, Param, Type};

use crate::ast::overrides::{CONST_NAME, HeaderOverride};
use crate::diagnostics::FileDiagnostics;
use crate::model::{Kind, ParamHeader};

/// The schema keyword that names a property's header.
pub const KEYWORD: &str = "x-mcp-header";

/// What the header name is prefixed with on the wire.
pub const PREFIX: &str = "Mcp-Param-";

/// The header of `param` (lowered) of function `tool`, as its `.header(..)` names it,
/// checked against the rules and against the headers of the tool's earlier parameters
/// (`taken`); `None`, with a located error, when MCP clients would refuse it.
pub fn checked(
    over: &HeaderOverride,
    param: &Param,
    tool: &str,
    kind: Kind,
    taken: &[ParamHeader],
    report: &FileDiagnostics<'_>,
) -> Option<ParamHeader> {
    let at = |problem: String| format!("`{CONST_NAME}`: {problem}");
    if kind != Kind::Tool {
        let message = at(format!(
            "`.header(..)` on `{}` of `{tool}` is ignored: only a tool's parameters travel in `{PREFIX}*` headers",
            param.name
        ));
        report.warn(over.span, message);
        return None;
    }
    if let Some(problem) = name_problem(&over.name, &param.name) {
        let written =
            if over.name.is_empty() { String::new() } else { format!(" `{}`", over.name.escape_debug()) };
        report
            .error(over.span, at(format!("header name{written} of `{}` of `{tool}` {problem}", param.name)));
        return None;
    }
    if let Some(other) = taken.iter().find(|h| h.name.eq_ignore_ascii_case(&over.name)) {
        report.error(over.span, at(duplicate_message(over, param, tool, other)));
        return None;
    }
    if let Some((what, hint)) = type_problem(&param.ty) {
        let message = format!(
            "`{}` of `{tool}` is {what}, so it cannot be mirrored into `{PREFIX}{}`: MCP clients drop a \
             tool whose `{KEYWORD}` is not on a string, integer or boolean; {hint}",
            param.name, over.name
        );
        report.error(over.span, at(message));
        return None;
    }
    if reaches_past_safe(&param.ty) {
        report.warn(over.span, at(unsafe_integer_message(over, param, tool)));
    }
    Some(ParamHeader { param: param.name.clone(), name: over.name.clone() })
}

/// Why `name` cannot name a header (an empty name, or one with characters outside RFC
/// 9110's `tchar`), with a name that can; `None` when it can.
fn name_problem(name: &str, param: &str) -> Option<String> {
    if name.is_empty() {
        let suggestion = pascal_case(param);
        return Some(format!("is empty; name the header after `{PREFIX}`, e.g. `.header(\"{suggestion}\")`"));
    }
    let mut refused: Vec<char> = Vec::new();
    for c in name.chars().filter(|c| !is_tchar(*c)) {
        if !refused.contains(&c) {
            refused.push(c);
        }
    }
    if refused.is_empty() {
        return None;
    }
    let listed: Vec<String> = refused.iter().map(|c| format!("{c:?}")).collect();
    // Spaces and delimiters are left out of the suggestion; a letter outside ASCII
    // would leave a misspelt word, so the parameter's name is suggested instead.
    let kept: String = name.chars().filter(|c| is_tchar(*c)).collect();
    let ascii = refused.iter().all(char::is_ascii);
    let suggestion = if kept.is_empty() || !ascii { pascal_case(param) } else { kept };
    Some(format!(
        "has {}, which an HTTP header name cannot hold (an RFC 9110 token: ASCII letters, digits and \
         !#$%&'*+-.^_`|~); e.g. `.header(\"{suggestion}\")`",
        listed.join(", ")
    ))
}

/// Whether `c` may stand in an HTTP header name: RFC 9110 §5.6.2 `tchar`.
pub fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// `user_id` -> `UserId`: a header name made from a parameter's name.
fn pascal_case(name: &str) -> String {
    let words = name.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty());
    let capitalized = words.map(|word| {
        let mut chars = word.chars();
        chars.next().map(|first| first.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
    });
    let joined: String = capitalized.collect();
    if joined.is_empty() { "Value".to_owned() } else { joined }
}

/// The error of a header name another parameter of the tool already has.
fn duplicate_message(over: &HeaderOverride, param: &Param, tool: &str, other: &ParamHeader) -> String {
    format!(
        "header `{}` of `{}` of `{tool}` is already the header of `{}` (`{}`); header names are \
         case-insensitive, and MCP clients drop a tool that repeats one: give each parameter its own",
        over.name, param.name, other.param, other.name
    )
}

/// What the plain schema of `ty` is when it has no single `string`, `integer` or
/// `boolean` type, with what to do about it; `None` when it has one.
fn type_problem(ty: &Type) -> Option<(&'static str, &'static str)> {
    let other = "give it a string, integer or boolean type";
    let own = "mirror a part of it as a parameter of its own";
    Some(match ty {
        Type::Described(inner, _) => return type_problem(inner),
        Type::Boolean | Type::Integer { .. } | Type::String { .. } | Type::Enum(_) | Type::Const(_) => {
            return None;
        }
        Type::Number { .. } => ("a number", "make it an integer, or a string"),
        Type::Nullable(_) => (
            "nullable (an `anyOf` with null, no single `type`)",
            "make it `Option<T>`: absent or null, it sends no header",
        ),
        Type::Array { .. } | Type::Tuple(_) => ("an array", own),
        Type::Object(_) | Type::Map(_) => ("an object", own),
        Type::AnyOf(_) | Type::OneOf(_) => ("a union of several types", other),
        Type::Ref(_) => ("a recursive type", other),
        Type::Any => ("untyped (any JSON value)", other),
        Type::Null => ("always null", other),
    })
}

/// Whether `ty` is an integer (sent as a number) whose values may reach past ±(2^53 − 1).
fn reaches_past_safe(ty: &Type) -> bool {
    match ty {
        Type::Described(inner, _) => reaches_past_safe(inner),
        Type::Integer { as_string: false, minimum, maximum, .. } => {
            minimum.is_none_or(|min| min < MIN_SAFE_INTEGER)
                || maximum.is_none_or(|max| max > MAX_SAFE_INTEGER)
        }
        _ => false,
    }
}

/// The warning of an integer whose values may reach past what a header may carry.
fn unsafe_integer_message(over: &HeaderOverride, param: &Param, tool: &str) -> String {
    format!(
        "`{}` of `{tool}` is an integer that may reach past ±{MAX_SAFE_INTEGER} (2^53 - 1), the most MCP \
         lets a client mirror into `{PREFIX}{}`: a call with a larger value fails; narrow it with \
         `.range(..)`, or send it as a string with `.string_integer()`",
        param.name, over.name
    )
}

/// `schema` (an input schema's JSON text) with `"x-mcp-header":"<name>"` written last in
/// the property of each header's parameter. A parameter without a property in it (none:
/// the renderer writes one for each) is left out.
pub fn annotate(schema: &str, headers: &[ParamHeader]) -> String {
    let mut out = schema.to_owned();
    for header in headers {
        let Some(end) = property_end(&out, &header.param) else { continue };
        let separator = if out[..end].trim_end().ends_with('{') { "" } else { "," };
        let name = serde_json::Value::from(header.name.as_str()).to_string();
        out.insert_str(end, &format!("{separator}\"{KEYWORD}\":{name}"));
    }
    out
}

/// Where the closing `}` of the schema of root property `name` is in `schema`.
fn property_end(schema: &str, name: &str) -> Option<usize> {
    let properties = member(schema, 0, "properties")?;
    let property = member(schema, properties.start, name)?;
    schema[property.clone()].ends_with('}').then(|| property.end - 1)
}

/// Where the value of member `key` is in the JSON object starting at `at` of `text`.
fn member(text: &str, at: usize, key: &str) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let mut at = skip_space(bytes, at);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    loop {
        at = skip_space(bytes, at + 1);
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let key_end = value_end(bytes, at)?;
        let found = serde_json::from_str::<String>(text.get(at..key_end)?).ok()? == key;
        at = skip_space(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let start = skip_space(bytes, at + 1);
        let end = value_end(bytes, start)?;
        if found {
            return Some(start..end);
        }
        at = skip_space(bytes, end);
        if bytes.get(at) != Some(&b',') {
            return None;
        }
    }
}

/// The first position from `at` that is not JSON whitespace.
fn skip_space(bytes: &[u8], at: usize) -> usize {
    let blank = bytes.get(at..).map_or(0, |rest| rest.iter().take_while(|b| b.is_ascii_whitespace()).count());
    at + blank
}

/// One past the last byte of the JSON value starting at `at` (strings, nesting and
/// scalars alike); `None` when it does not end.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &byte) in bytes.iter().enumerate().skip(at) {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' if depth == 0 => return Some(i + 1),
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b',' | b'}' | b']' if depth == 0 => return Some(i),
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ if depth == 0 && byte.is_ascii_whitespace() => return Some(i),
            _ => {}
        }
    }
    (depth == 0 && !in_string).then_some(bytes.len())
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use toolcall_runtime::ir::Tool;
    use toolcall_runtime::render::{InputKind, render_input};

    use super::*;

    fn header(param: &str, name: &str) -> ParamHeader {
        ParamHeader { param: param.to_owned(), name: name.to_owned() }
    }

    #[test]
    fn names_are_rfc_9110_tokens() {
        assert_eq!(name_problem("Region", "region"), None);
        assert_eq!(name_problem("X-Tenant.Id_2~", "tenant"), None);
        let empty = name_problem("", "user_id").unwrap_or_default();
        assert!(empty.contains("is empty") && empty.contains(r#".header("UserId")"#), "{empty}");
        let spaced = name_problem("My Region", "region").unwrap_or_default();
        assert!(spaced.contains("has ' '") && spaced.contains(r#".header("MyRegion")"#), "{spaced}");
        let several = name_problem("Ré:gion:", "region").unwrap_or_default();
        assert!(several.contains("has 'é', ':'"), "{several}");
        let control = name_problem("Tab\there", "tab").unwrap_or_default();
        assert!(control.contains(r"has '\t'") && control.contains(r#".header("Tabhere")"#), "{control}");
        let accented = name_problem("Région", "town").unwrap_or_default();
        assert!(accented.contains(r#".header("Town")"#), "{accented}");
    }

    #[test]
    fn only_strings_integers_and_booleans_are_mirrored() {
        for ty in [Type::string(), Type::integer_between(0, 9), Type::Boolean, Type::enumeration(["a", "b"])]
        {
            assert_eq!(type_problem(&ty), None, "{ty:?}");
        }
        assert_eq!(type_problem(&Type::number()).map(|p| p.0), Some("a number"));
        assert!(type_problem(&Type::Nullable(Box::new(Type::string()))).is_some());
        assert!(type_problem(&Type::array(Type::string())).is_some());
        assert!(type_problem(&Type::Any).is_some());
        assert!(reaches_past_safe(&Type::integer()));
        assert!(!reaches_past_safe(&Type::integer_between(MIN_SAFE_INTEGER, MAX_SAFE_INTEGER)));
        assert!(reaches_past_safe(&Type::integer_between(0, MAX_SAFE_INTEGER + 1)));
    }

    #[test]
    fn the_key_goes_last_into_its_property_only() {
        let schema = r#"{"type":"object","properties":{"a":{"type":"string","description":"x,}\"{"},"b":{"type":"integer","default":3},"c":{}},"required":["a"]}"#;
        let got = annotate(schema, &[header("b", "Bee"), header("a", "A"), header("c", "C")]);
        assert_eq!(
            got,
            r#"{"type":"object","properties":{"a":{"type":"string","description":"x,}\"{","x-mcp-header":"A"},"b":{"type":"integer","default":3,"x-mcp-header":"Bee"},"c":{"x-mcp-header":"C"}},"required":["a"]}"#
        );
        assert_eq!(annotate(schema, &[header("missing", "M")]), schema);
        assert_eq!(annotate(schema, &[]), schema);
    }

    /// What rmcp reads of a property: its `type` must be one string among three.
    #[test]
    fn every_accepted_type_renders_with_one_rmcp_type() {
        let accepted = [
            Type::string(),
            Type::Boolean,
            Type::integer_between(0, 255),
            Type::enumeration(["north", "south"]),
            Type::Described(Box::new(Type::string()), "a word".to_owned()),
            Type::Integer { minimum: Some(0), maximum: None, non_zero: false, as_string: true, width: None },
        ];
        for ty in accepted {
            assert_eq!(type_problem(&ty), None);
            let tool = Tool::new("t").param(Param::new("p", ty.clone()).optional());
            let schema = annotate(&render_input(&tool, InputKind::Lax), &[header("p", "P")]);
            let value: Value = serde_json::from_str(&schema).unwrap_or_default();
            let property = &value["properties"]["p"];
            assert_eq!(property[KEYWORD], "P", "{schema}");
            let kind = property["type"].as_str().unwrap_or_default();
            assert!(["string", "integer", "boolean"].contains(&kind), "{ty:?}: {schema}");
        }
    }
}
