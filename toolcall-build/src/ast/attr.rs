//! `#[serde(..)]` attributes, read once per item into typed records for both directions.
//!
//! Modelled on serde_derive's `internals::attr`: every key serde knows is accepted, with
//! its value forms (`rename = ".."` or `rename(serialize = "..", deserialize = "..")`).
//! A key or value serde itself would reject is a located error (the crate would not
//! compile anyway, and a schema must not be built from a guess); a key serde accepts that
//! changes the wire shape in a way the build cannot see (`with`, `from`, `remote`, ...) is
//! recorded, and the stage that needs the shape reports it.

use crate::model::Tagging;
use proc_macro2::Span;
use syn::spanned::Spanned;

/// A serde `rename_all` rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameRule {
    /// `lowercase`.
    Lower,
    /// `UPPERCASE`.
    Upper,
    /// `PascalCase`.
    Pascal,
    /// `camelCase`.
    Camel,
    /// `snake_case`.
    Snake,
    /// `SCREAMING_SNAKE_CASE`.
    ScreamingSnake,
    /// `kebab-case`.
    Kebab,
    /// `SCREAMING-KEBAB-CASE`.
    ScreamingKebab,
}

const RULES: [(&str, RenameRule); 8] = [
    ("lowercase", RenameRule::Lower),
    ("UPPERCASE", RenameRule::Upper),
    ("PascalCase", RenameRule::Pascal),
    ("camelCase", RenameRule::Camel),
    ("snake_case", RenameRule::Snake),
    ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
    ("kebab-case", RenameRule::Kebab),
    ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
];

impl RenameRule {
    /// The rule named `text`, as serde spells them.
    pub fn parse(text: &str) -> Option<Self> {
        RULES.iter().find(|(name, _)| *name == text).map(|(_, rule)| *rule)
    }

    /// Applies the rule to a variant name (written in PascalCase), as serde does.
    pub fn apply_to_variant(self, name: &str) -> String {
        let snake = || {
            let mut out = String::new();
            for (i, c) in name.chars().enumerate() {
                if c.is_uppercase() && i > 0 {
                    out.push('_');
                }
                out.extend(c.to_lowercase());
            }
            out
        };
        match self {
            RenameRule::Pascal => name.to_owned(),
            RenameRule::Lower => name.to_lowercase(),
            RenameRule::Upper => name.to_uppercase(),
            RenameRule::Camel => lower_first(name),
            RenameRule::Snake => snake(),
            RenameRule::ScreamingSnake => snake().to_uppercase(),
            RenameRule::Kebab => snake().replace('_', "-"),
            RenameRule::ScreamingKebab => snake().replace('_', "-").to_uppercase(),
        }
    }

    /// Applies the rule to a field name (written in snake_case), as serde does.
    pub fn apply_to_field(self, name: &str) -> String {
        let pascal = || name.split('_').map(upper_first).collect::<String>();
        match self {
            RenameRule::Lower | RenameRule::Snake => name.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => name.to_uppercase(),
            RenameRule::Pascal => pascal(),
            RenameRule::Camel => lower_first(&pascal()),
            RenameRule::Kebab => name.replace('_', "-"),
            RenameRule::ScreamingKebab => name.replace('_', "-").to_uppercase(),
        }
    }
}

fn upper_first(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

fn lower_first(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_lowercase().chain(chars).collect()).unwrap_or_default()
}

/// A value per direction: what serialization writes and what deserialization reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Both<T> {
    /// Serialize side.
    pub serialize: T,
    /// Deserialize side.
    pub deserialize: T,
}

/// Container attributes of a struct or enum.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Container {
    /// `rename_all`: applied to field (struct) or variant (enum) names.
    pub rename_all: Both<Option<RenameRule>>,
    /// `rename_all_fields`: applied to the fields of every struct variant.
    pub rename_all_fields: Both<Option<RenameRule>>,
    /// The enum representation (`External` for structs).
    pub tagging: Tagging,
    /// `default`: every field may be absent.
    pub default: bool,
    /// `default = "path"`: absent fields come from a function the build cannot call.
    pub default_fn: bool,
    /// `transparent`.
    pub transparent: bool,
    /// `from`/`try_from` (deserialize through another type) or `remote`.
    pub custom_deserialize: Option<&'static str>,
    /// `into` (serialize through another type) or `remote`.
    pub custom_serialize: Option<&'static str>,
}

