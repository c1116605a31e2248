//! The text of `search` (docs/REFERENCE.md#search): one line per hit, the trailer, the no-match answer.
//! Must not touch: git, `ctx`, files, the terminal.

use crate::ops::queries::search::{Hit, Kind};

/// How many characters of a matching line are shown.
pub const TEXT_WIDTH: usize = 120;

/// One hit: `<kind:11> <path>:<line>  <text cut to 120 characters>`.
pub fn hit(h: &Hit) -> String {
    let text: String = h.text.chars().take(TEXT_WIDTH).collect();
    format!("{:<11} {}:{}  {}", h.kind.as_str(), h.path, h.line, text).trim_end().to_string()
}

/// The trailer: `search: N match(es)`.
pub fn trailer(count: usize) -> String {
    format!("search: {count} match(es)")
}

/// The absence answer: `no match for "<text>" in <kinds>`.
pub fn no_match(text: &str, kinds: &[Kind]) -> String {
    let names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
    format!("no match for \"{text}\" in {}", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_line_is_cut() {
        let h =
            Hit { kind: Kind::Decision, path: ".ai/local/state/decisions.md".into(), line: 7, text: "x".repeat(200) };
        let s = hit(&h);
        assert!(s.starts_with("decision    .ai/local/state/decisions.md:7  xxx"));
        assert_eq!(s.chars().filter(|c| *c == 'x').count(), 120);
        assert_eq!(no_match("foo", &[Kind::Handover, Kind::History]), "no match for \"foo\" in handover, history");
    }
}
