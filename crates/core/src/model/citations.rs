//! What a checkpoint or handover cites (docs/REFERENCE.md#citations):
//! the repository paths its body names in code spans, or as `path:line` / `path#Lnn` in prose —
//! never inside a fenced or indented code block — kept with the blob each had at the record's
//! head, so that a reader can ask git whether the file changed since.
//!
//! Owns: finding the named paths in a body, and the `path@<blob>` form a citation is kept in.
//! Must not touch: git, files (the caller resolves the blobs).

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// What a citation's blob is when the path did not exist at the record's head.
pub const ABSENT: &str = "absent";

/// One citation: a repository path and its blob at the record's head (`None`: named, absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Citation {
    /// Repository-relative, `/`-separated.
    pub path: String,
    /// 40 (or 64) lowercase hex; `None` when the path did not exist at the head.
    pub blob: Option<String>,
}

impl Citation {
    /// `path@<blob>` or `path@absent`, as the front matter keeps it.
    pub fn to_field(&self) -> String {
        format!("{}@{}", self.path, self.blob.as_deref().unwrap_or(ABSENT))
    }

    /// Reads `path@<blob>`; `None` for anything else.
    pub fn parse(field: &str) -> Option<Citation> {
        let (path, blob) = field.rsplit_once('@')?;
        let blob = match blob {
            ABSENT => None,
            b if (b.len() == 40 || b.len() == 64) && b.bytes().all(|c| c.is_ascii_hexdigit()) => Some(b.to_string()),
            _ => return None,
        };
        plausible(path).then(|| Citation { path: path.to_string(), blob })
    }
}

/// The paths `body` names, in order of first appearance, without repeats: the text of inline
/// code spans that reads as a path, and `path:line` / `path#Lnn` tokens in prose; a fenced or
/// indented code block names nothing (it quotes).
pub fn named_paths(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |p: String| {
        if !out.contains(&p) {
            out.push(p);
        }
    };
    let mut in_block = 0usize;
    for ev in Parser::new(body) {
        match ev {
            Event::Start(Tag::CodeBlock(_)) => in_block += 1,
            Event::End(TagEnd::CodeBlock) => in_block = in_block.saturating_sub(1),
            Event::Code(text) if in_block == 0 => {
                if let Some(p) = as_path(text.trim(), false) {
                    push(p);
                }
            }
            Event::Text(text) if in_block == 0 => {
                for token in text.split(|c: char| c.is_whitespace() || "()[]{},;\"'<>`".contains(c)) {
                    if let Some(p) = as_path(token, true) {
                        push(p);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// `token` as a repository path: a `:<line>` (`:<a>-<b>`) or `#L<line>` suffix taken off (in
/// prose only such a token counts), surrounding punctuation and a leading `./` dropped.
fn as_path(token: &str, needs_line: bool) -> Option<String> {
    let token = token.trim_end_matches(['.', ':', '!', '?']);
    let (path, had_line) = match token.rsplit_once('#') {
        Some((p, l)) if l.starts_with('L') && is_line(&l[1..]) => (p, true),
        _ => match token.rsplit_once(':') {
            Some((p, l)) if is_line(l) => (p, true),
            _ => (token, false),
        },
    };
    if needs_line && !had_line {
        return None;
    }
    let path = path.strip_prefix("./").unwrap_or(path);
    plausible(path).then(|| path.to_string())
}

/// A dotfile at the root (`.gitignore`, `.env.example`): a dot, then a name of letters,
/// digits, `-`, `_` and `.`.
fn dotfile(p: &str) -> bool {
    p.strip_prefix('.').is_some_and(|n| {
        n.starts_with(|c: char| c.is_ascii_alphanumeric())
            && n.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    })
}

/// `12`, `12-30`, `L12-L30` (after the first `L`).
fn is_line(s: &str) -> bool {
    let mut parts = s.splitn(2, '-');
    let first = parts.next().unwrap_or("");
    let ok = |p: &str| !p.is_empty() && p.len() <= 9 && p.bytes().all(|b| b.is_ascii_digit());
    ok(first) && parts.next().is_none_or(|r| ok(r.strip_prefix('L').unwrap_or(r)))
}

/// Whether `p` can be a repository path: relative, no `..`, no scheme, no spaces or wildcards,
/// with a `/` or an extension, at most 255 bytes.
fn plausible(p: &str) -> bool {
    !p.is_empty()
        && p.len() <= 255
        && !p.starts_with('/')
        && !p.starts_with('-')
        && !p.contains("://")
        && !p.contains(['*', '?', '$', '=', '\\', '@', '|', '&', '%', '~'])
        && !p.chars().any(|c| c.is_whitespace() || c.is_control())
        && p.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
        && (p.contains('/')
            || dotfile(p)
            || p.rsplit_once('.')
                .is_some_and(|(a, e)| !a.is_empty() && !e.is_empty() && e.bytes().all(|b| b.is_ascii_alphanumeric())))
        && !p.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_and_line_references_are_cited_code_blocks_are_not() {
        let body = "# Next Action\nFinish the retry loop in `src/net/retry.rs`; see lib/a.rs:12 and \
                    docs/x.md#L3-L9, not `cargo test` nor v1.2 nor https://x.io/a.rs:3.\n\n\
                    ```\nsrc/quoted.rs:1\n`src/also_quoted.rs`\n```\n\n    indented/block.rs:4\n\n\
                    Again `src/net/retry.rs` and (README.md:1), `.github/ci.yml`, `.gitignore`, not `...`.\n";
        assert_eq!(
            named_paths(body),
            ["src/net/retry.rs", "lib/a.rs", "docs/x.md", "README.md", ".github/ci.yml", ".gitignore"]
        );
    }

    #[test]
    fn a_citation_round_trips_and_odd_fields_are_refused() {
        let c = Citation { path: "src/a.rs".into(), blob: Some("a".repeat(40)) };
        assert_eq!(Citation::parse(&c.to_field()), Some(c));
        let gone = Citation { path: "gone.rs".into(), blob: None };
        assert_eq!(gone.to_field(), "gone.rs@absent");
        assert_eq!(Citation::parse("gone.rs@absent"), Some(gone));
        for bad in ["nope", "a.rs@xyz", "/etc/passwd@absent", "../a.rs@absent", "a b.rs@absent"] {
            assert_eq!(Citation::parse(bad), None, "{bad}");
        }
    }
}
