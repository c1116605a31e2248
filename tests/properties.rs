//! Property tests of the pure formats (issue 7, item 6): canonical JSON and record ids,
//! minisign signatures, and the Markdown section parser against pulldown-cmark's own events.
#![allow(clippy::unwrap_used)]

use majordomus::continuity::record::{self, Record};
use majordomus::continuity::signing::{self, DeviceKey};
use majordomus::model::markdown;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Any JSON value a record field could hold, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

/// The same value with every object's keys in a shuffled order (by a seed).
fn reordered(v: &Value, seed: u64) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by_key(|k| record::blake3_hex(format!("{seed}{k}").as_bytes()));
            Value::Object(keys.into_iter().map(|k| (k.clone(), reordered(&m[k], seed))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| reordered(x, seed)).collect()),
        other => other.clone(),
    }
}

fn sample(body: &str, node: &str) -> Record {
    serde_json::from_value(json!({
        "schema": "majordomus-continuity/v1",
        "repository": "0123456789abcdef0123456789abcdef",
        "device": {"node": node, "label": "laptop"},
        "episode": "none",
        "published_at": "2026-09-03T20:00:00Z",
        "producer": "git-majordomus/0.1.0",
        "source": {"branch": "main", "working_tree": "clean", "changed_total": 0},
        "handover": {"id": "00000000000000000000000000000000", "body": body}
    }))
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The id is a function of the content: key order and whitespace never change it.
    #[test]
    fn record_id_ignores_key_order_and_whitespace(v in json_value(), seed in any::<u64>()) {
        let shuffled = reordered(&v, seed);
        let pretty: Value = serde_json::from_str(&serde_json::to_string_pretty(&shuffled).unwrap()).unwrap();
        prop_assert_eq!(record::id_of_value(&v), record::id_of_value(&pretty));
        prop_assert_eq!(record::canonical_value(&v), record::canonical_value(&pretty));
    }

    /// Different content, different id (for values that differ after canonicalisation).
    #[test]
    fn record_id_follows_the_content(a in json_value(), b in json_value()) {
        prop_assume!(record::canonical_value(&a) != record::canonical_value(&b));
        prop_assert_ne!(record::id_of_value(&a), record::id_of_value(&b));
    }

    /// What a device signs verifies; any change to the signed record does not.
    #[test]
    fn signatures_round_trip_and_catch_tampering(seed in any::<[u8; 32]>(), body in "\\PC{1,200}", extra in "\\PC{1,20}") {
        let key = DeviceKey::from_seed(seed, Some("laptop".into()), "2026-09-03T20:00:00Z");
        let envelope = key.sign(&sample(&body, &key.node()));
        prop_assert!(signing::verify(&envelope).is_ok());
        prop_assert_eq!(&envelope.id, &record::id_of_value(&envelope.record));
        let mut tampered = envelope.clone();
        tampered.record["handover"]["body"] = Value::from(format!("{body}{extra}"));
        prop_assert!(signing::verify(&tampered).is_err());
        let other = DeviceKey::from_seed(seed.map(|b| b ^ 0x5a), None, "2026-09-03T20:00:00Z");
        let mut foreign = envelope.clone();
        foreign.public_key = other.public_key_base64();
        prop_assert!(signing::verify(&foreign).is_err());
    }
}

