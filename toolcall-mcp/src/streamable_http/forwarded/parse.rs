//! The hops a request went through, as its proxies wrote them: RFC 7239 `Forwarded`
//! (`for=` of each element) or `X-Forwarded-For` (a list of addresses), first hop (the
//! client, as the first proxy saw it) first. Takes a request's headers; gives its hops,
//! or `None` when it has neither header or one that does not parse.
//!
//! A hop is an address (IPv4, IPv6 in brackets or not, with or without a port; quoted or
//! not) or unknown: `unknown`, an obfuscated identifier (`_hidden`), or an element
//! without `for=`. A header that does not parse as a whole (an unterminated quote, a pair
//! without `=`, a parameter twice in one element, a node that is neither) gives `None`.

use std::net::{IpAddr, SocketAddr};

use axum::http::HeaderMap;
use axum::http::header::{FORWARDED, HeaderName};

/// `X-Forwarded-For`.
const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// One hop of a forwarded request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Hop {
    /// Where the hop's proxy saw the request come from.
    Address(IpAddr),
    /// A hop whose address its proxy hid or did not know.
    Unknown,
}

/// The hops of `headers`: from `Forwarded` when the request has one, else from
/// `X-Forwarded-For`; `None` without either, or when the one read does not parse.
pub(super) fn hops(headers: &HeaderMap) -> Option<Vec<Hop>> {
    if let Some(forwarded) = joined(headers, &FORWARDED) {
        return forwarded_hops(&forwarded?);
    }
    x_forwarded_for_hops(&joined(headers, &X_FORWARDED_FOR)??)
}

/// Every `name` header line of `headers`, joined with commas (one list, RFC 9110 §5.3);
/// `None` without one, `Some(None)` when one is not visible ASCII.
fn joined(headers: &HeaderMap, name: &HeaderName) -> Option<Option<String>> {
    let mut lines = headers.get_all(name).iter().peekable();
    lines.peek()?;
    let texts: Option<Vec<&str>> = lines.map(|line| line.to_str().ok()).collect();
    Some(texts.map(|texts| texts.join(",")))
}

/// The hops of a `Forwarded` value, one per element (its `for=`).
fn forwarded_hops(value: &str) -> Option<Vec<Hop>> {
    let mut hops = Vec::new();
    let mut rest = value;
    loop {
        let (element, next) = element(rest)?;
        if let Some(element) = element {
            hops.push(element);
        }
        match next {
            Some(next) => rest = next,
            None => break,
        }
    }
    (!hops.is_empty()).then_some(hops)
}

/// The first element of `text` (`None` inside when it is empty, as a list allows) and
/// the text after its comma; `None` when it does not parse.
fn element(text: &str) -> Option<(Option<Hop>, Option<&str>)> {
    let mut rest = text.trim_start();
    let mut node: Option<Hop> = None;
    let mut names: Vec<String> = Vec::new();
    let mut pairs = 0;
    loop {
        if let Some(after) = rest.strip_prefix(',') {
            return Some((finished(pairs, node), Some(after)));
        }
        if rest.is_empty() {
            return Some((finished(pairs, node), None));
        }
        if let Some(after) = rest.strip_prefix(';') {
            rest = after.trim_start();
            continue;
        }
        let (name, value, after) = pair(rest)?;
        let name = name.to_ascii_lowercase();
        if names.contains(&name) {
            return None;
        }
        if name == "for" {
            node = Some(self::node(&value)?);
        }
        names.push(name);
        pairs += 1;
        rest = after.trim_start();
    }
}

/// An element of `pairs` pairs is the hop of its `for=`, or unknown without one; an empty
/// element is none.
fn finished(pairs: usize, node: Option<Hop>) -> Option<Hop> {
    (pairs > 0).then_some(node.unwrap_or(Hop::Unknown))
}

/// The `token=value` pair at the start of `text`: its name, its value (unquoted) and the
/// text after it.
fn pair(text: &str) -> Option<(&str, String, &str)> {
    let end = text.find(|c: char| !is_token_char(c)).unwrap_or(text.len());
    let (name, rest) = text.split_at(end);
    let rest = rest.strip_prefix('=')?;
    if name.is_empty() {
        return None;
    }
    let (value, after) = match rest.strip_prefix('"') {
        Some(quoted) => unquote(quoted)?,
        None => {
            // Not RFC 7239, but what a proxy writing `for=$remote_addr` sends for IPv6:
            // a bare node up to the next separator.
            let end = rest.find([';', ',', ' ', '\t']).unwrap_or(rest.len());
            (rest[..end].to_owned(), &rest[end..])
        }
    };
    Some((name, value, after))
}

/// The text of a quoted string whose opening quote is before `text`, its escapes undone,
/// and what follows its closing quote; `None` when it does not close.
fn unquote(text: &str) -> Option<(String, &str)> {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Some((value, &text[at + 1..])),
            '\\' => value.push(chars.next()?.1),
            c => value.push(c),
        }
    }
    None
}

/// RFC 9110's `tchar`.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// The hops of an `X-Forwarded-For` value.
fn x_forwarded_for_hops(value: &str) -> Option<Vec<Hop>> {
    value.split(',').map(|node| self::node(node.trim())).collect()
}