/// Field attributes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Field {
    /// `rename`, by direction.
    pub rename: Both<Option<String>>,
    /// `alias` (deserialize side only), in order.
    pub aliases: Vec<String>,
    /// `skip` or `skip_serializing`.
    pub skip_serializing: bool,
    /// `skip` or `skip_deserializing`.
    pub skip_deserializing: bool,
    /// `skip_serializing_if = "path"`: the field may be left out of the output.
    pub skip_serializing_if: bool,
    /// `default` or `default = "path"`.
    pub default: bool,
    /// `default = "path"`: absent, it comes from a function the build cannot call.
    pub default_fn: bool,
    /// `flatten`.
    pub flatten: bool,
    /// `with` or `deserialize_with`: a wire shape the build cannot see, when deserializing.
    pub custom_deserialize: bool,
    /// `with` or `serialize_with` (or `getter`): the same, when serializing.
    pub custom_serialize: bool,
}

/// Variant attributes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Variant {
    /// `rename`, by direction.
    pub rename: Both<Option<String>>,
    /// `alias`, in order.
    pub aliases: Vec<String>,
    /// `rename_all` for the variant's fields.
    pub rename_all: Both<Option<RenameRule>>,
    /// `skip` or `skip_serializing`.
    pub skip_serializing: bool,
    /// `skip` or `skip_deserializing`.
    pub skip_deserializing: bool,
    /// `with`, `serialize_with` or `deserialize_with`.
    pub custom: bool,
    /// `other`: the catch-all unit variant of an internally or adjacently tagged enum.
    pub other: bool,
    /// `untagged` on the variant: tried after the tagged ones.
    pub untagged: bool,
}

/// A problem with an attribute, at its span.
#[derive(Clone, Debug)]
pub struct AttrError {
    /// Where.
    pub span: Span,
    /// What serde would say.
    pub message: String,
}

/// What attributes an item carries: where each record is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Container,
    Field,
    Variant,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Container => "container",
            Kind::Field => "field",
            Kind::Variant => "variant",
        }
    }

    /// Every key serde accepts here.
    fn known(self) -> &'static [&'static str] {
        match self {
            Kind::Container => &[
                "rename",
                "rename_all",
                "rename_all_fields",
                "deny_unknown_fields",
                "tag",
                "content",
                "untagged",
                "bound",
                "default",
                "remote",
                "transparent",
                "from",
                "try_from",
                "into",
                "crate",
                "expecting",
                "variant_identifier",
                "field_identifier",
            ],
            Kind::Field => &[
                "rename",
                "alias",
                "default",
                "flatten",
                "skip",
                "skip_serializing",
                "skip_deserializing",
                "skip_serializing_if",
                "serialize_with",
                "deserialize_with",
                "with",
                "borrow",
                "bound",
                "getter",
            ],
            Kind::Variant => &[
                "rename",
                "alias",
                "rename_all",
                "skip",
                "skip_serializing",
                "skip_deserializing",
                "serialize_with",
                "deserialize_with",
                "with",
                "bound",
                "borrow",
                "other",
                "untagged",
            ],
        }
    }
}

/// One `key`, `key = "value"` or `key(serialize = "..", deserialize = "..")` entry.
struct Entry {
    key: String,
    span: Span,
    value: Value,
}

enum Value {
    None,
    Str(String),
    Both(Option<String>, Option<String>),
    Other,
}

/// Reads every `#[serde(..)]` entry of `attrs`; malformed ones are errors.
fn entries(attrs: &[syn::Attribute], errors: &mut Vec<AttrError>) -> Vec<Entry> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let parsed = attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_else(|| {
                let path = &meta.path;
                quote::quote!(#path).to_string().replace(' ', "")
            });
            let span = meta.path.span();
            let value = if meta.input.peek(syn::Token![=]) {
                match meta.value()?.parse::<syn::Lit>()? {
                    syn::Lit::Str(text) => Value::Str(text.value()),
                    _ => Value::Other,
                }
            } else if meta.input.peek(syn::token::Paren) {
                let (mut ser, mut de) = (None, None);
                meta.parse_nested_meta(|inner| {
                    let text = inner.value()?.parse::<syn::LitStr>()?.value();
                    if inner.path.is_ident("serialize") {
                        ser = Some(text);
                    } else if inner.path.is_ident("deserialize") {
                        de = Some(text);
                    } else {
                        return Err(inner.error("expected `serialize` or `deserialize`"));
                    }
                    Ok(())
                })?;
                Value::Both(ser, de)
            } else {
                Value::None
            };
            out.push(Entry { key, span, value });
            Ok(())
        });
        if let Err(error) = parsed {
            errors.push(AttrError {
                span: error.span(),
                message: format!("malformed serde attribute: {error}"),
            });
        }
    }
    out
}

