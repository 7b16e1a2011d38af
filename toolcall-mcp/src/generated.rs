//! [`server!`](crate::server): a server of everything a crate's build generated, its
//! tools (`toolset::ALL`) and, when the crate has them, its resources
//! (`toolset::RESOURCES`) and prompts (`toolset::PROMPTS`), so that none of them can be
//! left out by forgetting a line.
//!
//! A crate without `src/resources` or `src/prompts` gets no `RESOURCES` or `PROMPTS`
//! (toolcall-build writes none), so the macro cannot name them outright. It looks them up
//! as the crate's own code would: in a block that glob-imports this module's stand-ins
//! ([`absent`](crate::__generated::absent)) and, in a block inside it, the crate's
//! toolset module. A name the toolset module has shadows the stand-in of the outer block,
//! so `RESOURCES` is the crate's when it exists and
//! [`Absent`](crate::__generated::Absent) otherwise, and
//! [`Attach`](crate::__generated::Attach) serves what it is.

use crate::McpServer;

/// What a crate without resources or prompts has in their place: nothing to serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Absent;

/// The stand-ins [`server!`](crate::server) glob-imports before the crate's toolset
/// module, which shadows them with the real ones when it has them.
pub mod absent {
    /// No generated resources.
    pub static RESOURCES: super::Absent = super::Absent;
    /// No generated prompts.
    pub static PROMPTS: super::Absent = super::Absent;
}

/// Something generated that a server serves: the crate's `RESOURCES` (a `ResourceSet`),
/// its `PROMPTS` (a `Toolset`), or [`Absent`].
pub trait Attach<C: Send + Sync + 'static> {
    /// `server`, serving `self` too.
    fn attach(&'static self, server: McpServer<C>) -> McpServer<C>;
}

impl<C: Send + Sync + 'static> Attach<C> for Absent {
    fn attach(&'static self, server: McpServer<C>) -> McpServer<C> {
        server
    }
}

impl<C: Send + Sync + 'static> Attach<C> for toolcall_runtime::ResourceSet<C> {
    #[cfg(feature = "resources")]
    fn attach(&'static self, server: McpServer<C>) -> McpServer<C> {
        server.resources(crate::Resources::from_set(self))
    }

    /// Without feature `resources` the server cannot serve them: said once, at start.
    #[cfg(not(feature = "resources"))]
    fn attach(&'static self, server: McpServer<C>) -> McpServer<C> {
        log::warn!(
            "toolcall-mcp: the crate's {} resources (toolset::RESOURCES) are not served: toolcall-mcp \
             is built without its feature `resources`",
            self.len()
        );
        server
    }
}

impl<C: Send + Sync + 'static> Attach<C> for toolcall_runtime::Toolset<C> {
    #[cfg(feature = "prompts")]
    fn attach(&'static self, server: McpServer<C>) -> McpServer<C> {
        server.prompts(crate::Prompts::from_set(self))
    }

    /// Without feature `prompts` the server cannot serve them: said once, at start.
    #[cfg(not(feature = "prompts"))]
    fn attach(&'static self, server: McpServer<C>) -> McpServer<C> {
        log::warn!(
            "toolcall-mcp: the crate's {} prompts (toolset::PROMPTS) are not served: toolcall-mcp is \
             built without its feature `prompts`",
            self.len()
        );
        server
    }
}