/// One line of a Markdown body, from the shapes that make section parsing hard.
fn md_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Za-z ]{0,12}".prop_map(|t| format!("# {t}")),
        "[A-Za-z ]{0,12}".prop_map(|t| format!("## {t}")),
        "[A-Za-z ]{1,12}".prop_map(|t| format!("# {t} ##")),
        Just("```sh".to_string()),
        Just("```".to_string()),
        Just("~~~".to_string()),
        Just("    # indented".to_string()),
        Just("<div>".to_string()),
        Just("</div>".to_string()),
        Just("<!--".to_string()),
        Just("-->".to_string()),
        Just("===".to_string()),
        Just("> # quoted".to_string()),
        Just("- # item".to_string()),
        Just(String::new()),
        "[a-z #]{0,16}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Sections tile the body from the first heading to the end, in order, without overlap, and
    /// each starts at an H1 that pulldown-cmark reports at the top level.
    #[test]
    fn sections_tile_the_body(lines in prop::collection::vec(md_line(), 0..24)) {
        let body = lines.join("\n");
        let secs = markdown::sections(&body);
        for pair in secs.windows(2) {
            prop_assert_eq!(pair[0].content.end, pair[1].heading.start);
        }
        if let Some(last) = secs.last() {
            prop_assert_eq!(last.content.end, body.len());
        }
        for s in &secs {
            prop_assert_eq!(s.heading.end, s.content.start);
            prop_assert!(body[s.heading.clone()].trim_start().starts_with('#'));
        }
        // Every top-level ATX H1 the parser reports is a section, and nothing else is.
        use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
        let mut depth = 0;
        let mut h1 = Vec::new();
        for (ev, range) in Parser::new(&body).into_offset_iter() {
            match ev {
                Event::Start(Tag::BlockQuote(_) | Tag::Item) => depth += 1,
                Event::End(TagEnd::BlockQuote(_) | TagEnd::Item) => depth -= 1,
                Event::Start(Tag::Heading { level: HeadingLevel::H1, .. }) if depth == 0 => {
                    let first = body[range.clone()].lines().next().unwrap_or("").trim_start().to_string();
                    if first == "#" || first.starts_with("# ") {
                        h1.push(range.start);
                    }
                }
                _ => {}
            }
        }
        prop_assert_eq!(secs.iter().map(|s| s.heading.start).collect::<Vec<_>>(), h1);
    }

    /// Withholding replaces a section's whole content and keeps every other section as written.
    #[test]
    fn withholding_replaces_exactly_one_section(lines in prop::collection::vec(md_line(), 0..24)) {
        let body = format!("# Objective\nx\n\n# Next Action\n{}\n", lines.join("\n"));
        let out = markdown::replace_content(&body, "Next Action", "(withheld)");
        let before = markdown::sections(&body);
        let after = markdown::sections(&out);
        prop_assert_eq!(before.iter().map(|s| &s.name).collect::<Vec<_>>(), after.iter().map(|s| &s.name).collect::<Vec<_>>());
        for (b, a) in before.iter().zip(&after) {
            if a.name == "Next Action" {
                prop_assert_eq!(&out[a.content.clone()], "(withheld)\n");
            } else {
                prop_assert_eq!(&body[b.content.clone()], &out[a.content.clone()]);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Lineage laws (docs/REFERENCE.md#lineage; issue 7, item 6).

use majordomus::continuity::lineage::{LineState, Lineage, Relation};
use std::collections::BTreeSet;

/// One generated record: `None` opens a line; `Some(j)` continues the `j % i`-th earlier record
/// (on its line); `dangling` makes the parent one the store does not hold.
#[derive(Debug, Clone)]
struct Gen {
    parent: Option<usize>,
    dangling: bool,
}

fn gen_store() -> impl Strategy<Value = Vec<Gen>> {
    prop::collection::vec(
        (prop::option::weighted(0.75, any::<usize>()), prop::bool::weighted(0.1))
            .prop_map(|(parent, dangling)| Gen { parent, dangling }),
        1..40,
    )
}

/// `(id, line, parent)` of the generated records (ids are record ids; each record stays on its
/// parent's line), in the generated order.
fn links_of(store: &[Gen]) -> Vec<(String, Option<String>, Option<String>)> {
    let mut out: Vec<(String, Option<String>, Option<String>)> = Vec::new();
    for (i, g) in store.iter().enumerate() {
        let id = record::blake3_hex(format!("record {i}").as_bytes());
        let (line, parent) = match (g.parent, i) {
            (Some(j), i) if i > 0 => {
                let (pid, pline, _) = &out[j % i];
                let line = pline.clone().unwrap_or_else(|| pid.clone());
                if g.dangling {
                    (Some(line), Some(record::blake3_hex(format!("gone {i}").as_bytes())))
                } else {
                    (Some(line), Some(pid.clone()))
                }
            }
            _ => (None, None),
        };
        out.push((id, line, parent));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// a newer than b ⇔ b older than a; equal only to itself; diverged and independent are
    /// symmetric; newer is transitive.
    #[test]
    fn relations_are_converse_and_transitive(store in gen_store()) {
        let links = links_of(&store);
        let g = Lineage::from_links(links.clone());
        let ids: Vec<&str> = links.iter().map(|l| l.0.as_str()).collect();
        for a in &ids {
            for b in &ids {
                let (ab, ba) = (g.relation(a, b), g.relation(b, a));
                prop_assert_eq!(ab == Relation::Newer, ba == Relation::Older);
                prop_assert_eq!(ab == Relation::Equal, a == b);
                prop_assert_eq!(ab == Relation::Diverged, ba == Relation::Diverged);
                prop_assert_eq!(ab == Relation::Independent, ba == Relation::Independent);
                prop_assert_eq!(ab == Relation::Independent, g.line_of(a) != g.line_of(b));
                if ab == Relation::Newer {
                    for c in &ids {
                        if g.relation(b, c) == Relation::Newer {
                            prop_assert_eq!(g.relation(a, c), Relation::Newer);
                        }
                    }
                }
            }
        }
    }

    /// Heads are exactly the records no record of the store continues; every record is on
    /// exactly one line, its parent's; a line is diverged exactly when it has two heads or more.
    #[test]
    fn heads_and_lines(store in gen_store()) {
        let links = links_of(&store);
        let g = Lineage::from_links(links.clone());
        let parents: BTreeSet<&str> = links.iter().filter_map(|l| l.2.as_deref()).collect();
        let want: BTreeSet<String> = links.iter().map(|l| l.0.clone()).filter(|id| !parents.contains(id.as_str())).collect();
        prop_assert_eq!(g.heads().into_iter().map(String::from).collect::<BTreeSet<String>>(), want);
        for (id, line, parent) in &links {
            prop_assert_eq!(g.line_of(id), Some(line.as_deref().unwrap_or(id)));
            prop_assert_eq!(g.parent_of(id), parent.clone());
            if let Some(p) = parent.as_deref().filter(|p| g.contains(p)) {
                prop_assert_eq!(g.line_of(p), g.line_of(id), "a record is on its parent's line");
                prop_assert_eq!(g.relation(p, id), Relation::Newer);
            }
        }
        let lines = g.lines();
        prop_assert_eq!(lines.iter().map(|l| l.records).sum::<usize>(), g.len(), "every record on exactly one line");
        let mut by_line: Vec<u32> = g.rows_by_line().collect();
        by_line.sort_unstable();
        prop_assert_eq!(by_line, (0..g.len() as u32).collect::<Vec<u32>>(), "every row on exactly one line");
        for l in &lines {
            let members = g.ids().filter(|id| g.line_of(id) == Some(l.line.as_str())).count();
            prop_assert_eq!(l.records, members);
            let heads: Vec<String> =
                g.heads().into_iter().filter(|h| g.line_of(h) == Some(l.line.as_str())).map(String::from).collect();
            prop_assert_eq!(&l.heads, &heads);
            prop_assert_eq!(l.state == LineState::Diverged, heads.len() > 1);
        }
        prop_assert!(g.findings(&|_| None).iter().all(|f| f.code != "continuity.broken_lineage"));
    }

    /// The graph depends on the records, not on the order they are given in.
    #[test]
    fn order_of_the_input_changes_nothing(store in gen_store(), seed in any::<u64>()) {
        let links = links_of(&store);
        let mut shuffled = links.clone();
        shuffled.sort_by_key(|l| record::blake3_hex(format!("{seed}{}", l.0).as_bytes()));
        prop_assert_eq!(Lineage::from_links(links), Lineage::from_links(shuffled));
    }
}
