//! Closed vocabularies: a set of stable names that clients word themselves (refusal reasons,
//! note and status-detail codes). Each is declared once, as an enum whose variants carry their
//! wire names, with an `Unknown` catch-all: a name this version does not know (a newer
//! codiva's) reads as `Unknown` instead of failing the whole message, and the text the message
//! carries beside it (a refusal's `message`, a note's `text`) is what a client shows then. A
//! client that words every name matches the enum exhaustively, so a name added here without
//! wording does not compile.

/// Declares a closed vocabulary: the enum (serde and schema use the given wire names; any
/// other string deserialises to `Unknown`, which serialises as `"unknown"`), `ALL` and `CODES`
/// (every known name, in declaration order), `as_str`, `from_code`, `From<&str>`, `Display`
/// and comparison with a `&str` (for code that still holds names as strings).
macro_rules! closed_vocabulary {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            Eq,
            Hash,
            serde::Serialize,
            serde::Deserialize,
            schemars::JsonSchema,
        )]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $wire)] $variant, )*
            /// A name of a later version: the message's own text says what it is.
            #[serde(rename = "unknown", other)]
            Unknown,
        }

        impl $name {
            /// Every known name (not `Unknown`), in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            /// The wire names of [`Self::ALL`], in the same order.
            pub const CODES: &'static [&'static str] = &[$($wire),*];

            /// Its name on the wire (`"unknown"` for `Unknown`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire,)*
                    $name::Unknown => "unknown",
                }
            }

            /// The variant of a wire name; `Unknown` for a name this version does not know.
            pub fn from_code(code: &str) -> Self {
                match code {
                    $($wire => $name::$variant,)*
                    _ => $name::Unknown,
                }
            }

            /// Whether this is one of the names this version knows.
            pub const fn is_known(self) -> bool {
                !matches!(self, $name::Unknown)
            }
        }

        impl From<&str> for $name {
            fn from(code: &str) -> Self {
                $name::from_code(code)
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::convert::Infallible;

            /// Never fails: an unknown name is `Unknown`.
            fn from_str(code: &str) -> Result<Self, Self::Err> {
                Ok($name::from_code(code))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }
    };
}

pub(crate) use closed_vocabulary;
