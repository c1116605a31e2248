//! The `vocabulary!` macro: a closed list of names declared once (variant, printed name,
//! serde name, `ALL`, `parse`, `Display`).

/// Declares a closed vocabulary from one list: each variant with its printed name. The serde
/// name, `as_str` (the text), `ALL`, `parse` and `Display` all come from that list, so a name
/// cannot be written twice; values order by their printed name (lists sorted by code read as
/// they did when codes were strings). Used for the continuity diagnostics
/// (`continuity::admission::Code`), the plan's notice codes and the rewrite labels. The calling
/// crate needs `serde` and, for its `mcp` feature, `schemars`.
#[macro_export]
macro_rules! vocabulary {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($variant:ident = $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
        $vis enum $name {
            $(
                #[doc = $text]
                #[serde(rename = $text)]
                $variant,
            )*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The name as printed.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The value of its printed name.
            pub fn parse(s: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|c| c.as_str() == s)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Ord for $name {
            fn cmp(&self, other: &$name) -> std::cmp::Ordering {
                self.as_str().cmp(other.as_str())
            }
        }

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &$name) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
    };
}
pub use crate::vocabulary;
