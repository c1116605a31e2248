//! The `vocabulary!` macro: a closed list of names declared once (variant, printed name,
//! serde name, `ALL`, `parse`, `Display`).
//!
//! Owns: the macro. Must not touch: any vocabulary's names (each lives where it is used).

/// Declares a closed vocabulary from one list: each variant with its printed name. The serde
/// name, `as_str` (the text), `ALL`, `parse` and `Display` all come from that list, so a name
/// cannot be written twice. A variant's doc comment is kept (the JSON Schemas print it); one
/// without is documented by its printed name. Values order by their printed name (lists sorted
/// by code read as they did when codes were strings), or, for `enum Name in declaration order`,
/// as declared (a rank: `Level`, `Severity`). The calling crate needs `serde` and, for its `mcp`
/// feature, `schemars`.
#[macro_export]
macro_rules! vocabulary {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($body:tt)* }) => {
        $crate::vocabulary!(@variants [$(#[$meta])* $vis enum $name] by_name [] $($body)*);
    };
    ($(#[$meta:meta])* $vis:vis enum $name:ident in declaration order { $($body:tt)* }) => {
        $crate::vocabulary!(@variants [$(#[$meta])* $vis enum $name] by_declaration [] $($body)*);
    };
    // One variant at a time: its own attributes, or its printed name as its doc.
    (@variants $head:tt $order:ident [$($done:tt)*] $(#[$vmeta:meta])+ $variant:ident = $text:literal, $($rest:tt)*) => {
        $crate::vocabulary!(@variants $head $order [$($done)* [$(#[$vmeta])+] $variant = $text,] $($rest)*);
    };
    (@variants $head:tt $order:ident [$($done:tt)*] $variant:ident = $text:literal, $($rest:tt)*) => {
        $crate::vocabulary!(@variants $head $order [$($done)* [#[doc = $text]] $variant = $text,] $($rest)*);
    };
    (@variants [$(#[$meta:meta])* $vis:vis enum $name:ident] $order:ident
        [$([$(#[$vmeta:meta])*] $variant:ident = $text:literal,)*]) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
        $vis enum $name {
            $(
                $(#[$vmeta])*
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

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &$name) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }

        $crate::vocabulary!(@order $order $name);
    };
    (@order by_name $name:ident) => {
        impl Ord for $name {
            fn cmp(&self, other: &$name) -> std::cmp::Ordering {
                self.as_str().cmp(other.as_str())
            }
        }
    };
    (@order by_declaration $name:ident) => {
        impl Ord for $name {
            fn cmp(&self, other: &$name) -> std::cmp::Ordering {
                (*self as usize).cmp(&(*other as usize))
            }
        }
    };
}
pub use crate::vocabulary;