/// An [`McpServer`] of everything the crate's build generated: the tools of
/// `toolset::ALL`, and `toolset::RESOURCES` and `toolset::PROMPTS` when the crate has
/// them (`src/resources`, `src/prompts`), each served as
#[cfg_attr(feature = "resources", doc = "[`Resources::from_set`](crate::Resources::from_set) and")]
#[cfg_attr(not(feature = "resources"), doc = "`Resources::from_set` (feature `resources`) and")]
#[cfg_attr(
    feature = "prompts",
    doc = "[`Prompts::from_set`](crate::Prompts::from_set) serve them. Nothing the build"
)]
#[cfg_attr(
    not(feature = "prompts"),
    doc = "`Prompts::from_set` (feature `prompts`) serve them. Nothing the build"
)]
/// generated is left out by a forgotten line; a crate without resources or prompts gets a
/// server of its tools, as [`McpServer::new`] gives.
///
/// The first argument is the path of the module that includes the generated `tools.rs`
/// (`toolset`, `crate::toolset`); the second the tools' context, as
/// [`McpServer::new`] takes it, or `shared: arc` for
/// [`McpServer::with_shared_context`]. The result is the builder: name it, limit it, or
#[cfg_attr(
    feature = "resources",
    doc = "replace the resources with a richer [`Resources`](crate::Resources) (one built with"
)]
#[cfg_attr(
    not(feature = "resources"),
    doc = "replace the resources with a richer `Resources` (one built with"
)]
/// `list_with`) by calling `.resources(..)` after.
///
/// ```
/// use toolcall_mcp::rmcp::ServerHandler as _;
/// # use example_app::{App, toolset};
///
/// // example-app has src/resources and src/prompts: both are served with its tools.
/// let server = toolcall_mcp::server!(toolset, App::demo()).name("notes");
/// let capabilities = server.get_info().capabilities;
/// assert!(capabilities.resources.is_some() && capabilities.prompts.is_some());
///
/// // A crate with tools only: a server of its tools.
/// let tools_only = toolcall_mcp::server!(toolcall_fixtures::toolset, ());
/// let capabilities = tools_only.get_info().capabilities;
/// assert!(capabilities.resources.is_none() && capabilities.prompts.is_none());
/// ```
#[macro_export]
macro_rules! server {
    ($($toolset:ident)::+, shared: $context:expr $(,)?) => {
        $crate::__attach_generated!(
            $($toolset)::+;
            $crate::McpServer::with_shared_context(&$($toolset)::+::ALL, $context)
        )
    };
    ($($toolset:ident)::+, $context:expr $(,)?) => {
        $crate::__attach_generated!($($toolset)::+; $crate::McpServer::new(&$($toolset)::+::ALL, $context))
    };
}

/// [`server!`]'s second half: `$server` (evaluated before any name is imported), serving
/// the toolset module's `RESOURCES` and `PROMPTS` when it has them.
#[doc(hidden)]
#[macro_export]
macro_rules! __attach_generated {
    ($($toolset:ident)::+; $server:expr) => {
        match $server {
            server => {
                #[allow(unused_imports)]
                use $crate::__generated::absent::*;
                {
                    #[allow(unused_imports)]
                    use $($toolset)::+::*;
                    let server = $crate::__generated::Attach::attach(&RESOURCES, server);
                    $crate::__generated::Attach::attach(&PROMPTS, server)
                }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    static INFO: [toolcall_runtime::ToolInfo; 0] = [];
    static EMITTED: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new();

    /// A toolset module with prompts and no resources, as toolcall-build writes one for a
    /// crate with `src/prompts` only.
    mod with_prompts {
        pub static ALL: toolcall_runtime::Toolset =
            toolcall_runtime::Toolset::new(&super::INFO, &super::EMITTED, |_, _, _| None);
        pub static PROMPTS: toolcall_runtime::Toolset =
            toolcall_runtime::Toolset::new(&super::INFO, &super::EMITTED, |_, _, _| None);
    }

    /// A toolset module of tools alone.
    mod tools_only {
        pub static ALL: toolcall_runtime::Toolset =
            toolcall_runtime::Toolset::new(&super::INFO, &super::EMITTED, |_, _, _| None);
    }

    #[test]
    fn what_the_toolset_module_has_is_served_and_nothing_else() {
        use rmcp::ServerHandler as _;
        let prompts = crate::server!(with_prompts, ()).get_info().capabilities;
        assert_eq!(
            (prompts.prompts.is_some(), prompts.resources.is_some()),
            (cfg!(feature = "prompts"), false)
        );
        let tools = crate::server!(self::tools_only, shared: std::sync::Arc::new(())).get_info().capabilities;
        assert!(tools.prompts.is_none() && tools.resources.is_none());
        assert!(tools.tools.is_some());
    }
}
