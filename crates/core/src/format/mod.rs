//! The record format: the one front-matter codec every record file goes through (docs/REFERENCE.md#front-matter).
//!
//! Owns: splitting `---` front matter from a body, reading it with serde into typed structs
//! (unknown keys tolerated, oversize and alias-bomb input refused unparsed), the one writer that
//! emits every key in a fixed order and every string so it reads back equal ([`Writer`]), and the
//! on-disk form of each record kind: checkpoints and handovers ([`record`]), open episodes and
//! closed session records ([`session`]), the task ([`task`]), knowledge ([`knowledge`]).
//! The shapes themselves are declared in `model/`; this module is where they meet bytes.
//! Must not touch: files (callers read and write through `store::atomic`), git, the clock.

pub mod knowledge;
pub mod record;
pub mod session;
pub mod task;
pub mod yaml;

use std::fmt::Display;

use serde_yaml::Mapping;

pub use yaml::{flow, get, get_list, list_field, quoted, scalar};

/// Front matter larger than this is refused unparsed (a YAML bomb never reaches the parser).
pub const MAX_FRONT_MATTER_BYTES: usize = 64 * 1024;

/// Splits `---\n<yaml>\n---\n<body>`; `None` when the text has no front matter.
pub fn split(text: &str) -> Option<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let body = &rest[offset + line.len()..];
            return Some((&rest[..offset], body));
        }
        offset += line.len();
    }
    None
}

/// Why front matter could not be read. Both kinds print as `malformed front matter`, the text
/// `doctor` and the session readers report (docs/REFERENCE.md#findings); the cause is kept as the source.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Larger than [`MAX_FRONT_MATTER_BYTES`]: refused unparsed.
    #[error("malformed front matter")]
    TooLarge {
        /// The size of the refused front matter.
        bytes: usize,
    },
    /// The YAML does not parse into the shape asked for (or holds an alias bomb).
    #[error("malformed front matter")]
    Yaml(#[source] serde_yaml::Error),
}

fn refuse_oversize(yaml: &str) -> Result<(), Error> {
    if yaml.len() > MAX_FRONT_MATTER_BYTES {
        return Err(Error::TooLarge { bytes: yaml.len() });
    }
    Ok(())
}

/// Parses front matter YAML into a generic mapping, refusing oversize input. For the few
/// readers that look at one key of a file they do not otherwise understand (`doctor`).
pub fn mapping(yaml: &str) -> Result<Mapping, Error> {
    refuse_oversize(yaml)?;
    serde_yaml::from_str::<Mapping>(yaml).map_err(Error::Yaml)
}

/// Parses front matter into a typed struct: scalars read as the text written, unknown keys
/// tolerated. Oversize input is refused unparsed; text that could hold an anchor or alias (`&`
/// or `*` anywhere) first goes through the generic parse, which refuses alias bombs even under
/// keys the struct never reads (docs/REFERENCE.md#front-matter: such a file is skipped as malformed).
pub fn typed<T: serde::de::DeserializeOwned>(yaml: &str) -> Result<T, Error> {
    refuse_oversize(yaml)?;
    if yaml.contains(['&', '*']) {
        mapping(yaml)?;
    }
    serde_yaml::from_str(yaml).map_err(Error::Yaml)
}

/// Front matter a writer refuses to emit because every reader would skip it (docs/REFERENCE.md#front-matter: no
/// writer produces what a reader refuses): larger than [`MAX_FRONT_MATTER_BYTES`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "its front matter would be {bytes} bytes, over the {MAX_FRONT_MATTER_BYTES} bytes every reader accepts (`{key}` takes {key_bytes})"
)]
pub struct Oversize {
    /// The size the front matter would have.
    pub bytes: usize,
    /// The key that takes the most of it.
    pub key: String,
    /// How many bytes that key takes.
    pub key_bytes: usize,
}

impl Oversize {
    /// The refusal (exit 10) every writer returns, `what` naming the record it did not write.
    pub fn refusal(&self, what: &str) -> crate::error::Error {
        let hint = if self.key == "changed_files" || self.key == "citations" {
            "nothing was written; lower context.max_list_items in .ai/repo/policy.yaml, or commit or ignore some of the changes".to_string()
        } else {
            format!("nothing was written; the record's `{}` list is too long to be read back", self.key)
        };
        crate::error::Error::refused(format!("{what}: {self}")).hint(hint)
    }
}

