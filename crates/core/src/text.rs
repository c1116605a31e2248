//! How ids and texts are quoted on one line: a commit as people quote it, a record id as the
//! continuity views show it, the first line of a text.
//!
//! Owns: the lengths (7 for a commit, 12 for a record id).
//! Must not touch: anything else.

/// The first seven characters of a commit id (`NONE` stays `NONE`), as people quote them and as
/// record file names carry a head.
pub fn short(commit: &str) -> &str {
    commit.get(..7).unwrap_or(commit)
}

/// A record id shortened for display: its first 12 characters.
pub fn short_id(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

/// The first non-blank line of a text, trimmed ("" when there is none).
pub fn first_line(text: &str) -> &str {
    text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_forms_cut_at_their_lengths_and_keep_shorter_text_whole() {
        assert_eq!(short("0123456789abcdef"), "0123456");
        assert_eq!(short("NONE"), "NONE");
        assert_eq!(short_id("0123456789abcdef"), "0123456789ab");
        assert_eq!(short_id("abc"), "abc");
        assert_eq!(first_line("\n  \n  first  \nsecond"), "first");
        assert_eq!(first_line(" \n"), "");
    }
}
