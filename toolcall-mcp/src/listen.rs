//! Change notifications: the [`Notifier`] a program tells that its tools, prompts or
//! resources changed, and the listeners it reaches. A 2026-07-28 client listens with
//! `subscriptions/listen` (a stream that stays open, its notifications filtered by what
//! the client asked for and tagged with the subscription's id, which rmcp's
//! `SubscriptionSink` does); a client of an earlier revision hears on its session
//! (`resources/subscribe` for one resource's updates; list changes on every session that
//! initialized), kept here too ([`Subscriptions`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    PromptListChangedNotification, ServerNotification, SubscriptionFilter, ToolListChangedNotification,
};
#[cfg(feature = "resources")]
use rmcp::model::{
    ResourceListChangedNotification, ResourceUpdatedNotification, ResourceUpdatedNotificationParam,
};
#[cfg(feature = "resources")]
use rmcp::service::{Peer, RoleServer};
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
    pub(crate) subscriptions: Arc<Subscriptions>,
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

/// Who subscribed to which URI: each session's peer, so an update reaches every session
/// that asked for it. Shared by a server and its per-session clones.
#[cfg(feature = "resources")]
#[derive(Default)]
pub(crate) struct Subscriptions {
    next_session: AtomicU64,
    entries: Mutex<Vec<(u64, String, Peer<RoleServer>)>>,
    /// The sessions told when the list changes: each session that initialized, under a
    /// number of its own (two in-process sessions of one server share a session number).
    listeners: Mutex<Vec<(u64, Peer<RoleServer>)>>,
}

#[cfg(feature = "resources")]
impl Subscriptions {
    /// A number for a new session.
    pub(crate) fn new_session(&self) -> u64 {
        self.next_session.fetch_add(1, Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(u64, String, Peer<RoleServer>)>> {
        self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Session `session` (reached through `peer`) wants updates of `uri`.
    pub(crate) fn subscribe(&self, session: u64, uri: &str, peer: Peer<RoleServer>) {
        let mut entries = self.lock();
        if !entries.iter().any(|(s, u, _)| *s == session && u == uri) {
            entries.push((session, uri.to_owned(), peer));
        }
    }

    /// Session `session` no longer wants updates of `uri`.
    pub(crate) fn unsubscribe(&self, session: u64, uri: &str) {
        self.lock().retain(|(s, u, _)| !(*s == session && u == uri));
    }

    /// The session reached through `peer` is told when the list changes.
    pub(crate) fn listen(&self, peer: Peer<RoleServer>) {
        let listener = self.next_session.fetch_add(1, Ordering::Relaxed);
        self.listeners.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((listener, peer));
    }

    /// Tells every listening session that the list of resources changed
    /// (`notifications/resources/list_changed`). How many were told.
    pub(crate) async fn list_changed(&self) -> usize {
        self.tell_sessions(|peer| Box::pin(async move { peer.notify_resource_list_changed().await })).await
    }

    /// Sends every listening session what `tell` sends to its peer; sessions whose
    /// transport closed are forgotten. How many were told.
    pub(crate) async fn tell_sessions(
        &self,
        tell: impl Fn(
            Peer<RoleServer>,
        ) -> std::pin::Pin<
            Box<dyn std::future::Future<Output = Result<(), rmcp::service::ServiceError>> + Send>,
        >,
    ) -> usize {
        let peers: Vec<(u64, Peer<RoleServer>)> =
            self.listeners.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        let mut told = 0;
        for (listener, peer) in peers {
            match tell(peer).await {
                Ok(()) => told += 1,
                Err(_) => {
                    let mut listeners =
                        self.listeners.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    listeners.retain(|(l, _)| *l != listener);
                }
            }
        }
        told
    }

    /// Tells every session subscribed to `uri` that it changed; sessions whose transport
    /// closed are forgotten. How many were told.
    pub(crate) async fn updated(&self, uri: &str) -> usize {
        let peers: Vec<(u64, Peer<RoleServer>)> =
            self.lock().iter().filter(|(_, u, _)| u == uri).map(|(s, _, p)| (*s, p.clone())).collect();
        let mut told = 0;
        for (session, peer) in peers {
            let sent = peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri)).await;
            match sent {
                Ok(()) => told += 1,
                Err(_) => self.lock().retain(|(s, _, _)| *s != session),
            }
        }
        told
    }
}
