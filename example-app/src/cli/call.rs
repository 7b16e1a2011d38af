//! `example-app call NAME JSON`: one tool call through the generated dispatcher, as the
//! demo's signed-in user, on `--db`'s database (or the built-in one). The call is approved by
//! whoever typed it: a tool that confirms first (`remove_note`) takes it as the yes.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Args;
use toolcall_runtime::Progress;

use crate::app::Location;
use crate::models::User;
use crate::{App, toolset};

/// `call NAME JSON`.
#[derive(Clone, Debug, PartialEq, Eq, Args)]
pub struct CallArgs {
    /// The tool name.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// The arguments as JSON text, as OpenAI sends them (e.g. '{"city":"Oslo"}').
    ///
    /// Kept as bytes: text that is not UTF-8 is the dispatcher's to reject
    /// (`invalid_json`), like any other bad input.
    #[arg(value_name = "JSON", allow_hyphen_values = true)]
    pub json: OsString,
}

impl CallArgs {
    /// Runs the call as Ada on the database at `db`: the result on stdout (exit 0), or the
    /// error's JSON object on stdout and its message on stderr (exit 1). A database that
    /// cannot be opened is one line on stderr (exit 1).
    pub fn run(self, db: Option<&Location>) -> ExitCode {
        let runtime = match super::runtime() {
            Ok(runtime) => runtime,
            Err(exit) => return exit,
        };
        let store = match super::open_store(&runtime, db) {
            Ok(store) => store,
            Err(exit) => return exit,
        };
        let app = App::for_user(&store, User::ada());
        let json = bytes(self.json);
        // The person who typed the call approved it: a tool's own confirmation
        // (`remove_note`'s `Progress::confirm_with`) is that yes, not a question no one
        // can answer here.
        let approved = Progress::default().approved();
        let called = match std::str::from_utf8(&json) {
            Ok(text) => runtime.block_on(toolset::ALL.call_json_reporting(&app, &self.name, text, &approved)),
            Err(_) => runtime.block_on(toolset::ALL.call_bytes(&app, &self.name, &json)),
        };
        match called {
            Ok(value) => super::println_stdout(&value.to_string()),
            Err(error) => {
                let _ = super::println_stdout(&error.to_value().to_string());
                eprintln!("error: {error}");
                ExitCode::FAILURE
            }
        }
    }
}

/// The raw bytes of an argument.
#[cfg(unix)]
fn bytes(arg: OsString) -> Vec<u8> {
    std::os::unix::ffi::OsStringExt::into_vec(arg)
}

/// The bytes of an argument; outside Unix, unpaired surrogates become U+FFFD.
#[cfg(not(unix))]
fn bytes(arg: OsString) -> Vec<u8> {
    arg.to_string_lossy().into_owned().into_bytes()
}