/// The one front-matter writer: keys in the order they are written, every free-text value
/// through one quoting rule ([`scalar`] or [`quoted`]) so it reads back equal. A front matter
/// that would pass the readers' cap is never emitted ([`Writer::document`], [`Oversize`]).
#[derive(Debug, Default)]
pub struct Writer {
    out: String,
    /// Bytes per top-level key, in the order written (for naming what made it too large).
    sizes: Vec<(String, usize)>,
}

impl Writer {
    /// A front-matter block (`---` first); finish it with [`Writer::document`].
    pub fn front_matter() -> Writer {
        Writer { out: "---\n".into(), sizes: Vec::new() }
    }

    /// A plain YAML file (`current.yaml`, an episode file); finish it with [`Writer::finish`].
    pub fn file() -> Writer {
        Writer::default()
    }

    /// `key: value` for a value whose text the program fixes (a timestamp from the clock, an
    /// enum's name, a number, a hex id): written as is when it reads back as the same text, else
    /// double-quoted, so even a value that arrived from elsewhere cannot change the document.
    pub fn fixed(&mut self, key: &str, value: impl Display) -> &mut Writer {
        let v = value.to_string();
        let plain = serde_yaml::from_str::<serde_yaml::Value>(&v).ok().as_ref().and_then(yaml::text).as_deref()
            == Some(v.as_str())
            && !v.contains(['\n', '#'])
            // A line separator read alone is text; after `key: ` it ends the line.
            && !v.chars().any(yaml::needs_escape);
        let v = if plain { v } else { quoted(&v) };
        self.line(&format!("{key}: {v}"))
    }

    /// `key: <text>`, plain when that reads back as the same string, else double-quoted.
    pub fn text(&mut self, key: &str, value: &str) -> &mut Writer {
        self.line(&format!("{key}: {}", scalar(value)))
    }

    /// `key: "<text>"`, always double-quoted (free prose: titles, owners, paths of the user).
    pub fn quoted(&mut self, key: &str, value: &str) -> &mut Writer {
        self.line(&format!("{key}: {}", quoted(value)))
    }

    /// A block list (`key:\n  - a\n`), or `key: []`.
    pub fn list(&mut self, key: &str, items: &[String]) -> &mut Writer {
        self.push(&yaml::list(key, items));
        self
    }

    /// A flow list `key: [a, b]`.
    pub fn flow(&mut self, key: &str, items: &[String]) -> &mut Writer {
        self.line(&format!("{key}: {}", flow(items)))
    }

    /// A `# ...` comment line.
    pub fn comment(&mut self, text: &str) -> &mut Writer {
        self.line(&format!("# {text}"))
    }

    /// A structural line the caller composed from this module's value functions (a nested key
    /// of a mapping, an item of a list of mappings).
    pub fn line(&mut self, line: &str) -> &mut Writer {
        self.push(line);
        self.push("\n");
        self
    }

    /// Appends `text`, counting its bytes to the top-level key its lines belong to (a line
    /// that starts in the first column starts a key; indented lines continue the last one).
    fn push(&mut self, text: &str) {
        for piece in text.split_inclusive('\n') {
            let starts_key = self.out.ends_with('\n') && !piece.starts_with([' ', '-', '#', '\n']);
            if starts_key || self.sizes.is_empty() {
                let key = piece.split(':').next().unwrap_or(piece).trim_end().to_string();
                self.sizes.push((key, 0));
            }
            if let Some((_, n)) = self.sizes.last_mut() {
                *n += piece.len();
            }
            self.out.push_str(piece);
        }
    }

    /// Refuses a front matter larger than every reader accepts ([`MAX_FRONT_MATTER_BYTES`]):
    /// the text `split` would hand to [`typed`] is everything after the opening `---` line.
    fn fits(&self) -> Result<(), Oversize> {
        let bytes = self.out.len() - "---\n".len();
        if bytes <= MAX_FRONT_MATTER_BYTES {
            return Ok(());
        }
        let (key, key_bytes) = self.sizes.iter().max_by_key(|(_, n)| *n).cloned().unwrap_or_default();
        Err(Oversize { bytes, key, key_bytes })
    }

    /// Closes the front matter and appends the body after one blank line; a body that does not
    /// end in a newline gets one. Refused when the front matter would pass the readers' cap.
    pub fn document(mut self, body: &str) -> Result<String, Oversize> {
        self.fits()?;
        self.out.push_str("---\n\n");
        self.out.push_str(body);
        if !body.ends_with('\n') {
            self.out.push('\n');
        }
        Ok(self.out)
    }

