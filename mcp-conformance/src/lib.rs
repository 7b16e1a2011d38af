//! The test server of the official MCP conformance suite (`@modelcontextprotocol/conformance`),
//! written the toolcall way: its tools are plain functions in `src/tools` that the build
//! script turns into a toolset; its resources and prompts use toolcall-mcp's run-time API.
//! `tests/suite.rs` starts the binary and runs the suite against it.

pub mod media;
pub mod tools;

/// The generated toolset of `src/tools`.
pub mod toolset {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

use toolcall_mcp::resources::{blob, text};
use toolcall_mcp::rmcp::model::{
    ContentBlock, Prompt, PromptArgument, PromptMessage, Resource, ResourceContents, ResourceTemplate, Role,
};
use toolcall_mcp::{McpServer, Prompts, Resources};

/// The server the suite tests: the tools, resources and prompts it asks for.
pub fn server() -> McpServer<()> {
    McpServer::new(&toolset::ALL, ())
        .name("toolcall-mcp-conformance")
        .resources(resources())
        .prompts(prompts())
}

/// The suite's resources: a text, a binary, a template and one to subscribe to.
pub fn resources() -> Resources<()> {
    Resources::new()
        .resource(
            Resource::new("test://static-text", "static-text")
                .with_description("A static text resource")
                .with_mime_type("text/plain"),
            |_, request| {
                Box::pin(async move {
                    Ok(vec![text(
                        &request.uri,
                        "text/plain",
                        "This is the content of the static text resource.",
                    )])
                })
            },
        )
        .resource(
            Resource::new("test://static-binary", "static-binary")
                .with_description("A static binary resource (a PNG image)")
                .with_mime_type("image/png"),
            |_, request| Box::pin(async move { Ok(vec![blob(&request.uri, "image/png", &media::png())]) }),
        )
        .resource(
            Resource::new("test://watched-resource", "watched-resource")
                .with_description("A resource to subscribe to")
                .with_mime_type("text/plain"),
            |_, request| {
                Box::pin(
                    async move { Ok(vec![text(&request.uri, "text/plain", "Watched resource content")]) },
                )
            },
        )
        .template(
            ResourceTemplate::new("test://template/{id}/data", "template")
                .with_description("Data by id")
                .with_mime_type("application/json"),
            |_, request| {
                Box::pin(async move {
                    let id = request.variables.get("id").cloned().unwrap_or_default();
                    let data = format!(r#"{{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}}"#);
                    Ok(vec![text(&request.uri, "application/json", data)])
                })
            },
        )
}

/// The suite's prompts: plain, with arguments, with an embedded resource, with an image.
pub fn prompts() -> Prompts<()> {
    let arg = |name: &str, description: &str| {
        PromptArgument::new(name).with_description(description).with_required(true)
    };
    let user = |content: ContentBlock| PromptMessage::new(Role::User, content);
    Prompts::new()
        .prompt(
            Prompt::new("test_simple_prompt", Some("A simple prompt without arguments"), None),
            move |_, _| {
                Box::pin(
                    async move { Ok(vec![user(ContentBlock::text("This is a simple prompt for testing."))]) },
                )
            },
        )
        .prompt(
            Prompt::new(
                "test_prompt_with_arguments",
                Some("A prompt with two arguments"),
                Some(vec![arg("arg1", "First test argument"), arg("arg2", "Second test argument")]),
            ),
            move |_, request| {
                Box::pin(async move {
                    let get = |name: &str| request.arguments.get(name).cloned().unwrap_or_default();
                    let text =
                        format!("Prompt with arguments: arg1='{}', arg2='{}'", get("arg1"), get("arg2"));
                    Ok(vec![user(ContentBlock::text(text))])
                })
            },
        )
        .prompt(
            Prompt::new(
                "test_prompt_with_embedded_resource",
                Some("A prompt with an embedded resource"),
                Some(vec![arg("resourceUri", "URI of the resource to embed")]),
            ),
            move |_, request| {
                Box::pin(async move {
                    let uri = request.arguments.get("resourceUri").cloned().unwrap_or_default();
                    let contents = ResourceContents::TextResourceContents {
                        uri,
                        mime_type: Some("text/plain".to_owned()),
                        text: "Embedded resource content for testing.".to_owned(),
                        meta: None,
                    };
                    let resource = ContentBlock::resource(contents);
                    Ok(vec![
                        user(resource),
                        user(ContentBlock::text("Please process the embedded resource above.")),
                    ])
                })
            },
        )
        .prompt(Prompt::new("test_prompt_with_image", Some("A prompt with an image"), None), move |_, _| {
            Box::pin(async move {
                let image = ContentBlock::image(toolcall_runtime::base64_encode(&media::png()), "image/png");
                Ok(vec![user(image), user(ContentBlock::text("Please analyze the image above."))])
            })
        })
        .complete("test_prompt_with_arguments", "arg1", |_, typed, _| {
            toolcall_mcp::resources::starting_with(&["test", "testValue", "example"], typed)
        })
}
