//! The first gate of every HTTP request: `Host` and `Origin` against the allowed lists
//! (DNS rebinding), before authentication, so a page on a foreign origin learns nothing
//! from a 401 and a request with no token to a wrong host is 403, not 401.
//!
//! The rules are rmcp's own (its check still runs behind this one, on the same lists):
//! a `Host` matches an allowed entry when the names are equal (case-insensitively,
//! brackets of an IPv6 address aside) and the entry's port, when it names one, is the
//! request's; an empty list allows every host. An `Origin`, when the request has one,
//! must match an allowed origin's scheme, host and port (`:*` is any port, no port is any
//! port, a default port may be left out); an empty list refuses every `Origin`.

use axum::extract::Request;
use axum::http::uri::Authority;
use axum::http::{StatusCode, header};
use axum::response::Response;

use crate::plain::plain;

/// The allowed `Host` and `Origin` values, read once from the server's settings.
#[derive(Debug)]
pub(crate) struct Allowed {
    /// The listed hosts as names and optional ports; `None`: the list was empty, every
    /// host is allowed.
    hosts: Option<Vec<(String, Option<u16>)>>,
    origins: Vec<AllowedOrigin>,
}

/// Refuses a request whose `Host` or `Origin` is not allowed (403; a `Host` that is not
/// an authority is 400), before any other check.
pub(crate) fn refusal(allowed: &Allowed, request: &Request) -> Option<Response> {
    let (status, text) = allowed.verdict(request).err()?;
    log::info!("{} {}: refused ({status}: {text})", request.method(), request.uri());
    Some(plain(status, text))
}

impl Allowed {
    /// The lists as the settings give them (entries that do not parse allow nothing).
    pub(crate) fn new(hosts: &[String], origins: &[String]) -> Allowed {
        let listed = hosts.iter().filter_map(|entry| allowed_authority(entry)).collect();
        Allowed {
            hosts: (!hosts.is_empty()).then_some(listed),
            origins: origins.iter().filter_map(|entry| AllowedOrigin::parse(entry)).collect(),
        }
    }

    /// `Ok` when the request's `Host` and `Origin` pass, else the status and text that
    /// refuse it.
    fn verdict(&self, request: &Request) -> Result<(), (StatusCode, &'static str)> {
        let host = match request.headers().get(header::HOST) {
            Some(value) => value
                .to_str()
                .ok()
                .and_then(|text| Authority::try_from(text).ok())
                .ok_or((StatusCode::BAD_REQUEST, "Bad Request: Invalid Host header"))?,
            None => request
                .uri()
                .authority()
                .cloned()
                .ok_or((StatusCode::BAD_REQUEST, "Bad Request: missing Host header"))?,
        };
        if !self.host_allowed(&host) {
            return Err((StatusCode::FORBIDDEN, "Forbidden: Host header is not allowed"));
        }
        let Some(origin) = request.headers().get(header::ORIGIN) else {
            return Ok(());
        };
        let origin = origin
            .to_str()
            .ok()
            .and_then(Origin::parse)
            .ok_or((StatusCode::FORBIDDEN, "Forbidden: Invalid Origin header"))?;
        if !self.origin_allowed(&origin) {
            return Err((StatusCode::FORBIDDEN, "Forbidden: Origin header is not allowed"));
        }
        Ok(())
    }

    fn host_allowed(&self, host: &Authority) -> bool {
        let Some(hosts) = &self.hosts else { return true };
        let name = bare(host.host());
        hosts
            .iter()
            .any(|(allowed, port)| *allowed == name && port.is_none_or(|port| host.port_u16() == Some(port)))
    }

    fn origin_allowed(&self, origin: &Origin) -> bool {
        self.origins.iter().any(|allowed| allowed.admits(origin))
    }
}

/// A host name without IPv6 brackets, in lower case.
fn bare(host: &str) -> String {
    host.trim_matches(|c| c == '[' || c == ']').to_ascii_lowercase()
}

/// An allowed-hosts entry as a name and an optional port (`None` when it is empty).
fn allowed_authority(entry: &str) -> Option<(String, Option<u16>)> {
    let entry = entry.trim();
    if entry.is_empty() {
        return None;
    }
    match Authority::try_from(entry) {
        Ok(authority) => Some((bare(authority.host()), authority.port_u16())),
        Err(_) => Some((bare(entry), None)),
    }
}

