//! A block of IP addresses in CIDR notation ([`Cidr`]): what a trusted proxy's address is
//! matched against ([`HttpSettings::trusted_proxies`](crate::HttpSettings::trusted_proxies)).

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

/// A block of IP addresses in CIDR notation: `10.0.0.0/8`, `2001:db8::/32`, or a lone
/// address (`192.0.2.7`, a block of one). Bits past the prefix are ignored
/// (`10.1.2.3/8` is `10.0.0.0/8`). An IPv4 block also holds the IPv4-mapped IPv6
/// addresses of its addresses (`::ffff:10.0.0.1`), as a dual-stack listener sees them.
///
/// ```
/// use toolcall_mcp::Cidr;
///
/// let proxies: Cidr = "10.0.0.0/8".parse().unwrap();
/// assert!(proxies.contains("10.20.30.40".parse().unwrap()));
/// assert!(proxies.contains("::ffff:10.0.0.1".parse().unwrap()));
/// assert!(!proxies.contains("192.0.2.1".parse().unwrap()));
/// assert!("10.0.0.0/33".parse::<Cidr>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cidr {
    network: IpAddr,
    prefix: u8,
}

/// Why a text is not a [`Cidr`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CidrError {
    text: String,
    why: &'static str,
}

impl fmt::Display for CidrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a CIDR block ({}), like 10.0.0.0/8 or 2001:db8::/32", self.text, self.why)
    }
}

impl std::error::Error for CidrError {}

impl Cidr {
    /// The block of the addresses whose first `prefix` bits are `address`'s; `None` when
    /// `prefix` is longer than the address (32 bits for IPv4, 128 for IPv6).
    pub fn new(address: IpAddr, prefix: u8) -> Option<Cidr> {
        let address = address.to_canonical();
        (prefix <= bits(address)).then(|| Cidr { network: masked(address, prefix), prefix })
    }

    /// The block's first address.
    pub fn network(&self) -> IpAddr {
        self.network
    }

    /// The number of leading bits every address of the block shares.
    pub fn prefix(&self) -> u8 {
        self.prefix
    }

    /// Whether `address` is in the block.
    pub fn contains(&self, address: IpAddr) -> bool {
        let address = address.to_canonical();
        address.is_ipv4() == self.network.is_ipv4() && masked(address, self.prefix) == self.network
    }
}

impl FromStr for Cidr {
    type Err = CidrError;

    /// `ADDRESS/PREFIX`, or `ADDRESS` alone (every bit).
    fn from_str(text: &str) -> Result<Cidr, CidrError> {
        let error = |why| CidrError { text: text.to_owned(), why };
        let (address, prefix) = match text.trim().split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text.trim(), None),
        };
        let address: IpAddr = address.parse().map_err(|_| error("not an IP address"))?;
        let prefix = match prefix {
            Some(prefix) if !prefix.is_empty() && prefix.bytes().all(|b| b.is_ascii_digit()) => {
                prefix.parse::<u8>().map_err(|_| error("the prefix is too long"))?
            }
            Some(_) => return Err(error("the prefix is not a number of bits")),
            None => bits(address.to_canonical()),
        };
        Cidr::new(address, prefix).ok_or_else(|| error("the prefix is too long"))
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix)
    }
}

/// The bits of an address of `address`'s family.
fn bits(address: IpAddr) -> u8 {
    if address.is_ipv4() { 32 } else { 128 }
}

/// `address` with every bit past the first `prefix` cleared.
fn masked(address: IpAddr, prefix: u8) -> IpAddr {
    match address {
        IpAddr::V4(v4) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
            IpAddr::V4((u32::from(v4) & mask).into())
        }
        IpAddr::V6(v6) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
            IpAddr::V6((u128::from(v6) & mask).into())
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn blocks_hold_their_addresses() {
        let v4: Cidr = "10.1.2.3/8".parse().unwrap();
        assert_eq!(v4.to_string(), "10.0.0.0/8", "bits past the prefix are dropped");
        assert!(v4.contains(ip("10.255.0.1")) && !v4.contains(ip("11.0.0.1")));
        assert!(v4.contains(ip("::ffff:10.0.0.1")), "IPv4-mapped");
        assert!(!v4.contains(ip("::a00:1")), "an IPv6 address is not in an IPv4 block");
        let one: Cidr = "192.0.2.7".parse().unwrap();
        assert_eq!(one.prefix(), 32);
        assert!(one.contains(ip("192.0.2.7")) && !one.contains(ip("192.0.2.8")));
        let v6: Cidr = "2001:db8::/32".parse().unwrap();
        assert!(v6.contains(ip("2001:db8:ffff::1")) && !v6.contains(ip("2001:db9::1")));
        assert_eq!("::1".parse::<Cidr>().unwrap().prefix(), 128);
        let everything: Cidr = "0.0.0.0/0".parse().unwrap();
        assert!(everything.contains(ip("203.0.113.9")) && !everything.contains(ip("::1")));
        assert_eq!("::ffff:10.0.0.0/8".parse::<Cidr>().unwrap(), v4, "a mapped address is its IPv4 one");
    }

    #[test]
    fn what_is_not_a_block_says_why() {
        for (text, why) in [
            ("10.0.0.0/33", "the prefix is too long"),
            ("::/129", "the prefix is too long"),
            ("10.0.0.0/300", "the prefix is too long"),
            ("10.0.0.0/", "the prefix is not a number of bits"),
            ("10.0.0.0/-1", "the prefix is not a number of bits"),
            ("10.0.0/8", "not an IP address"),
            ("proxy.example", "not an IP address"),
        ] {
            let error = text.parse::<Cidr>().unwrap_err();
            assert_eq!(error.why, why, "{text}");
            assert!(error.to_string().starts_with(&format!("`{text}` is not a CIDR block")), "{error}");
        }
    }
}
