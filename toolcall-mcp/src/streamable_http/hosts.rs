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
//!
//! A `Host` value found allowed is remembered, byte for byte, by the thread that checked
//! it (one value per thread and list): the next request with the same bytes passes
//! without its value being parsed again (an allocation and about 1,500 instructions), as
//! every request of a client does.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::Request;
use axum::http::uri::Authority;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use crate::plain::plain;

/// The allowed `Host` and `Origin` values, read once from the server's settings.
#[derive(Debug)]
pub(crate) struct Allowed {
    /// This list's own number, which no other list has: what a thread's remembered
    /// `Host` ([`LAST_ALLOWED_HOST`]) was allowed by.
    id: u64,
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
        static LISTS: AtomicU64 = AtomicU64::new(1);
        Allowed {
            id: LISTS.fetch_add(1, Ordering::Relaxed),
            hosts: (!hosts.is_empty()).then_some(listed),
            origins: origins.iter().filter_map(|entry| AllowedOrigin::parse(entry)).collect(),
        }
    }

    /// `Ok` when the request's `Host` and `Origin` pass, else the status and text that
    /// refuse it.
    fn verdict(&self, request: &Request) -> Result<(), (StatusCode, &'static str)> {
        match request.headers().get(header::HOST) {
            Some(value) if self.allowed_last(value.as_bytes()) => {}
            Some(value) => {
                self.host_verdict(value)?;
                self.remember(value.as_bytes());
            }
            None => {
                let host = request
                    .uri()
                    .authority()
                    .ok_or((StatusCode::BAD_REQUEST, "Bad Request: missing Host header"))?;
                if !self.host_allowed(host) {
                    return Err(HOST_NOT_ALLOWED);
                }
            }
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

    /// `Ok` when the `Host` header `value` is an authority this list allows.
    fn host_verdict(&self, value: &HeaderValue) -> Result<(), (StatusCode, &'static str)> {
        let host = value
            .to_str()
            .ok()
            .and_then(|text| Authority::try_from(text).ok())
            .ok_or((StatusCode::BAD_REQUEST, "Bad Request: Invalid Host header"))?;
        if !self.host_allowed(&host) {
            return Err(HOST_NOT_ALLOWED);
        }
        Ok(())
    }

    /// Whether `host` is the `Host` value this thread last found this list allows.
    fn allowed_last(&self, host: &[u8]) -> bool {
        LAST_ALLOWED_HOST.with_borrow(|(list, last)| *list == self.id && last.as_slice() == host)
    }

    /// Remembers `host`, just found allowed, for this thread's next request (a value of
    /// a reasonable length only).
    fn remember(&self, host: &[u8]) {
        if host.len() > MAX_REMEMBERED_HOST {
            return;
        }
        LAST_ALLOWED_HOST.with_borrow_mut(|(list, last)| {
            *list = self.id;
            last.clear();
            last.extend_from_slice(host);
        });
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

/// The refusal of a `Host` the list does not allow.
const HOST_NOT_ALLOWED: (StatusCode, &str) = (StatusCode::FORBIDDEN, "Forbidden: Host header is not allowed");

/// The longest `Host` value remembered.
const MAX_REMEMBERED_HOST: usize = 255;

thread_local! {
    /// The `Host` value this thread last found allowed, and the number of the list
    /// ([`Allowed`]) that allowed it (0: none yet).
    static LAST_ALLOWED_HOST: RefCell<(u64, Vec<u8>)> = const { RefCell::new((0, Vec::new())) };
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

    /// The verdict on a `Host` value without the thread's remembered value.
    fn unremembered(list: &Allowed, host: &str) -> Result<(), (StatusCode, &'static str)> {
        HeaderValue::from_str(host)
            .map_or(Err((StatusCode::BAD_REQUEST, "")), |value| list.host_verdict(&value))
    }

    #[test]
    fn a_remembered_host_gets_the_verdict_its_value_gets_when_parsed() {
        let hosts = [
            "localhost",
            "localhost:8080",
            "LOCALHOST",
            "LocalHost:1",
            "[::1]:9",
            "[::1]",
            "::1",
            "127.0.0.1",
            "127.0.0.1:65535",
            "127.0.0.1:65536",
            "api.example:8443",
            "api.example:8444",
            "api.example",
            "evil.example",
            "127.0.0.1.evil.example",
            "bad host",
            "",
            ":",
            "localhost:",
            "user@localhost",
            "localhost:80x",
            "[::1",
            "loca%6Chost",
            "localhost.",
        ];
        let list = allowed();
        let open = Allowed::new(&[], &[]);
        // Each value after every other one, twice in a row, on two lists: the remembered
        // value is the last allowed one, of either list.
        for first in hosts {
            for then in hosts {
                for list in [&list, &open] {
                    for host in [first, then, then, first] {
                        let answered = list.verdict(&request(host, None)).map_err(|(status, _)| status);
                        let parsed = unremembered(list, host).map_err(|(status, _)| status);
                        assert_eq!(answered, parsed, "{host:?} after {first:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_host_one_list_allowed_is_not_taken_as_allowed_by_another() {
        let wide = Allowed::new(&["localhost".into(), "evil.example".into()], &[]);
        let narrow = allowed();
        assert!(wide.verdict(&request("evil.example", None)).is_ok());
        assert!(wide.allowed_last(b"evil.example"), "remembered");
        let refused = narrow.verdict(&request("evil.example", None)).map_err(|(status, _)| status);
        assert_eq!(refused, Err(StatusCode::FORBIDDEN));
        assert!(narrow.verdict(&request("localhost", None)).is_ok());
        assert!(!wide.allowed_last(b"localhost"), "the narrow list's value is not the wide list's");
    }

    #[test]
    fn an_empty_host_list_allows_every_host_and_an_empty_origin_list_refuses_every_origin() {
        let open = Allowed::new(&[], &[]);
        assert!(open.verdict(&request("anything.example", None)).is_ok());
        assert!(open.verdict(&request("anything.example", Some("http://localhost"))).is_err());
    }
}