/// Reads entries of `kind`, reporting keys serde does not know.
fn known_entries(attrs: &[syn::Attribute], kind: Kind, errors: &mut Vec<AttrError>) -> Vec<Entry> {
    let all = entries(attrs, errors);
    let (known, unknown): (Vec<Entry>, Vec<Entry>) =
        all.into_iter().partition(|entry| kind.known().contains(&entry.key.as_str()));
    for entry in unknown {
        let message = format!("unknown serde {} attribute `{}`", kind.name(), entry.key);
        errors.push(AttrError { span: entry.span, message });
    }
    known
}

/// A string-valued key in either direction: `key = ".."` sets both.
fn both_strings(entry: &Entry, errors: &mut Vec<AttrError>) -> Both<Option<String>> {
    match &entry.value {
        Value::Str(text) => Both { serialize: Some(text.clone()), deserialize: Some(text.clone()) },
        Value::Both(ser, de) => Both { serialize: ser.clone(), deserialize: de.clone() },
        Value::None | Value::Other => {
            let message =
                format!("expected serde {} attribute to be a string: `{} = \"...\"`", entry.key, entry.key);
            errors.push(AttrError { span: entry.span, message });
            Both::default()
        }
    }
}

/// A `rename_all`-style key: each direction's rule must be one serde knows.
fn both_rules(entry: &Entry, errors: &mut Vec<AttrError>) -> Both<Option<RenameRule>> {
    let texts = both_strings(entry, errors);
    let mut rule = |text: Option<String>| {
        let text = text?;
        let found = RenameRule::parse(&text);
        if found.is_none() {
            let expected: Vec<String> = RULES.iter().map(|(name, _)| format!("\"{name}\"")).collect();
            let message = format!(
                "unknown rename rule `{} = \"{text}\"`, expected one of {}",
                entry.key,
                expected.join(", ")
            );
            errors.push(AttrError { span: entry.span, message });
        }
        found
    };
    Both { serialize: rule(texts.serialize), deserialize: rule(texts.deserialize) }
}

/// A key that takes one string.
fn string(entry: &Entry, errors: &mut Vec<AttrError>) -> Option<String> {
    match &entry.value {
        Value::Str(text) => Some(text.clone()),
        _ => {
            let message =
                format!("expected serde {} attribute to be a string: `{} = \"...\"`", entry.key, entry.key);
            errors.push(AttrError { span: entry.span, message });
            None
        }
    }
}

/// Reads container attributes. `is_enum` decides what `tag`/`untagged` may mean.
pub fn container(attrs: &[syn::Attribute], is_enum: bool, errors: &mut Vec<AttrError>) -> Container {
    let mut out = Container::default();
    let (mut tag, mut content, mut untagged) = (None, None, None);
    for entry in known_entries(attrs, Kind::Container, errors) {
        match entry.key.as_str() {
            "rename_all" => out.rename_all = both_rules(&entry, errors),
            "rename_all_fields" => {
                if !is_enum {
                    let message = "#[serde(rename_all_fields)] can only be used on enums".to_owned();
                    errors.push(AttrError { span: entry.span, message });
                }
                out.rename_all_fields = both_rules(&entry, errors);
            }
            "tag" => tag = string(&entry, errors).map(|t| (t, entry.span)),
            "content" => content = string(&entry, errors).map(|c| (c, entry.span)),
            "untagged" => untagged = Some(entry.span),
            "default" => {
                out.default = true;
                out.default_fn = matches!(entry.value, Value::Str(_));
            }
            "transparent" => out.transparent = true,
            "from" | "try_from" => {
                out.custom_deserialize = Some(if entry.key == "from" { "from" } else { "try_from" })
            }
            "into" => out.custom_serialize = Some("into"),
            "remote" => {
                out.custom_deserialize = Some("remote");
                out.custom_serialize = Some("remote");
            }
            // Accepted by serde, no effect on the wire shape the schema describes.
            _ => {}
        }
    }
    out.tagging = tagging(is_enum, tag, content, untagged, errors);
    out
}