    /// Closes the front matter and appends `rest` right after the closing `---` line, as is.
    /// Refused when the front matter would pass the readers' cap.
    pub fn close_with(mut self, rest: &str) -> Result<String, Oversize> {
        self.fits()?;
        self.out.push_str("---\n");
        self.out.push_str(rest);
        Ok(self.out)
    }

    /// The plain YAML file as written.
    pub fn finish(self) -> String {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Doc {
        a: String,
        b: String,
        e: String,
        #[serde(deserialize_with = "list_field")]
        c: Vec<String>,
        #[serde(deserialize_with = "list_field")]
        d: Vec<String>,
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Whatever string goes in through the writer reads back equal through the reader: plain
        /// and quoted scalars, block and flow lists, inside a front matter with a body after it.
        #[test]
        fn the_writer_and_the_reader_agree(
            a in "\\PC{0,16}|(null|true|1e3|~| lead|: x|#c|-x|a\nb)",
            b in "\\PC{0,16}",
            c in proptest::collection::vec("\\PC{0,10}|(null|1e3|~|true|a:b|: x|#x)", 0..4),
            d in proptest::collection::vec("\\PC{0,10}|(null|1e3|~|true|a:b|: x|#x)", 0..4),
        ) {
            let mut w = Writer::front_matter();
            w.text("a", &a).quoted("b", &b).list("c", &c).flow("d", &d).fixed("e", &a);
            let text = w.document("# Body\n").unwrap();
            let (yaml, body) = split(&text).unwrap();
            proptest::prop_assert_eq!(body, "\n# Body\n");
            let back: Doc = typed(yaml).unwrap();
            proptest::prop_assert_eq!(back, Doc { e: a.clone(), a, b, c, d });
        }
    }

    #[test]
    fn the_writer_refuses_what_the_reader_would_skip() {
        // The largest front matter the reader accepts is written; one byte more is refused,
        // naming the key that takes the most.
        let fill = |n: usize| {
            let mut w = Writer::front_matter();
            w.fixed("schema", "x/v1");
            let head = "schema: x/v1\nchanged_files:\n".len();
            let item = |i: usize| format!("p{i:0>5}");
            // Items of 11 bytes (`  - p00000\n`), then one that takes the 16 to 26 left.
            let mut items: Vec<String> = (0..(n - head - 16) / 11).map(item).collect();
            items.push("q".repeat(n - head - items.len() * 11 - 5));
            w.list("changed_files", &items);
            w
        };
        let text = fill(MAX_FRONT_MATTER_BYTES).document("body").unwrap();
        let (yaml, _) = split(&text).unwrap();
        assert_eq!(yaml.len(), MAX_FRONT_MATTER_BYTES);
        assert!(typed::<Mapping>(yaml).is_ok());
        let o = fill(MAX_FRONT_MATTER_BYTES + 1).document("body").unwrap_err();
        assert_eq!((o.bytes, o.key.as_str()), (MAX_FRONT_MATTER_BYTES + 1, "changed_files"));
        assert_eq!(o.key_bytes, MAX_FRONT_MATTER_BYTES + 1 - "schema: x/v1\n".len());
        let e = o.refusal("handover");
        assert_eq!(e.exit, crate::error::Exit::Refused);
        assert!(e.message.starts_with("handover: its front matter would be 65537 bytes"), "{}", e.message);
        assert!(fill(MAX_FRONT_MATTER_BYTES + 1).close_with("# t\n").is_err());
    }

    #[test]
    fn oversize_and_unclosed_front_matter_are_refused() {
        assert!(split("---\na: 1\n").is_none());
        assert!(split("a: 1\n---\n").is_none());
        assert_eq!(split("\u{feff}---\r\na: 1\n---\nbody"), Some(("a: 1\n", "body")));
        let big = format!("a: \"{}\"\n", "x".repeat(MAX_FRONT_MATTER_BYTES));
        assert!(matches!(mapping(&big), Err(Error::TooLarge { .. })));
        assert!(matches!(typed::<Mapping>(&big), Err(Error::TooLarge { .. })));
        let e = typed::<Mapping>("a: [1").unwrap_err();
        assert!(matches!(e, Error::Yaml(_)) && std::error::Error::source(&e).is_some());
        assert_eq!(e.to_string(), "malformed front matter");
    }
}
