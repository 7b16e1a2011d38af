//! The `#[serde(..)]` attributes that change a type's wire shape, read so the schema and
//! the generated decoder match how serde (de)serializes the type.

use syn::Attribute;

/// Container attributes of a struct or enum.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContainerAttrs {
    /// `rename_all = ".."`.
    pub rename_all: Option<String>,
    /// `tag = ".."`.
    pub tag: Option<String>,
    /// `content = ".."`.
    pub content: Option<String>,
    /// `untagged`.
    pub untagged: bool,
    /// `default` on the container: every field may be absent.
    pub default: bool,
    /// `transparent`.
    pub transparent: bool,
}

/// Field or variant attributes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemberAttrs {
    /// `rename = ".."` (or `rename(deserialize = "..")`).
    pub rename: Option<String>,
    /// `default` or `default = ".."`.
    pub default: bool,
    /// `skip` or `skip_deserializing`.
    pub skip: bool,
    /// `flatten` (not supported by the generated decoder).
    pub flatten: bool,
    /// `rename_all` on a struct variant.
    pub rename_all: Option<String>,
    /// `with`, `deserialize_with`: a custom wire shape the build cannot see.
    pub custom: bool,
}

/// Reads the container attributes; unknown keys are ignored.
pub fn container(attrs: &[Attribute]) -> ContainerAttrs {
    let mut out = ContainerAttrs::default();
    for_each_serde_meta(attrs, |key, value| match key {
        "rename_all" => out.rename_all = value,
        "tag" => out.tag = value,
        "content" => out.content = value,
        "untagged" => out.untagged = true,
        "default" => out.default = true,
        "transparent" => out.transparent = true,
        _ => {}
    });
    out
}

/// Reads field or variant attributes; unknown keys are ignored.
pub fn member(attrs: &[Attribute]) -> MemberAttrs {
    let mut out = MemberAttrs::default();
    for_each_serde_meta(attrs, |key, value| match key {
        "rename" => out.rename = value.or(out.rename.take()),
        "default" => out.default = true,
        "skip" | "skip_deserializing" => out.skip = true,
        "flatten" => out.flatten = true,
        "rename_all" => out.rename_all = value,
        "with" | "deserialize_with" => out.custom = true,
        _ => {}
    });
    out
}

/// Whether `#[derive(..)]` lists `Deserialize` (by its last path segment).
pub fn derives_deserialize(attrs: &[Attribute]) -> bool {
    let mut found = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let _ = attr.parse_nested_meta(|meta| {
            found |= meta.path.segments.last().is_some_and(|s| s.ident == "Deserialize");
            Ok(())
        });
    }
    found
}

/// Calls `f(key, string value)` for every `key` or `key = "value"` inside `#[serde(..)]`.
/// `rename(deserialize = "x")` reports `rename` with `x`.
fn for_each_serde_meta(attrs: &[Attribute], mut f: impl FnMut(&str, Option<String>)) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
            if meta.input.peek(syn::Token![=]) {
                let value = meta.value()?;
                match value.parse::<syn::Lit>()? {
                    syn::Lit::Str(text) => f(&key, Some(text.value())),
                    _ => f(&key, None),
                }
            } else if meta.input.peek(syn::token::Paren) {
                let mut chosen = None;
                meta.parse_nested_meta(|inner| {
                    let value = inner.value()?.parse::<syn::LitStr>()?;
                    if inner.path.is_ident("deserialize") {
                        chosen = Some(value.value());
                    }
                    Ok(())
                })?;
                if chosen.is_some() {
                    f(&key, chosen);
                }
            } else {
                f(&key, None);
            }
            Ok(())
        });
    }
}

/// Applies a serde `rename_all` rule to a variant name (written in PascalCase).
pub fn rename_variant(name: &str, rule: &str) -> String {
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
    match rule {
        "lowercase" => name.to_lowercase(),
        "UPPERCASE" => name.to_uppercase(),
        "camelCase" => lower_first(name),
        "snake_case" => snake(),
        "SCREAMING_SNAKE_CASE" => snake().to_uppercase(),
        "kebab-case" => snake().replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => snake().replace('_', "-").to_uppercase(),
        _ => name.to_owned(),
    }
}

/// Applies a serde `rename_all` rule to a field name (written in snake_case).
pub fn rename_field(name: &str, rule: &str) -> String {
    let pascal = || name.split('_').map(upper_first).collect::<String>();
    match rule {
        "UPPERCASE" | "SCREAMING_SNAKE_CASE" => name.to_uppercase(),
        "PascalCase" => pascal(),
        "camelCase" => lower_first(&pascal()),
        "kebab-case" => name.replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => name.replace('_', "-").to_uppercase(),
        _ => name.to_owned(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rename_rules_match_serde() {
        assert_eq!(rename_variant("VeryTasty", "snake_case"), "very_tasty");
        assert_eq!(rename_variant("VeryTasty", "kebab-case"), "very-tasty");
        assert_eq!(rename_variant("VeryTasty", "camelCase"), "veryTasty");
        assert_eq!(rename_variant("VeryTasty", "SCREAMING_SNAKE_CASE"), "VERY_TASTY");
        assert_eq!(rename_field("zip_code", "camelCase"), "zipCode");
        assert_eq!(rename_field("zip_code", "PascalCase"), "ZipCode");
        assert_eq!(rename_field("zip_code", "kebab-case"), "zip-code");
        assert_eq!(rename_field("zip_code", "SCREAMING-KEBAB-CASE"), "ZIP-CODE");
    }

    #[test]
    fn reads_container_and_member_attributes() {
        let item: syn::ItemEnum = syn::parse_quote! {
            #[derive(Debug, serde::Deserialize)]
            #[serde(tag = "type", rename_all = "snake_case")]
            enum Shape { #[serde(rename = "disc")] Circle { r: f64 }, #[serde(skip)] Hidden }
        };
        let attrs = container(&item.attrs);
        assert_eq!(attrs.tag.as_deref(), Some("type"));
        assert_eq!(attrs.rename_all.as_deref(), Some("snake_case"));
        assert!(derives_deserialize(&item.attrs));
        let variants: Vec<MemberAttrs> = item.variants.iter().map(|v| member(&v.attrs)).collect();
        assert_eq!(variants[0].rename.as_deref(), Some("disc"));
        assert!(variants[1].skip);
    }
}
