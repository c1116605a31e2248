//! Lowercase hexadecimal: the one encoder and decoder of the workspace (record ids, keys, object
//! ids written as text, random names).
//!
//! Owns: the text form of bytes. Must not touch: anything else.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Lowercase hex of `bytes`, two characters a byte.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

/// The value of one lowercase hex digit.
pub fn nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

/// Whether every character of `s` is a lowercase hex digit (`0-9a-f`; true for "").
pub fn is_lowercase(s: &str) -> bool {
    s.bytes().all(|b| nibble(b).is_some())
}

/// The `N` bytes of exactly `2 * N` lowercase hex digits; anything else is `None`.
pub fn decode_array<const N: usize>(s: &[u8]) -> Option<[u8; N]> {
    if s.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    for (o, pair) in out.iter_mut().zip(s.chunks_exact(2)) {
        *o = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(out)
}

/// The bytes of lowercase hex of an even length; anything else (odd length, an uppercase or
/// non-hex character) is `None`.
pub fn decode(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    s.as_bytes().chunks_exact(2).map(|p| Some(nibble(p[0])? << 4 | nibble(p[1])?)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_refusals() {
        let all: Vec<u8> = (0..=255).collect();
        let text = encode(&all);
        assert_eq!(text.len(), 512);
        assert!(text.starts_with("000102") && text.ends_with("fdfeff"));
        assert_eq!(decode(&text), Some(all));
        assert_eq!(decode_array::<2>(b"0aff"), Some([10, 255]));
        assert_eq!(decode_array::<2>(b"0aF0"), None);
        assert_eq!(decode_array::<2>(b"0af"), None);
        assert_eq!(decode_array::<1>(b"0aff"), None);
        assert_eq!(encode(&[]), "");
        assert_eq!(decode(""), Some(vec![]));
        for bad in ["a", "0G", "AB", "0x", " 0", "zz00"] {
            assert_eq!(decode(bad), None, "{bad:?}");
        }
        // The same text as the format the encoders it replaces wrote.
        let sample = [0u8, 9, 10, 171, 255];
        assert_eq!(encode(&sample), sample.iter().map(|b| format!("{b:02x}")).collect::<String>());
    }
}
