//! Full object ids as text: a git object id ([`Oid`], 40 or 64 lowercase hex: SHA-1 or SHA-256)
//! and a continuity record id ([`RecordId`], 64 lowercase hex: BLAKE3 of the canonical record).
//! Each holds the very text files and JSON documents already carry, and reads and writes as a
//! plain JSON string (its schema is a string's).
//!
//! Owns: what a full id is (its lengths, lowercase hex digits) and its serde and schema forms.
//! Must not touch: anything else. An abbreviated id, a sentinel (`NONE`) or text read from a file
//! someone else wrote stays a `String` where it occurs (docs/DECISIONS.md D54).

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

use crate::hex;

/// Whether `s` is exactly `len` lowercase hex digits.
fn is_hex_of(s: &str, len: usize) -> bool {
    s.len() == len && hex::is_lowercase(s)
}

/// Declares an id type over `String`: the shared traits, serde as a plain string (reading only
/// what `$valid` accepts), a string's JSON Schema.
macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident, $valid:expr, $expected:literal) => {
        $(#[$meta])*
        #[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        impl $name {
            /// The id of `s` when it is one (its length and lowercase hex digits), else `None`.
            pub fn parse(s: &str) -> Option<$name> {
                let valid: fn(&str) -> bool = $valid;
                valid(s).then(|| $name(s.to_string()))
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The id as an owned `String`.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        /// As the string it holds (`"…"`), so a `{:?}` prints what it printed as a `String`.
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                self == other.0
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                let text = String::deserialize(d)?;
                $name::parse(&text).ok_or_else(|| {
                    serde::de::Error::invalid_value(serde::de::Unexpected::Str(&text), &$expected)
                })
            }
        }

        /// A string's schema, inlined: a field of this type has the schema it had as a `String`.
        #[cfg(feature = "mcp")]
        impl schemars::JsonSchema for $name {
            fn inline_schema() -> bool {
                <String as schemars::JsonSchema>::inline_schema()
            }
            fn schema_name() -> std::borrow::Cow<'static, str> {
                <String as schemars::JsonSchema>::schema_name()
            }
            fn schema_id() -> std::borrow::Cow<'static, str> {
                <String as schemars::JsonSchema>::schema_id()
            }
            fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
                <String as schemars::JsonSchema>::json_schema(g)
            }
        }
    };
}

id_type! {
    /// A full git object id (a commit, a tree, a blob, a reference's tip): 40 lowercase hex
    /// digits (SHA-1) or 64 (SHA-256), as git prints it. Never abbreviated, never `NONE`.
    Oid, |s| is_hex_of(s, 40) || is_hex_of(s, 64), "40 or 64 lowercase hex digits"
}

id_type! {
    /// A continuity record id (docs/REFERENCE.md#id-and-signature): the 64 lowercase hex digits
    /// of BLAKE3 over the record's canonical form. Never a prefix.
    RecordId, |s| is_hex_of(s, 64), "64 lowercase hex digits"
}

impl Oid {
    /// The id of a raw object hash: 20 bytes (SHA-1) or 32 (SHA-256); `None` for another length.
    pub fn from_hash(bytes: &[u8]) -> Option<Oid> {
        matches!(bytes.len(), 20 | 32).then(|| Oid(hex::encode(bytes)))
    }
}

impl RecordId {
    /// The id of a record's 32 raw digest bytes.
    pub fn from_raw(bytes: &[u8; 32]) -> RecordId {
        RecordId(hex::encode(bytes))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const SHA1: &str = "0123456789abcdef0123456789abcdef01234567";

    #[test]
    fn parse_takes_full_lowercase_hex_of_the_right_lengths_only() {
        let sha256 = "ab".repeat(32);
        assert_eq!(Oid::parse(SHA1).unwrap().as_str(), SHA1);
        assert_eq!(Oid::parse(&sha256).unwrap(), sha256);
        assert_eq!(RecordId::parse(&sha256).unwrap().as_str(), sha256);
        assert_eq!(RecordId::parse(SHA1), None, "a record id is 64 hex");
        let upper = SHA1.to_uppercase();
        for bad in ["", "NONE", "-", "0123456", &SHA1[..39], &format!("{SHA1}0"), &upper, &format!(" {}", &SHA1[1..])] {
            assert_eq!(Oid::parse(bad), None, "{bad:?}");
            assert_eq!(RecordId::parse(bad), None, "{bad:?}");
        }
        assert_eq!(RecordId::parse(&"g".repeat(64)), None);
    }

    #[test]
    fn raw_bytes_give_the_hex_the_encoder_writes() {
        let bytes: Vec<u8> = (0..20).collect();
        assert_eq!(Oid::from_hash(&bytes).unwrap().as_str(), hex::encode(&bytes));
        assert!(Oid::from_hash(&[7; 32]).is_some());
        assert_eq!(Oid::from_hash(&[7; 19]), None);
        assert_eq!(RecordId::from_raw(&[0xab; 32]).as_str(), "ab".repeat(32));
    }

    #[test]
    fn it_reads_and_prints_as_the_string_it_holds() {
        let id = Oid::parse(SHA1).unwrap();
        assert_eq!(id.to_string(), SHA1);
        assert_eq!(format!("{id:?}"), format!("{SHA1:?}"));
        assert_eq!(&id[..7], "0123456");
        let (text, owned): (&str, String) = (SHA1, SHA1.into());
        assert_eq!(id, text);
        assert_eq!(text, id);
        assert_eq!(id, owned);
        assert_eq!(owned, id);
        assert_eq!(String::from(id.clone()), SHA1);
        let set: std::collections::BTreeSet<Oid> = [id.clone()].into();
        assert!(set.contains(SHA1), "found by its text");
        assert!(Oid::parse(&"0".repeat(40)).unwrap() < id, "ordered as its text");
    }

    #[test]
    fn serde_writes_and_reads_the_same_json_string_and_refuses_anything_else() {
        let id = RecordId::parse(&"cd".repeat(32)).unwrap();
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, serde_json::to_string(id.as_str()).unwrap());
        assert_eq!(serde_json::from_str::<RecordId>(&json).unwrap(), id);
        let err = serde_json::from_str::<RecordId>("\"NONE\"").unwrap_err().to_string();
        assert!(err.contains("64 lowercase hex digits"), "{err}");
        assert!(serde_json::from_str::<Oid>("7").is_err());
        let some: Option<Oid> = serde_json::from_str(&format!("\"{SHA1}\"")).unwrap();
        assert_eq!(serde_json::to_value(&some).unwrap(), SHA1);
    }

    #[cfg(feature = "mcp")]
    #[test]
    fn its_schema_is_a_string_s() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Typed {
            /// A commit.
            a: Oid,
            b: Option<RecordId>,
            c: Vec<Oid>,
        }
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Plain {
            /// A commit.
            a: String,
            b: Option<String>,
            c: Vec<String>,
        }
        let (typed, plain) = (schemars::schema_for!(Typed), schemars::schema_for!(Plain));
        let mut typed = serde_json::to_value(typed).unwrap();
        typed["title"] = "Plain".into();
        assert_eq!(typed, serde_json::to_value(plain).unwrap());
    }
}
