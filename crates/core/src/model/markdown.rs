//! Record bodies read as CommonMark (docs/REFERENCE.md#handover-body): the one section parser every reader uses.
//!
//! A section is a level-one ATX heading (`# Name`, up to three spaces of indent, closing `#`s
//! stripped) at the document's top level — not inside a block quote or a list item — and outside
//! fenced code, indented code and HTML blocks. Its extent comes from pulldown-cmark's byte
//! offsets: it runs from the end of its heading to the start of the next section's heading (or
//! the end of the body). A `# ...` line inside a code block is therefore part of the section
//! above it, and a setext `Name\n===` is no section.
//! Must not touch: files, git.

use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// The provenance line that ends every body the tool composes (docs/REFERENCE.md#origin). In a handover it
/// follows a final thematic break, and the two are the record's footer, part of no section
/// (docs/REFERENCE.md#origin).
pub const PROVENANCE: &str = "Derived by git-majordomus from its records and git; no model wrote it.";

/// One level-one section of a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The heading's text (inline markup dropped, surrounding blanks trimmed).
    pub name: String,
    /// The heading's bytes, its line ending included.
    pub heading: Range<usize>,
    /// The bytes after the heading up to the next section's heading or the end of the body.
    pub content: Range<usize>,
}

/// The level-one sections of `body`, in order. Text before the first one belongs to none.
pub fn sections(body: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    // Nesting depth of block quotes and list items: headings inside them are not sections.
    let mut depth = 0usize;
    let mut current: Option<(Range<usize>, String)> = None;
    for (event, range) in Parser::new_ext(body, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::BlockQuote(_) | Tag::Item) => depth += 1,
            Event::End(TagEnd::BlockQuote(_) | TagEnd::Item) => depth = depth.saturating_sub(1),
            Event::Start(Tag::Heading { level: HeadingLevel::H1, .. })
                if depth == 0 && is_atx(&body[range.clone()]) =>
            {
                current = Some((range, String::new()));
            }
            Event::End(TagEnd::Heading(HeadingLevel::H1)) => {
                if let Some((heading, name)) = current.take() {
                    if let Some(last) = out.last_mut() {
                        last.content.end = heading.start;
                    }
                    let end = body.len();
                    out.push(Section { name: name.trim().to_string(), content: heading.end..end, heading });
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, name)) = current.as_mut() {
                    name.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, name)) = current.as_mut() {
                    name.push(' ');
                }
            }
            _ => {}
        }
    }
    if let (Some(rule), Some(last)) = (footer_of(body), out.last_mut()) {
        if rule.start >= last.content.start {
            last.content.end = rule.start;
        }
    }
    out
}

/// The bytes of `body`'s provenance footer, when it has one.
fn footer_of(body: &str) -> Option<Range<usize>> {
    let mut depth = 0usize;
    let mut last_rule = None;
    for (event, range) in Parser::new_ext(body, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::BlockQuote(_) | Tag::Item) => depth += 1,
            Event::End(TagEnd::BlockQuote(_) | TagEnd::Item) => depth = depth.saturating_sub(1),
            Event::Rule if depth == 0 => last_rule = Some(range),
            _ => {}
        }
    }
    footer(body, last_rule)
}

/// The provenance footer of a composed body (docs/REFERENCE.md#origin): its final top-level thematic break
/// when nothing but the provenance line follows it.
fn footer(body: &str, last_rule: Option<Range<usize>>) -> Option<Range<usize>> {
    let rule = last_rule?;
    (body[rule.end..].trim() == PROVENANCE).then_some(rule.start..body.len())
}

/// Whether a heading's source is ATX (`#` then a blank or the line's end), not setext.
fn is_atx(source: &str) -> bool {
    let first = source.lines().next().unwrap_or("").trim_start();
    first == "#" || first.starts_with("# ") || first.starts_with("#\t")
}

/// The first section called `name`.
pub fn find<'a>(body: &'a str, name: &str) -> Option<&'a str> {
    sections(body).into_iter().find(|s| s.name == name).map(|s| &body[s.content])
}