/// The enum representation from `tag`, `content` and `untagged`, with serde's conflicts.
fn tagging(
    is_enum: bool,
    tag: Option<(String, Span)>,
    content: Option<(String, Span)>,
    untagged: Option<Span>,
    errors: &mut Vec<AttrError>,
) -> Tagging {
    let mut error = |span: Span, message: &str| errors.push(AttrError { span, message: message.to_owned() });
    if !is_enum {
        if let Some(span) = untagged {
            error(span, "#[serde(untagged)] can only be used on enums");
        }
        if let Some((_, span)) = &content {
            error(*span, "#[serde(content = \"...\")] can only be used on enums");
        }
        return Tagging::External;
    }
    match (tag, content, untagged) {
        (None, None, None) => Tagging::External,
        (Some((tag, _)), None, None) => Tagging::Internal(tag),
        (Some((tag, _)), Some((content, _)), None) => Tagging::Adjacent(tag, content),
        (None, None, Some(_)) => Tagging::Untagged,
        (None, Some((_, span)), None) => {
            error(span, "#[serde(tag = \"...\", content = \"...\")] must be used together");
            Tagging::External
        }
        (_, _, Some(span)) => {
            error(span, "enum cannot be both untagged and tagged (`tag`/`content`)");
            Tagging::Untagged
        }
    }
}

/// Reads field attributes.
pub fn field(attrs: &[syn::Attribute], errors: &mut Vec<AttrError>) -> Field {
    let mut out = Field::default();
    for entry in known_entries(attrs, Kind::Field, errors) {
        match entry.key.as_str() {
            "rename" => out.rename = both_strings(&entry, errors),
            "alias" => out.aliases.extend(string(&entry, errors)),
            "default" => {
                out.default = true;
                out.default_fn = matches!(entry.value, Value::Str(_));
            }
            "flatten" => out.flatten = true,
            "skip" => (out.skip_serializing, out.skip_deserializing) = (true, true),
            "skip_serializing" => out.skip_serializing = true,
            "skip_deserializing" => out.skip_deserializing = true,
            "skip_serializing_if" => out.skip_serializing_if = string(&entry, errors).is_some(),
            "with" => (out.custom_serialize, out.custom_deserialize) = (true, true),
            "serialize_with" | "getter" => out.custom_serialize = true,
            "deserialize_with" => out.custom_deserialize = true,
            _ => {}
        }
    }
    out
}

/// Reads variant attributes.
pub fn variant(attrs: &[syn::Attribute], errors: &mut Vec<AttrError>) -> Variant {
    let mut out = Variant::default();
    for entry in known_entries(attrs, Kind::Variant, errors) {
        match entry.key.as_str() {
            "rename" => out.rename = both_strings(&entry, errors),
            "alias" => out.aliases.extend(string(&entry, errors)),
            "rename_all" => out.rename_all = both_rules(&entry, errors),
            "skip" => (out.skip_serializing, out.skip_deserializing) = (true, true),
            "skip_serializing" => out.skip_serializing = true,
            "skip_deserializing" => out.skip_deserializing = true,
            "with" | "serialize_with" | "deserialize_with" => out.custom = true,
            "other" => out.other = true,
            "untagged" => out.untagged = true,
            _ => {}
        }
    }
    out
}

