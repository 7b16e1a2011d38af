//! Finding the authorization server's endpoints from its issuer URL: its metadata
//! document (RFC 8414 `/.well-known/oauth-authorization-server`, or OpenID Connect
//! Discovery's `/.well-known/openid-configuration`), tried in the order the MCP
//! authorization specification gives clients. The document must name the issuer it was
//! asked for (RFC 8414 §3.3); its `jwks_uri` and `introspection_endpoint` are kept, and
//! asked again after the keys' lifetime.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use reqwest::Url;
use serde::Deserialize;

use super::fetch::{Fetcher, check_url};

/// How long after a failed attempt the next one may be made: a server whose
/// authorization server is down does not ask it at every request.
pub(crate) const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(2);

/// The fields of an authorization server's metadata this server reads.
#[derive(Debug, Deserialize)]
struct Document {
    issuer: String,
    #[serde(default)]
    jwks_uri: Option<String>,
    #[serde(default)]
    introspection_endpoint: Option<String>,
}

/// The endpoints found.
#[derive(Debug)]
pub(crate) struct Endpoints {
    /// The issuer exactly as the authorization server writes it (what `iss` must be).
    pub(crate) issuer: String,
    /// Where its signing keys are, if it publishes any.
    pub(crate) jwks_uri: Option<Url>,
    /// Its RFC 7662 introspection endpoint, if any.
    pub(crate) introspection_endpoint: Option<Url>,
    fetched: Instant,
}

/// The discovery document's candidate URLs for `issuer`, in the order to try them: with a
/// path (`https://as/tenant`), RFC 8414's and OpenID's path-inserted forms and then
/// OpenID's appended one; without, `oauth-authorization-server` then `openid-configuration`.
pub(crate) fn well_known_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/').to_owned();
    let at = |new_path: String| {
        let mut url = issuer.clone();
        url.set_query(None);
        url.set_fragment(None);
        url.set_path(&new_path);
        url
    };
    let mut urls = vec![at(format!("/.well-known/oauth-authorization-server{path}"))];
    if !path.is_empty() {
        urls.push(at(format!("/.well-known/openid-configuration{path}")));
    }
    urls.push(at(format!("{path}/.well-known/openid-configuration")));
    urls
}

/// Whether two issuer identifiers name the same issuer (one trailing `/` aside).
pub(crate) fn same_issuer(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

/// The issuer's endpoints, found once and kept for `ttl`, asked again at most every
/// [`RETRY_AFTER_FAILURE`] while the issuer does not answer.
pub(crate) struct Discovery {
    issuer: String,
    issuer_url: Url,
    found: RwLock<Option<Arc<Endpoints>>>,
    /// Held while asking, so that concurrent requests ask once; the time of the last
    /// failed attempt and why it failed.
    asking: tokio::sync::Mutex<Option<(Instant, String)>>,
}

impl Discovery {
    /// Discovery for the issuer written `issuer` (parsed as `issuer_url`).
    pub(crate) fn new(issuer: String, issuer_url: Url) -> Self {
        Discovery { issuer, issuer_url, found: RwLock::new(None), asking: tokio::sync::Mutex::new(None) }
    }

    fn current(&self) -> Option<Arc<Endpoints>> {
        self.found.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// The endpoints: the ones found if younger than `ttl`, else asked again (the old
    /// ones are kept if asking fails).
    pub(crate) async fn endpoints(&self, fetcher: &Fetcher, ttl: Duration) -> Result<Arc<Endpoints>, String> {
        let old = self.current();
        if let Some(found) = &old
            && found.fetched.elapsed() < ttl
        {
            return Ok(Arc::clone(found));
        }
        let mut asking = self.asking.lock().await;
        // Another request may have asked while this one waited.
        if let Some(found) = self.current()
            && found.fetched.elapsed() < ttl
        {
            return Ok(found);
        }
        if let Some((when, why)) = asking.as_ref()
            && when.elapsed() < RETRY_AFTER_FAILURE
        {
            return old.ok_or_else(|| why.clone());
        }
        match self.ask(fetcher).await {
            Ok(endpoints) => {
                let endpoints = Arc::new(endpoints);
                *self.found.write().unwrap_or_else(std::sync::PoisonError::into_inner) =
                    Some(Arc::clone(&endpoints));
                *asking = None;
                Ok(endpoints)
            }
            Err(why) => {
                log::warn!("OAuth: the metadata of issuer {} could not be read: {why}", self.issuer);
                *asking = Some((Instant::now(), why.clone()));
                old.ok_or(why)
            }
        }
    }

    /// Asks each well-known URL in turn; the first document for this issuer wins.
    async fn ask(&self, fetcher: &Fetcher) -> Result<Endpoints, String> {
        let mut failures = Vec::new();
        for url in well_known_urls(&self.issuer_url) {
            let document: Document = match fetcher.get_json(&url).await {
                Ok(document) => document,
                Err(why) => {
                    failures.push(why);
                    continue;
                }
            };
            if !same_issuer(&document.issuer, &self.issuer) {
                return Err(format!(
                    "{url} names issuer {}, not {}: refused (RFC 8414 §3.3)",
                    document.issuer, self.issuer
                ));
            }
            let endpoint = |field: &str, value: Option<String>| -> Result<Option<Url>, String> {
                let Some(value) = value else { return Ok(None) };
                let url = Url::parse(&value).map_err(|error| format!("{field} `{value}`: {error}"))?;
                check_url(&url, field)?;
                Ok(Some(url))
            };
            return Ok(Endpoints {
                jwks_uri: endpoint("jwks_uri", document.jwks_uri)?,
                introspection_endpoint: endpoint("introspection_endpoint", document.introspection_endpoint)?,
                issuer: document.issuer,
                fetched: Instant::now(),
            });
        }
        Err(failures.join("; "))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn urls(issuer: &str) -> Vec<String> {
        well_known_urls(&Url::parse(issuer).unwrap()).iter().map(Url::to_string).collect()
    }

    #[test]
    fn well_known_urls_in_the_specification_order() {
        assert_eq!(
            urls("https://as.example.com"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server",
                "https://as.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            urls("https://as.example.com/tenant/1/"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server/tenant/1",
                "https://as.example.com/.well-known/openid-configuration/tenant/1",
                "https://as.example.com/tenant/1/.well-known/openid-configuration"
            ]
        );
        assert!(same_issuer("https://a/", "https://a") && !same_issuer("https://a/x", "https://a"));
    }
}
