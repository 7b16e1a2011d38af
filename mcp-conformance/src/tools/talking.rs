//! Tools that talk while they run: log messages, progress, and a slow answer the client
//! may have to fetch again after reconnecting.

use std::time::Duration;

use toolcall_runtime::{Content, LogLevel, Progress};

/// Logs three messages while it runs.
pub async fn test_tool_with_logging(progress: &Progress) -> Content {
    for (i, message) in
        ["Tool execution started", "Tool processing data", "Tool execution completed"].iter().enumerate()
    {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        progress.log(LogLevel::Info, *message);
    }
    Content::text("Tool with logging executed successfully")
}

/// Reports its progress at 0, 50 and 100 of 100.
pub async fn test_tool_with_progress(progress: &Progress) -> Content {
    for done in [0, 50, 100] {
        if done > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        progress.report(done, Some(100), format!("Completed step {done} of 100"));
    }
    Content::text("Progress reported: 0, 50 and 100 of 100")
}

/// Answers after a short wait, long enough for a client to reconnect.
pub async fn test_reconnection() -> Content {
    tokio::time::sleep(Duration::from_millis(100)).await;
    Content::text(
        "Reconnection test completed successfully. If you received this, the client properly reconnected \
         after stream closure.",
    )
}