/// `body` with the content of every section called `name` replaced by `replacement` (one line,
/// written without its newline). The headings and everything else stay byte for byte.
pub fn replace_content(body: &str, name: &str, replacement: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut at = 0;
    let footer = footer_of(body);
    for s in sections(body).into_iter().filter(|s| s.name == name) {
        out.push_str(&body[at..s.content.start]);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(replacement);
        out.push('\n');
        // Before a footer a blank line stays: its rule must not become the underline of a
        // setext heading.
        if footer.as_ref().is_some_and(|f| f.start == s.content.end) {
            out.push('\n');
        }
        at = s.content.end;
    }
    out.push_str(&body[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(body: &str) -> Vec<String> {
        sections(body).into_iter().map(|s| s.name).collect()
    }

    /// A composed body's final thematic break and provenance line belong to no section.
    #[test]
    fn the_provenance_footer_is_part_of_no_section() {
        let p = super::PROVENANCE;
        let body = format!("# Objective\no\n\n# Next Action\nrun it\n\n---\n{p}\n");
        let s = sections(&body);
        assert_eq!(&body[s[1].content.clone()], "run it\n\n");
        // any other final rule stays in its section
        let body = "# Next Action\nrun it\n\n---\nmore\n";
        assert_eq!(find(body, "Next Action"), Some("run it\n\n---\nmore\n"));
        // withholding keeps the footer
        let w = replace_content(&format!("# Next Action\nrun\n\n---\n{p}\n"), "Next Action", "(withheld)");
        assert!(w.ends_with(&format!("(withheld)\n\n---\n{p}\n")), "{w}");
    }

    #[test]
    fn extents_follow_the_parser() {
        let body = "intro\n# Objective\nmove it\n# Next Action\nrun\n";
        let s = sections(body);
        assert_eq!(names(body), ["Objective", "Next Action"]);
        assert_eq!(&body[s[0].content.clone()], "move it\n");
        assert_eq!(&body[s[1].content.clone()], "run\n");
        assert_eq!(&body[s[1].heading.clone()], "# Next Action\n");
    }

    #[test]
    fn code_and_html_are_not_headings() {
        let cases = [
            "# Next Action\n```sh\n# comment\nrm -rf x\n```\nafter\n",
            "# Next Action\n~~~\n# comment\nrm -rf x\n~~~\nafter\n",
            "# Next Action\n````md\n```\n# comment\n```\nrm -rf x\n````\nafter\n",
            "# Next Action\n```sh\n# comment\nrm -rf x\n",
            "# Next Action\n\n    # comment\n    rm -rf x\nafter\n",
            "# Next Action\n<div>\n# comment\nrm -rf x\n</div>\nafter\n",
            "# Next Action\n<!--\n# comment\n\nrm -rf x\n-->\nafter\n",
        ];
        for body in cases {
            let s = sections(body);
            assert_eq!(names(body), ["Next Action"], "{body:?}");
            assert!(body[s[0].content.clone()].contains("rm -rf x"), "{body:?}");
        }
    }

    #[test]
    fn setext_containers_and_closing_hashes() {
        assert!(sections("Next Action\n===\nrun\n").is_empty());
        assert!(sections("> # Next Action\n> run\n").is_empty());
        assert!(sections("- # Next Action\n  run\n").is_empty());
        assert_eq!(names("# Next Action ##\nrun\n"), ["Next Action"]);
        assert_eq!(names("   # Objective\nx\n"), ["Objective"]);
        assert!(sections("#Objective\nx\n").is_empty());
        assert!(sections("#x\n===\n").is_empty());
        assert_eq!(names("## Sub\n# Top\n"), ["Top"]);
    }

    #[test]
    fn only_inside_code_is_no_section() {
        let body = "# Objective\n```\n# Next Action\nrun\n```\n";
        assert_eq!(find(body, "Next Action"), None);
    }

    #[test]
    fn replace_keeps_everything_else() {
        let body = "# Objective\na\n# Next Action\n```sh\n# c\nrun\n```\n# Risks\nr\n";
        let out = replace_content(body, "Next Action", "(withheld)");
        assert_eq!(out, "# Objective\na\n# Next Action\n(withheld)\n# Risks\nr\n");
        assert_eq!(replace_content("# Next Action", "Next Action", "(w)"), "# Next Action\n(w)\n");
        assert_eq!(replace_content("x\n", "Next Action", "(w)"), "x\n");
    }
}
