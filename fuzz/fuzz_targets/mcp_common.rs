//! What the MCP targets share: a runtime with workers (the server spawns its tasks and
//! runs calls on the blocking pool), the run's one store, and the apps of its users.

use std::sync::{Arc, LazyLock};

use example_app::App;
use example_app::app::Store;
use example_app::models::{Role, User};

/// The runtime every input runs on.
pub static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
});

/// The one store of the run (the notes in a `Vec`), reset before each input that may
/// have written.
pub static STORE: LazyLock<Arc<Store>> = LazyLock::new(|| Arc::new(Store::plain(true)));

/// The app of user `id` on the run's store.
pub fn app(id: u64, name: &str, role: Role) -> App {
    App::for_user(&STORE, User { id, name: name.to_owned(), role })
}
