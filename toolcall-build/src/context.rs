//! The crate's context type (`Builder::context("crate::App")`): which parameters are the
//! context, so they are passed by the caller and never read from the model's arguments.
//!
//! A tool takes the context as `&App`, written as the declared path, its last segment,
//! or any name a `use` in the tool file resolves to the declared path.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// A declared context type.
#[derive(Clone, Debug)]
pub struct ContextType {
    path: syn::Path,
    segments: Vec<String>,
}

/// How a parameter relates to the context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContextUse {
    /// `&App`: the context, passed by the caller.
    Shared,
    /// `&mut App`: the context is shared between concurrent calls, so this cannot be served.
    Mutable,
    /// `App` by value: the caller lends the context, it cannot give it away.
    Owned,
    /// Not the context.
    No,
}

impl ContextType {
    /// Parses the declared path (`crate::App`); `None` when it is not a Rust type path.
    pub fn parse(text: &str) -> Option<Self> {
        let path: syn::Path = syn::parse_str(text.trim()).ok()?;
        let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
        Some(ContextType { path, segments })
    }

    /// The path as written in build.rs, normalized (`crate::App`).
    pub fn display(&self) -> String {
        self.segments.join("::")
    }

    /// The type in generated code.
    pub fn tokens(&self) -> TokenStream {
        self.path.to_token_stream()
    }

    /// Whether parameter type `ty` is a reference to the context, given the file's
    /// `use` imports (name -> full path).
    pub fn classify(&self, ty: &syn::Type, imports: &BTreeMap<String, String>) -> ContextUse {
        use_of(ty, |path| self.names(path, imports))
    }

    /// Whether `path` names the context: the full path, its last segment, or through a `use`.
    fn names(&self, path: &syn::Path, imports: &BTreeMap<String, String>) -> bool {
        let declared = self.display();
        let written: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if written.join("::") == declared {
            return true;
        }
        let Some(first) = written.first() else { return false };
        if imports.contains_key(first) {
            return crate::parse::resolve(imports, path) == declared;
        }
        written.len() == 1 && self.segments.last() == Some(first)
    }
}

/// The runtime's progress handle, as a tool names it (the path, or through a `use`).
pub const PROGRESS_PATH: &str = "toolcall_runtime::Progress";

/// Whether parameter type `ty` is `&toolcall_runtime::Progress` (written as the path, or
/// as a name a `use` in the tool file resolves to it): passed by the caller, never in a
/// schema. `&mut Progress` is [`ContextUse::Mutable`], `Progress` by value [`ContextUse::Owned`].
pub fn progress_use(ty: &syn::Type, imports: &BTreeMap<String, String>) -> ContextUse {
    use_of(ty, |path| crate::parse::resolve(imports, path) == PROGRESS_PATH)
}

/// How `ty` takes the type whose paths `names` recognizes: `&T`, `&mut T`, `T` by value,
/// or not at all.
fn use_of(ty: &syn::Type, names: impl Fn(&syn::Path) -> bool) -> ContextUse {
    let named = |ty: &syn::Type| matches!(strip(ty), syn::Type::Path(path) if path.qself.is_none() && names(&path.path));
    match strip(ty) {
        syn::Type::Reference(reference) if named(&reference.elem) => {
            if reference.mutability.is_some() {
                ContextUse::Mutable
            } else {
                ContextUse::Shared
            }
        }
        owned if named(owned) => ContextUse::Owned,
        _ => ContextUse::No,
    }
}

fn strip(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Paren(p) => strip(&p.elem),
        syn::Type::Group(g) => strip(&g.elem),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(context: &str, ty: &str, imports: &[(&str, &str)]) -> ContextUse {
        let context = ContextType::parse(context).unwrap_or_else(|| panic!("bad path {context}"));
        let imports = imports.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let ty: syn::Type = syn::parse_str(ty).unwrap_or_else(|e| panic!("{ty}: {e}"));
        context.classify(&ty, &imports)
    }

    #[test]
    fn the_context_is_named_by_path_last_segment_or_use() {
        assert_eq!(classify("crate::App", "&crate::App", &[]), ContextUse::Shared);
        assert_eq!(classify("crate::App", "&App", &[]), ContextUse::Shared);
        assert_eq!(classify("crate::App", "&'a App", &[]), ContextUse::Shared);
        assert_eq!(
            classify("crate::state::App", "&State", &[("State", "crate::state::App")]),
            ContextUse::Shared
        );
        assert_eq!(
            classify("crate::state::App", "&state::App", &[("state", "crate::state")]),
            ContextUse::Shared
        );
        assert_eq!(classify("crate::App", "&mut App", &[]), ContextUse::Mutable);
        assert_eq!(classify("crate::App", "App", &[]), ContextUse::Owned);
        assert_eq!(classify("crate::App", "crate::App", &[]), ContextUse::Owned);
    }

    #[test]
    fn other_types_are_not_the_context() {
        assert_eq!(classify("crate::App", "Db", &[]), ContextUse::No);
        assert_eq!(classify("crate::App", "&Db", &[]), ContextUse::No);
        assert_eq!(classify("crate::App", "&other::App", &[]), ContextUse::No);
        // A `use` that brings in another `App` wins over the last-segment rule.
        assert_eq!(classify("crate::App", "&App", &[("App", "crate::other::App")]), ContextUse::No);
        assert_eq!(classify("crate::App", "&str", &[]), ContextUse::No);
    }

    #[test]
    fn progress_is_named_by_path_or_use() {
        let classify = |ty: &str, imports: &[(&str, &str)]| {
            let imports = imports.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            let ty: syn::Type = syn::parse_str(ty).unwrap_or_else(|e| panic!("{ty}: {e}"));
            progress_use(&ty, &imports)
        };
        assert_eq!(classify("&toolcall_runtime::Progress", &[]), ContextUse::Shared);
        assert_eq!(classify("&::toolcall_runtime::Progress", &[]), ContextUse::Shared);
        assert_eq!(
            classify("&'a Progress", &[("Progress", "toolcall_runtime::Progress")]),
            ContextUse::Shared
        );
        assert_eq!(classify("&P", &[("P", "toolcall_runtime::Progress")]), ContextUse::Shared);
        assert_eq!(classify("&rt::Progress", &[("rt", "toolcall_runtime")]), ContextUse::Shared);
        assert_eq!(classify("&mut toolcall_runtime::Progress", &[]), ContextUse::Mutable);
        assert_eq!(classify("&Progress", &[]), ContextUse::No);
        assert_eq!(classify("&Progress", &[("Progress", "crate::Progress")]), ContextUse::No);
        assert_eq!(classify("toolcall_runtime::Progress", &[]), ContextUse::Owned);
        assert_eq!(classify("Vec<toolcall_runtime::Progress>", &[]), ContextUse::No);
    }

    #[test]
    fn context_paths_must_parse() {
        assert!(ContextType::parse("crate::App").is_some());
        assert!(ContextType::parse(" crate::App ").is_some());
        assert!(ContextType::parse("crate::").is_none());
        assert!(ContextType::parse("not a path").is_none());
        assert!(ContextType::parse("").is_none());
    }
}