/// Whether `#[derive(..)]` lists the trait `name` (by its last path segment).
pub fn derives(attrs: &[syn::Attribute], name: &str) -> bool {
    let mut found = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        // A derive list that does not parse is rustc's to report.
        let _unparsed = attr.parse_nested_meta(|meta| {
            found |= meta.path.segments.last().is_some_and(|s| s.ident == name);
            Ok(())
        });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors_of(f: impl FnOnce(&mut Vec<AttrError>)) -> Vec<String> {
        let mut errors = Vec::new();
        f(&mut errors);
        errors.into_iter().map(|e| e.message).collect()
    }

    #[test]
    fn rename_rules_match_serde() {
        let rule = |name| RenameRule::parse(name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(rule("snake_case").apply_to_variant("VeryTasty"), "very_tasty");
        assert_eq!(rule("kebab-case").apply_to_variant("VeryTasty"), "very-tasty");
        assert_eq!(rule("camelCase").apply_to_variant("VeryTasty"), "veryTasty");
        assert_eq!(rule("SCREAMING_SNAKE_CASE").apply_to_variant("VeryTasty"), "VERY_TASTY");
        assert_eq!(rule("lowercase").apply_to_variant("VeryTasty"), "verytasty");
        assert_eq!(rule("camelCase").apply_to_field("zip_code"), "zipCode");
        assert_eq!(rule("PascalCase").apply_to_field("zip_code"), "ZipCode");
        assert_eq!(rule("kebab-case").apply_to_field("zip_code"), "zip-code");
        assert_eq!(rule("SCREAMING-KEBAB-CASE").apply_to_field("zip_code"), "ZIP-CODE");
        assert_eq!(rule("lowercase").apply_to_field("zip_code"), "zip_code");
        assert_eq!(RenameRule::parse("Title Case"), None);
    }

    #[test]
    fn both_directions_are_read() {
        let item: syn::ItemStruct = syn::parse_quote! {
            #[serde(rename_all(serialize = "camelCase", deserialize = "kebab-case"))]
            struct S {
                #[serde(rename(serialize = "out"), alias = "a", alias = "b", skip_serializing_if = "Option::is_none")]
                x: Option<u8>,
            }
        };
        let mut errors = Vec::new();
        let container = container(&item.attrs, false, &mut errors);
        assert_eq!(container.rename_all.serialize, Some(RenameRule::Camel));
        assert_eq!(container.rename_all.deserialize, Some(RenameRule::Kebab));
        let field = field(&item.fields.iter().next().unwrap().attrs, &mut errors);
        assert_eq!(field.rename, Both { serialize: Some("out".into()), deserialize: None });
        assert_eq!(field.aliases, ["a", "b"]);
        assert!(field.skip_serializing_if && !field.skip_serializing);
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn what_serde_rejects_is_an_error() {
        let item: syn::ItemEnum = syn::parse_quote! {
            #[serde(rename_all = "Title Case", frobnicate, tag = "t", untagged)]
            enum E { #[serde(rename = 3)] A, #[serde(skip_if = "x")] B }
        };
        let errors = errors_of(|errors| {
            container(&item.attrs, true, errors);
            for v in &item.variants {
                variant(&v.attrs, errors);
            }
        });
        assert!(
            errors.iter().any(|e| e.starts_with("unknown rename rule `rename_all = \"Title Case\"`")),
            "{errors:?}"
        );
        assert!(errors.contains(&"unknown serde container attribute `frobnicate`".to_owned()), "{errors:?}");
        assert!(errors.iter().any(|e| e.contains("both untagged and tagged")), "{errors:?}");
        assert!(
            errors.iter().any(|e| e.contains("expected serde rename attribute to be a string")),
            "{errors:?}"
        );
        assert!(errors.contains(&"unknown serde variant attribute `skip_if`".to_owned()), "{errors:?}");
    }

    #[test]
    fn struct_only_and_enum_only_keys() {
        let item: syn::ItemStruct = syn::parse_quote! {
            #[serde(untagged, rename_all_fields = "camelCase", content = "c")]
            struct S { x: u8 }
        };
        let errors = errors_of(|errors| {
            container(&item.attrs, false, errors);
        });
        assert_eq!(errors.len(), 3, "{errors:?}");
        let item: syn::ItemEnum = syn::parse_quote! {
            #[serde(tag = "t", content = "c", rename_all_fields = "camelCase", deny_unknown_fields)]
            enum E { A { long_name: u8 } }
        };
        let mut errors = Vec::new();
        let read = container(&item.attrs, true, &mut errors);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(read.tagging, Tagging::Adjacent("t".into(), "c".into()));
        assert_eq!(read.rename_all_fields.deserialize, Some(RenameRule::Camel));
    }
}
