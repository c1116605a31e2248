//! How ids and texts are quoted on one line: a commit as people quote it, a record id as the
//! continuity views show it, the first line of a text; and how a text is made safe to show: every
//! control character as `\u{XX}` (`escape`, `escape_line`; docs/REFERENCE.md#continuity-record).
//!
//! Owns: the lengths (7 for a commit, 12 for a record id); what a control character is and how
//! it is shown.
//! Must not touch: anything else (where output leaves the process, `ui.rs` applies the escape).

use std::borrow::Cow;

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

/// Whether `c` is a control character: Unicode category Cc (U+0000–U+001F,
/// U+007F–U+009F) or a bidirectional override or isolate (U+202A–U+202E, U+2066–U+2069).
pub fn is_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Whether a byte can start a control character's UTF-8 form (a cheap first pass: text without
/// one is returned as it is, unscanned by `chars`).
fn may_start_control(b: u8) -> bool {
    // C0 and DEL are themselves; C1 is 0xC2 0x80–0x9F; the bidi set is 0xE2 0x80/0x81 ….
    b < 0x20 || b == 0x7F || b == 0xC2 || b == 0xE2
}

fn escape_with(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    let skip = |c: char| !is_control(c) || keep(c);
    // A lead byte is a char boundary (continuation bytes are 0x80–0xBF).
    let Some(from) = text.bytes().position(may_start_control) else { return Cow::Borrowed(text) };
    let Some((first, _)) = text[from..].char_indices().find(|(_, c)| !skip(*c)) else { return Cow::Borrowed(text) };
    let first = from + first;
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if skip(c) {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{{{:02X}}}", u32::from(c)));
        }
    }
    Cow::Owned(out)
}

/// A multi-line text made safe for a terminal: every control character shown as `\u{XX}`
/// (hexadecimal, upper case, at least two digits: `\u{1B}`, `\u{202E}`), except the line feed
/// and the tab that line-based output keeps. A carriage return is escaped (it would overwrite
/// the line). Text without a control character comes back borrowed.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_with(text, |c| c == '\n' || c == '\t')
}

/// A text that must stay on one line (a workflow command's line, a single-line field): like
/// `escape`, and the line feed is escaped too.
pub fn escape_line(text: &str) -> Cow<'_, str> {
    escape_with(text, |c| c == '\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_character_is_escaped_and_nothing_else() {
        for c in (0u32..=0x9F).chain(0x2000..=0x206F).chain([0xFEFF, 0x1F600]).filter_map(char::from_u32) {
            let s = c.to_string();
            let cc = c <= '\u{1F}' || ('\u{7F}'..='\u{9F}').contains(&c);
            let bidi = ('\u{202A}'..='\u{202E}').contains(&c) || ('\u{2066}'..='\u{2069}').contains(&c);
            assert_eq!(is_control(c), cc || bidi, "U+{:04X}", u32::from(c));
            let want =
                if (cc || bidi) && c != '\n' && c != '\t' { format!("\\u{{{:02X}}}", u32::from(c)) } else { s.clone() };
            assert_eq!(escape(&s), want, "U+{:04X}", u32::from(c));
            assert_eq!(escape(&format!("a{s}b")), format!("a{want}b"));
        }
        assert_eq!(escape("\u{1b}[2J\u{1b}]0;PWNED\u{7}"), "\\u{1B}[2J\\u{1B}]0;PWNED\\u{07}");
        assert_eq!(escape("a\r\nb"), "a\\u{0D}\nb", "a carriage return is shown");
        assert_eq!(escape("\u{202E}txt.exe"), "\\u{202E}txt.exe");
        assert_eq!(escape("\u{85}\u{9F}\u{7F}"), "\\u{85}\\u{9F}\\u{7F}");
    }

    #[test]
    fn line_feeds_and_tabs_stay_in_text_and_only_tabs_on_one_line() {
        assert_eq!(escape("a\n\tb\n"), "a\n\tb\n");
        assert!(matches!(escape("a\n\tb"), Cow::Borrowed(_)));
        assert_eq!(escape_line("a\n::warning x\tb"), "a\\u{0A}::warning x\tb");
    }

    #[test]
    fn text_without_controls_is_untouched() {
        for s in ["", "plain", "Größe — ü ß ✓ 日本語 🦀", "\u{2028}\u{200B}\u{2060}\u{A0}", "€ ‚ … ‰ ‹"]
        {
            assert!(matches!(escape(s), Cow::Borrowed(t) if t == s), "{s:?}");
            assert!(matches!(escape_line(s), Cow::Borrowed(t) if t == s), "{s:?}");
        }
        assert_eq!(escape("é\u{1b}é"), "é\\u{1B}é", "multi-byte text around an escape is kept");
        assert_eq!(escape("\\u{1B}"), "\\u{1B}", "an escape already shown is shown as it is");
    }

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
