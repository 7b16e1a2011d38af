//! The client a request comes from, behind trusted proxies
//! ([`HttpSettings::trusted_proxies`](crate::HttpSettings::trusted_proxies)): what
//! tokenless rate limits count and the logs name.
//!
//! A request's client is its TCP peer, unless the peer is in a trusted proxy block: then
//! it is read from the hops the proxies wrote (`Forwarded`'s `for=`, else
//! `X-Forwarded-For`; [`parse`]), walking from the right-most (the hop the peer itself
//! saw) leftwards past every address that is itself a trusted proxy: the first address
//! that is not is the client. Whatever is left of it was written by that client, or by a
//! proxy no one vouches for, so it is never read (a client writing `X-Forwarded-For:
//! 1.2.3.4` itself gets its own address, not 1.2.3.4). A hop that is unknown or hidden
//! (`unknown`, `_obfuscated`) where the walk stops, a header that does not parse, or no
//! header at all: the client is the peer. Every address trusted: the left-most.
//!
//! A peer outside every trusted block is the client whatever its headers say.

mod cidr;
mod parse;

use std::net::IpAddr;

use axum::extract::Request;
use axum::http::HeaderMap;

pub use cidr::{Cidr, CidrError};
use parse::Hop;

use crate::request::{Arrived, ClientAddr};

/// Notes the client of `request` in its extensions ([`ClientAddr`]) when the server
/// trusts proxies and the request's peer is known; nothing otherwise (the peer is the
/// client).
pub(crate) fn note_client(trusted: &[Cidr], request: &mut Request) {
    if trusted.is_empty() {
        return;
    }
    let Some(peer) = request.extensions().get::<Arrived>().and_then(|arrived| arrived.peer) else { return };
    let client = client(trusted, request.headers(), peer.ip());
    request.extensions_mut().insert(ClientAddr(client));
}

/// The client of a request from `peer` with `headers`, by the rule above.
fn client(trusted: &[Cidr], headers: &HeaderMap, peer: IpAddr) -> IpAddr {
    let peer = peer.to_canonical();
    if !is_trusted(trusted, peer) {
        return peer;
    }
    match parse::hops(headers) {
        Some(hops) => walk(trusted, &hops).unwrap_or(peer),
        None => peer,
    }
}

/// The right-most hop of `hops` that is not a trusted proxy, else the left-most; `None`
/// when the walk stops at an unknown hop.
fn walk(trusted: &[Cidr], hops: &[Hop]) -> Option<IpAddr> {
    let mut left_most = None;
    for hop in hops.iter().rev() {
        match *hop {
            Hop::Address(address) if is_trusted(trusted, address) => left_most = Some(address),
            Hop::Address(address) => return Some(address),
            Hop::Unknown => return None,
        }
    }
    left_most
}

/// Whether `address` is in one of the `trusted` blocks.
fn is_trusted(trusted: &[Cidr], address: IpAddr) -> bool {
    trusted.iter().any(|block| block.contains(address))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use axum::http::HeaderValue;

    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn blocks(texts: &[&str]) -> Vec<Cidr> {
        texts.iter().map(|text| text.parse().unwrap()).collect()
    }

    fn headers(name: &'static str, value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(name, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn only_a_trusted_peer_is_believed() {
        let trusted = blocks(&["10.0.0.0/8"]);
        let said = headers("x-forwarded-for", "192.0.2.1");
        assert_eq!(client(&trusted, &said, ip("10.0.0.5")), ip("192.0.2.1"));
        assert_eq!(
            client(&trusted, &said, ip("198.51.100.7")),
            ip("198.51.100.7"),
            "an untrusted peer's header is ignored"
        );
        assert_eq!(client(&[], &said, ip("10.0.0.5")), ip("10.0.0.5"), "no trusted proxy: the peer");
        assert_eq!(client(&trusted, &said, ip("::ffff:10.0.0.5")), ip("192.0.2.1"), "a mapped peer");
        assert_eq!(
            client(&trusted, &HeaderMap::new(), ip("10.0.0.5")),
            ip("10.0.0.5"),
            "no header: the peer"
        );
    }

    #[test]
    fn the_right_most_untrusted_hop_is_the_client() {
        let trusted = blocks(&["10.0.0.0/8", "2001:db8:ffff::/48"]);
        let peer = ip("10.0.0.1");
        // A client that wrote a header of its own: its proxy appended the real address.
        let spoofed = headers("x-forwarded-for", "1.2.3.4, 203.0.113.9");
        assert_eq!(client(&trusted, &spoofed, peer), ip("203.0.113.9"));
        // Two proxies: the second (trusted) is skipped.
        let chain = headers("x-forwarded-for", "1.2.3.4, 203.0.113.9, 10.0.0.7");
        assert_eq!(client(&trusted, &chain, peer), ip("203.0.113.9"));
        let chain = headers("forwarded", r#"for=1.2.3.4, for="[2001:db8::9]:443", for="[2001:db8:ffff::2]""#);
        assert_eq!(client(&trusted, &chain, peer), ip("2001:db8::9"));
        // Every hop trusted: the left-most.
        let inside = headers("x-forwarded-for", "10.9.9.9, 10.0.0.7");
        assert_eq!(client(&trusted, &inside, peer), ip("10.9.9.9"));
    }

    #[test]
    fn unknown_hops_and_malformed_headers_leave_the_peer() {
        let trusted = blocks(&["10.0.0.0/8"]);
        let peer = ip("10.0.0.1");
        let hidden = headers("forwarded", "for=192.0.2.1, for=_hidden");
        assert_eq!(client(&trusted, &hidden, peer), peer, "the walk stops at a hidden hop");
        let past = headers("forwarded", "for=_hidden, for=192.0.2.1");
        assert_eq!(
            client(&trusted, &past, peer),
            ip("192.0.2.1"),
            "a hidden hop left of the client is not read"
        );
        for (name, bad) in [
            ("forwarded", r#"for="192.0.2.1"#),
            ("x-forwarded-for", "192.0.2.1, garbage"),
            ("forwarded", "for=192.0.2.1;for=192.0.2.2"),
        ] {
            assert_eq!(client(&trusted, &headers(name, bad), peer), peer, "{bad}");
        }
    }

    #[test]
    fn the_client_is_noted_only_with_trusted_proxies() {
        let request = |peer: &str| {
            let mut request = Request::new(axum::body::Body::empty());
            request.headers_mut().insert("x-forwarded-for", HeaderValue::from_static("192.0.2.1"));
            let peer = Some(format!("{peer}:4000").parse().unwrap());
            request.extensions_mut().insert(Arrived::new(std::time::Instant::now(), peer));
            request
        };
        let mut behind = request("10.0.0.1");
        note_client(&blocks(&["10.0.0.0/8"]), &mut behind);
        assert_eq!(behind.extensions().get::<ClientAddr>().map(|c| c.0), Some(ip("192.0.2.1")));
        let mut direct = request("10.0.0.1");
        note_client(&[], &mut direct);
        assert!(direct.extensions().get::<ClientAddr>().is_none());
    }
}