/// A node: an address with or without a port (an IPv6 one in brackets, or bare without a
/// port), or unknown (`unknown`, an obfuscated `_identifier`); `None` for anything else.
fn node(text: &str) -> Option<Hop> {
    if text.eq_ignore_ascii_case("unknown") || is_obfuscated(text) {
        return Some(Hop::Unknown);
    }
    if let Ok(address) = text.parse::<IpAddr>() {
        return Some(Hop::Address(address.to_canonical()));
    }
    if let Some(bracketed) = text.strip_prefix('[').and_then(|rest| rest.strip_suffix(']')) {
        return bracketed
            .parse::<std::net::Ipv6Addr>()
            .ok()
            .map(|v6| Hop::Address(IpAddr::V6(v6).to_canonical()));
    }
    // `192.0.2.1:4711`, `[2001:db8::1]:4711` (a port may be obfuscated too: `_port`).
    if let Ok(socket) = text.parse::<SocketAddr>() {
        return Some(Hop::Address(socket.ip().to_canonical()));
    }
    let (host, port) = text.rsplit_once(':')?;
    if !is_obfuscated(port) {
        return None;
    }
    match node(host)? {
        Hop::Address(address) if host.starts_with('[') || address.is_ipv4() => Some(Hop::Address(address)),
        _ => None,
    }
}

/// RFC 7239's `obfnode`/`obfport`: `_` and letters, digits, `.`, `_`, `-`.
fn is_obfuscated(text: &str) -> bool {
    text.strip_prefix('_').is_some_and(|rest| {
        !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use axum::http::HeaderValue;

    use super::*;

    fn address(text: &str) -> Hop {
        Hop::Address(text.parse().unwrap())
    }

    fn headers(lines: &[(&'static str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in lines {
            headers.append(*name, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    fn forwarded(value: &str) -> Option<Vec<Hop>> {
        hops(&headers(&[("forwarded", value)]))
    }

    fn xff(value: &str) -> Option<Vec<Hop>> {
        hops(&headers(&[("x-forwarded-for", value)]))
    }

    #[test]
    fn forwarded_ipv4_ipv6_ports_and_quotes() {
        assert_eq!(forwarded("for=192.0.2.60;proto=http;by=203.0.113.43"), Some(vec![address("192.0.2.60")]));
        assert_eq!(forwarded(r#"For="[2001:db8:cafe::17]:4711""#), Some(vec![address("2001:db8:cafe::17")]));
        assert_eq!(forwarded(r#"for="192.0.2.43:47011""#), Some(vec![address("192.0.2.43")]));
        assert_eq!(forwarded(r#"for="[2001:db8::1]""#), Some(vec![address("2001:db8::1")]));
        assert_eq!(forwarded(r#"for="\[2001:db8::1\]""#), Some(vec![address("2001:db8::1")]), "quoted pairs");
        assert_eq!(
            forwarded("for=2001:db8::1"),
            Some(vec![address("2001:db8::1")]),
            "bare IPv6, as proxies send it"
        );
        assert_eq!(forwarded(r#"for="::ffff:192.0.2.1""#), Some(vec![address("192.0.2.1")]), "IPv4-mapped");
        assert_eq!(
            forwarded(r#"for="192.0.2.43:_p1""#),
            Some(vec![address("192.0.2.43")]),
            "obfuscated port"
        );
    }

    #[test]
    fn forwarded_hops_in_order_and_unknown_ones() {
        assert_eq!(
            forwarded(r#"for=192.0.2.43, for="[2001:db8:cafe::17]", for=unknown"#),
            Some(vec![address("192.0.2.43"), address("2001:db8:cafe::17"), Hop::Unknown])
        );
        assert_eq!(
            forwarded("for=_hidden, for=_SEVKISEK"),
            Some(vec![Hop::Unknown, Hop::Unknown]),
            "obfuscated"
        );
        assert_eq!(forwarded("proto=https;by=10.0.0.1"), Some(vec![Hop::Unknown]), "no for=");
        assert_eq!(
            forwarded("for=192.0.2.1,,for=10.0.0.1"),
            Some(vec![address("192.0.2.1"), address("10.0.0.1")]),
            "an empty element"
        );
        // Two header lines are one list, in order.
        let two = headers(&[("forwarded", "for=192.0.2.1"), ("forwarded", "for=10.0.0.1;proto=https")]);
        assert_eq!(hops(&two), Some(vec![address("192.0.2.1"), address("10.0.0.1")]));
        // A comma inside quotes does not end the element.
        assert_eq!(forwarded(r#"for=192.0.2.1;by="a,b""#), Some(vec![address("192.0.2.1")]));
    }

    #[test]
    fn malformed_forwarded_is_none() {
        for bad in [
            "for=",
            r#"for="192.0.2.1"#,
            "for=192.0.2.1;for=192.0.2.2",
            "for 192.0.2.1",
            "=192.0.2.1",
            "for=example.com",
            "for=192.0.2.1:99999",
            "for=2001:db8::1:_p",
            "for=[2001:db8::1",
            "for=_",
            "",
        ] {
            assert_eq!(forwarded(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn x_forwarded_for_lists() {
        assert_eq!(xff("203.0.113.195"), Some(vec![address("203.0.113.195")]));
        assert_eq!(
            xff("203.0.113.195, 2001:db8:85a3::8a2e:370:7334 ,198.51.100.178:8080"),
            Some(vec![
                address("203.0.113.195"),
                address("2001:db8:85a3::8a2e:370:7334"),
                address("198.51.100.178")
            ])
        );
        assert_eq!(xff("[2001:db8::1]:443, unknown"), Some(vec![address("2001:db8::1"), Hop::Unknown]));
        for bad in ["", "203.0.113.195,", "not-an-address", "1.2.3.4 5.6.7.8"] {
            assert_eq!(xff(bad), None, "{bad:?}");
        }
        let both = headers(&[("x-forwarded-for", "192.0.2.9"), ("forwarded", "for=192.0.2.1")]);
        assert_eq!(hops(&both), Some(vec![address("192.0.2.1")]), "Forwarded first");
        assert_eq!(hops(&HeaderMap::new()), None);
    }
}
