//! Change notifications: the [`Notifier`] a program tells that its tools, prompts or
//! resources changed, and the listeners it reaches. A 2026-07-28 client listens with
//! `subscriptions/listen` (a stream that stays open, its notifications filtered by what
//! the client asked for and tagged with the subscription's id, which rmcp's
//! `SubscriptionSink` does); a client of an earlier revision hears on its session
//! (`resources/subscribe` for one resource's updates; list changes on every session that
//! initialized), kept in [`crate::resources`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    PromptListChangedNotification, ServerNotification, SubscriptionFilter, ToolListChangedNotification,
};
#[cfg(feature = "resources")]
use rmcp::model::{
    ResourceListChangedNotification, ResourceUpdatedNotification, ResourceUpdatedNotificationParam,
};
use rmcp::service::{SubscriptionContext, SubscriptionSendError, SubscriptionSink};

/// The open `subscriptions/listen` streams of a server, shared by its sessions.
#[derive(Default)]
pub(crate) struct Listeners {
    next: AtomicU64,
    streams: Mutex<Vec<(u64, SubscriptionSink)>>,
}

impl Listeners {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(u64, SubscriptionSink)>> {
        self.streams.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Serves one `subscriptions/listen` stream until the client ends it: its sink is
    /// told of every change while it is open.
    pub(crate) async fn serve(&self, context: SubscriptionContext) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().push((id, context.sink().clone()));
        context.cancelled().await;
        self.lock().retain(|(stream, _)| *stream != id);
    }

    /// Sends `notification` on every open stream whose filter takes it; streams that
    /// closed are forgotten. How many were told.
    async fn send(&self, notification: impl Fn() -> ServerNotification) -> usize {
        let sinks: Vec<(u64, SubscriptionSink)> = self.lock().clone();
        let mut told = 0;
        for (id, sink) in sinks {
            match sink.send(notification()).await {
                Ok(()) => told += 1,
                Err(SubscriptionSendError::NotificationNotAccepted(_)) => {}
                Err(_) => self.lock().retain(|(stream, _)| *stream != id),
            }
        }
        told
    }
}

/// What the server accepts of a `subscriptions/listen` filter: the list changes it may
/// send, and updates of the resources it serves (rmcp keeps only what was asked for and
/// what the server's capabilities declare).
pub(crate) fn accepted(requested: &SubscriptionFilter, serves: impl Fn(&str) -> bool) -> SubscriptionFilter {
    let mut accepted = requested.clone();
    accepted.resource_subscriptions = requested
        .resource_subscriptions
        .as_ref()
        .map(|uris| uris.iter().filter(|uri| serves(uri)).cloned().collect::<Vec<String>>())
        .filter(|uris| !uris.is_empty());
    accepted
}

/// Tells clients that what the server lists changed: its tools, its prompts, its
/// resources, or one resource. From [`McpServer::notifier`](crate::McpServer::notifier);
/// cheap to clone, usable from any task. Each method says how many listeners it told:
/// 2026-07-28 `subscriptions/listen` streams whose filter asked for that change, and
/// sessions of earlier revisions (with feature `resources`: every session that
/// initialized, for list changes; the sessions subscribed to a resource, for its
/// updates).
#[derive(Clone)]
pub struct Notifier {
    pub(crate) listeners: Arc<Listeners>,
    #[cfg(feature = "resources")]
    pub(crate) subscriptions: Arc<crate::resources::Subscriptions>,
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier").finish_non_exhaustive()
    }
}

impl Notifier {
    /// The list of tools changed (`notifications/tools/list_changed`).
    pub async fn tools_list_changed(&self) -> usize {
        let streams = self
            .listeners
            .send(|| ServerNotification::ToolListChangedNotification(ToolListChangedNotification::default()))
            .await;
        #[cfg(feature = "resources")]
        return streams
            + self
                .subscriptions
                .tell_sessions(|peer| Box::pin(async move { peer.notify_tool_list_changed().await }))
                .await;
        #[cfg(not(feature = "resources"))]
        streams
    }

    /// The list of prompts changed (`notifications/prompts/list_changed`).
    pub async fn prompts_list_changed(&self) -> usize {
        let streams = self
            .listeners
            .send(|| {
                ServerNotification::PromptListChangedNotification(PromptListChangedNotification::default())
            })
            .await;
        #[cfg(feature = "resources")]
        return streams
            + self
                .subscriptions
                .tell_sessions(|peer| Box::pin(async move { peer.notify_prompt_list_changed().await }))
                .await;
        #[cfg(not(feature = "resources"))]
        streams
    }

    /// The list of resources changed, a row added or removed
    /// (`notifications/resources/list_changed`). (Feature `resources`.)
    #[cfg(feature = "resources")]
    pub async fn resources_list_changed(&self) -> usize {
        let streams =
            self.listeners
                .send(|| {
                    ServerNotification::ResourceListChangedNotification(
                        ResourceListChangedNotification::default(),
                    )
                })
                .await;
        streams + self.subscriptions.list_changed().await
    }

    /// The resource `uri` changed (`notifications/resources/updated`), for the listeners
    /// that subscribed to it. (Feature `resources`.)
    #[cfg(feature = "resources")]
    pub async fn resource_updated(&self, uri: &str) -> usize {
        let notification = || {
            ServerNotification::ResourceUpdatedNotification(ResourceUpdatedNotification::new(
                ResourceUpdatedNotificationParam::new(uri),
            ))
        };
        self.listeners.send(notification).await + self.subscriptions.updated(uri).await
    }

    /// Tells the subscribers of `uri` that it changed; the old name of
    /// [`Notifier::resource_updated`].
    #[cfg(feature = "resources")]
    #[deprecated(note = "use `Notifier::resource_updated`")]
    pub async fn updated(&self, uri: &str) -> usize {
        self.resource_updated(uri).await
    }

    /// Tells every listener that the list of resources changed; the old name of
    /// [`Notifier::resources_list_changed`].
    #[cfg(feature = "resources")]
    #[deprecated(note = "use `Notifier::resources_list_changed`")]
    pub async fn list_changed(&self) -> usize {
        self.resources_list_changed().await
    }
}