/// A request's `Origin`: `null`, or a scheme, host and port.
#[derive(Debug, PartialEq, Eq)]
enum Origin {
    Null,
    Tuple { scheme: String, host: String, port: Option<u16> },
}

impl Origin {
    fn parse(text: &str) -> Option<Origin> {
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        if text.eq_ignore_ascii_case("null") {
            return Some(Origin::Null);
        }
        let uri = axum::http::Uri::try_from(text).ok()?;
        let authority = uri.authority()?;
        Some(Origin::Tuple {
            scheme: uri.scheme_str()?.to_ascii_lowercase(),
            host: bare(authority.host()),
            port: authority.port_u16(),
        })
    }
}

/// An allowed-origins entry; `port: None` is any port (`:*`, or no port written).
#[derive(Debug)]
struct AllowedOrigin {
    origin: Origin,
    port: Option<u16>,
}

impl AllowedOrigin {
    fn parse(entry: &str) -> Option<AllowedOrigin> {
        let entry = entry.trim();
        if let Some(base) = entry.strip_suffix(":*") {
            let origin = Origin::parse(base)?;
            return match origin {
                Origin::Tuple { port: None, .. } => Some(AllowedOrigin { origin, port: None }),
                _ => None,
            };
        }
        let origin = Origin::parse(entry)?;
        let port = match &origin {
            Origin::Tuple { port, .. } => *port,
            Origin::Null => None,
        };
        Some(AllowedOrigin { origin, port })
    }

    fn admits(&self, origin: &Origin) -> bool {
        match (&self.origin, origin) {
            (Origin::Null, Origin::Null) => true,
            (Origin::Tuple { scheme: a, host: h, .. }, Origin::Tuple { scheme, host, port }) => {
                a == scheme
                    && h == host
                    && self.port.is_none_or(|allowed| port.or_else(|| default_port(scheme)) == Some(allowed))
            }
            _ => false,
        }
    }
}

/// The port a scheme implies when an origin leaves it out.
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed() -> Allowed {
        let hosts = ["localhost", "127.0.0.1", "::1", "api.example:8443"].map(String::from);
        let origins =
            ["http://localhost:*", "https://app.example", "https://x.example:444"].map(String::from);
        Allowed::new(&hosts, &origins)
    }

    fn request(host: &str, origin: Option<&str>) -> Request {
        let mut builder = Request::builder().uri("/mcp").header(header::HOST, host);
        if let Some(origin) = origin {
            builder = builder.header(header::ORIGIN, origin);
        }
        builder.body(axum::body::Body::empty()).unwrap()
    }

    fn status(host: &str, origin: Option<&str>) -> u16 {
        allowed().verdict(&request(host, origin)).map_or_else(|(status, _)| status.as_u16(), |()| 200)
    }

    #[test]
    fn hosts_match_by_name_and_listed_port() {
        assert_eq!(status("localhost:8080", None), 200);
        assert_eq!(status("LOCALHOST", None), 200);
        assert_eq!(status("[::1]:9", None), 200);
        assert_eq!(status("api.example:8443", None), 200);
        assert_eq!(status("api.example:8444", None), 403);
        assert_eq!(status("api.example", None), 403);
        assert_eq!(status("evil.example", None), 403);
        assert_eq!(status("127.0.0.1.evil.example", None), 403);
        assert_eq!(status("bad host", None), 400);
    }

    #[test]
    fn origins_match_by_scheme_host_and_port() {
        assert_eq!(status("localhost", Some("http://localhost:5173")), 200);
        assert_eq!(status("localhost", Some("https://localhost:5173")), 403);
        assert_eq!(status("localhost", Some("https://app.example")), 200);
        assert_eq!(status("localhost", Some("https://app.example:1")), 200, "no port written: any port");
        assert_eq!(status("localhost", Some("https://x.example")), 403);
        assert_eq!(status("localhost", Some("https://x.example:444")), 200);
        assert_eq!(status("localhost", Some("https://evil.example")), 403);
        assert_eq!(status("localhost", Some("null")), 403);
        assert_eq!(status("localhost", Some("not an origin")), 403);
    }

    #[test]
    fn an_empty_host_list_allows_every_host_and_an_empty_origin_list_refuses_every_origin() {
        let open = Allowed::new(&[], &[]);
        assert!(open.verdict(&request("anything.example", None)).is_ok());
        assert!(open.verdict(&request("anything.example", Some("http://localhost"))).is_err());
    }
}
