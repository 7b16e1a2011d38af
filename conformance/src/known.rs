//! Known issues: findings of this suite that belong to code it does not own (the renderer,
//! the generator), each described precisely enough that only that finding is tolerated.
//!
//! The tests print every tolerated case as `KNOWN ISSUE <id>: ...` and fail on anything
//! else; when a fix lands, the cases stop appearing and the entry can be deleted. Each
//! matcher looks at the IR behind the failing location, so a new failure of the same
//! kind from another cause is not hidden.

use serde_json::Value;
use toolcall_runtime::ir::{Param, Tool, Type};

use crate::rules::Violation;

/// One known issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownIssue {
    /// A short stable id, used in messages and in the report.
    pub id: &'static str,
    /// What is wrong and what would fix it.
    pub summary: &'static str,
}

/// Every known issue. None is open: the last one, `untyped-openai-strict` (an untyped
/// value rendered without `type` in OpenAI strict), was fixed by the renderer's
/// `json-value` definition, and recursive types are `$defs` instead of `{}`.
pub const ALL: [KnownIssue; 0] = [];

/// The IR type a JSON pointer into a rendered input schema describes, if it can be told:
/// `/properties/a/items/anyOf/0` walks parameter `a`, its items, the first branch;
/// `/$defs/Tree/...` starts at the tool's definition `Tree`.
pub fn type_at_pointer<'t>(tool: &'t Tool, pointer: &str) -> Option<&'t Type> {
    let mut segments = pointer.split('/').filter(|s| !s.is_empty());
    let mut current: Option<&Type> = None;
    while let Some(segment) = segments.next() {
        current = match (segment, current) {
            ("properties", None) => {
                let name = segments.next()?;
                Some(&tool.params.iter().find(|p| p.name == name)?.ty)
            }
            ("$defs", None) => Some(&tool.definition(segments.next()?)?.ty),
            ("anyOf" | "oneOf", Some(ty)) => {
                let index = segments.next()?.parse::<usize>().ok()?;
                branch(ty, index)
            }
            (_, Some(ty)) => match (segment, unwrap(tool, ty)) {
                ("properties", Type::Object(fields)) => {
                    let name = segments.next()?;
                    Some(&fields.iter().find(|p| p.name == name)?.ty)
                }
                ("items", Type::Array { items, .. }) => Some(items.as_ref()),
                ("additionalProperties", Type::Map(values)) => Some(values.as_ref()),
                _ => return None,
            },
            _ => return None,
        };
    }
    current
}

/// Branch `index` of the `anyOf` a type renders as: a nullable type's first branch is the
/// type itself.
fn branch(ty: &Type, index: usize) -> Option<&Type> {
    match ty {
        Type::Described(inner, _) => branch(inner, index),
        Type::Nullable(inner) => (index == 0).then_some(inner.as_ref()),
        Type::AnyOf(branches) | Type::OneOf(branches) => branches.get(index),
        _ => None,
    }
}

/// The IR type an argument path from a `ToolError` names: `tree.children[0].label`
/// (through the tool's definitions where the path enters a recursive type).
pub fn type_at_argument<'t>(tool: &'t Tool, path: &str) -> Option<&'t Type> {
    let mut current: Option<&Type> = None;
    for part in path.split('.') {
        let (name, indexes) = part.split_once('[').map_or((part, ""), |(n, rest)| (n, rest));
        current = match current.map(|ty| unwrap(tool, ty)) {
            None => Some(&tool.params.iter().find(|p| p.name == name)?.ty),
            Some(Type::Object(fields)) => Some(&fields.iter().find(|p| p.name == name)?.ty),
            Some(Type::Map(values)) => Some(values.as_ref()),
            _ => return None,
        };
        for index in indexes.split('[').filter(|s| !s.is_empty()) {
            let index: usize = index.trim_end_matches(']').parse().ok()?;
            current = match current.map(|ty| unwrap(tool, ty))? {
                Type::Array { items, .. } => Some(items.as_ref()),
                Type::Tuple(items) => items.get(index),
                _ => return None,
            };
        }
    }
    current
}

/// The object field (or tool parameter) an argument path ends in: `customer.vipLevel`.
pub fn param_at_argument<'t>(tool: &'t Tool, path: &str) -> Option<&'t Param> {
    let (parent, name) = match path.rsplit_once('.') {
        Some((parent, name)) => (Some(parent), name),
        None => (None, path),
    };
    let fields = match parent {
        None => &tool.params,
        Some(parent) => match unwrap(tool, type_at_argument(tool, parent)?) {
            Type::Object(fields) => fields,
            _ => return None,
        },
    };
    fields.iter().find(|p| p.name == name)
}

/// The value an argument path names inside an arguments object.
pub fn value_at_argument<'v>(args: &'v Value, path: &str) -> Option<&'v Value> {
    let mut current = args;
    for part in path.split('.') {
        let (name, indexes) = part.split_once('[').map_or((part, ""), |(n, rest)| (n, rest));
        current = current.get(name)?;
        for index in indexes.split('[').filter(|s| !s.is_empty()) {
            current = current.get(index.trim_end_matches(']').parse::<usize>().ok()?)?;
        }
    }
    Some(current)
}

/// `ty` without `Described` and `Nullable` wrappers, references resolved to the tool's
/// definitions (a few hops at most: a loop of bare references has no end).
fn unwrap<'t>(tool: &'t Tool, ty: &'t Type) -> &'t Type {
    let mut current = ty;
    for _ in 0..=tool.defs.len() * 2 + 8 {
        current = match current {
            Type::Described(inner, _) | Type::Nullable(inner) => inner,
            Type::Ref(name) => match tool.definition(name) {
                Some(def) => &def.ty,
                None => return current,
            },
            other => return other,
        };
    }
    current
}

/// Whether `ty` is untyped (`Type::Any`, possibly wrapped).
pub fn is_untyped(ty: &Type) -> bool {
    match ty {
        Type::Described(inner, _) | Type::Nullable(inner) => is_untyped(inner),
        other => matches!(other, Type::Any),
    }
}

/// The known issue an OpenAI strict violation is, if it is one: none is open, so every
/// violation fails the tests (the matcher stays for the next one).
pub fn openai_strict(_tool: &Tool, _violation: &Violation) -> Option<KnownIssue> {
    None
}

#[cfg(test)]
mod tests {
    use toolcall_runtime::ir::Param;

    use super::*;

    #[test]
    fn known_issues_have_unique_ids_and_summaries() {
        let mut ids: Vec<&str> = ALL.iter().map(|i| i.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), ALL.len());
        assert!(ALL.iter().all(|i| !i.summary.is_empty()));
    }

    #[test]
    fn paths_into_recursive_types_go_through_the_definitions() {
        let tree = Type::Object(vec![
            Param::new("label", Type::string()),
            Param::new("children", Type::array(Type::reference("Tree"))),
        ]);
        let tool = Tool::new("t").param(Param::new("tree", Type::reference("Tree"))).def("Tree", tree);
        assert_eq!(type_at_argument(&tool, "tree.children[0].children[2].label"), Some(&Type::string()));
        assert_eq!(
            param_at_argument(&tool, "tree.children[1].label").map(|p| p.name.as_str()),
            Some("label")
        );
        assert_eq!(type_at_pointer(&tool, "/$defs/Tree/properties/label"), Some(&Type::string()));
        let looping =
            Tool::new("l").param(Param::new("a", Type::reference("A"))).def("A", Type::reference("A"));
        assert_eq!(type_at_argument(&looping, "a.x"), None);
    }

    #[test]
    fn pointers_and_argument_paths_find_their_types() {
        let tree = Type::Object(vec![
            Param::new("label", Type::string()),
            Param::new("children", Type::array(Type::Any)),
            Param::new("pair", Type::Tuple(vec![Type::Boolean, Type::Any])),
        ]);
        let tool = Tool::new("t")
            .param(Param::new("tree", tree))
            .param(Param::new("m", Type::Map(Box::new(Type::Null))));
        assert_eq!(type_at_pointer(&tool, "/properties/tree/properties/children/items"), Some(&Type::Any));
        assert_eq!(type_at_pointer(&tool, "/properties/m/additionalProperties"), Some(&Type::Null));
        assert_eq!(type_at_pointer(&tool, "/properties/nope"), None);
        assert_eq!(type_at_argument(&tool, "tree.children[3]"), Some(&Type::Any));
        assert_eq!(type_at_argument(&tool, "tree.pair[0]"), Some(&Type::Boolean));
        assert_eq!(type_at_argument(&tool, "m.key"), Some(&Type::Null));
        assert_eq!(type_at_argument(&tool, "tree.label"), Some(&Type::string()));
        assert_eq!(param_at_argument(&tool, "tree.label").map(|p| p.name.as_str()), Some("label"));
        assert_eq!(param_at_argument(&tool, "m").map(|p| p.name.as_str()), Some("m"));
        let args = serde_json::json!({"tree": {"children": [1, {"x": null}]}});
        assert_eq!(value_at_argument(&args, "tree.children[1].x"), Some(&Value::Null));
        assert_eq!(value_at_argument(&args, "tree.children[2]"), None);
    }
}
