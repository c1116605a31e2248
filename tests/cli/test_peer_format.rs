//! What a record may carry (issue 39 items 1, 2 and 6; the text grammar and caps of
//! docs/REFERENCE.md#continuity-record, docs/REFERENCE.md#admission): a
//! publish refuses — exit 10, naming the field, nothing written — a record admission would
//! refuse for the text of a field or its size, where it used to cut: every unresolved question
//! travels, or the publish is refused. A dry run says the same.

use crate::common::store::{json, REF};
use crate::common::{Repo, TestEnv};

const BODY: &str = "# Objective\nShip it.\n\n# Current State\nWork in progress.\n\n# Next Action\nGo on.\n";

/// A checkout with a device key and a handover (no task) ready to publish; its name.
fn ready(env: &TestEnv) -> (Repo<'_>, String) {
    let r = env.ready_repo("a");
    r.mj(&["continuity", "device", "--label", "laptop"]).ok();
    let out = r.mj_in(&["handover", "--no-task"], BODY).ok();
    let name = out.first_line().rsplit('/').next().unwrap().to_string();
    (r, name)
}

fn tip(r: &Repo<'_>) -> String {
    r.git(&["for-each-ref", "--format=%(objectname)", REF])
}

/// `publish` and `publish --dry-run` both refuse with exit 10, one `error:` line naming
/// `expected` and a `hint:`; the store does not move.
#[track_caller]
fn refused(r: &Repo<'_>, name: &str, expected: &str) -> String {
    let before = tip(r);
    let mut first = String::new();
    for dry in [true, false] {
        let mut args = vec!["continuity", "publish", "--handover", name];
        if dry {
            args.push("--dry-run");
        }
        let out = r.mj(&args);
        assert_eq!(out.code, 10, "{args:?}: {}", out.all());
        let error = out.stderr.lines().find(|l| l.starts_with("error: ")).unwrap_or_default().to_string();
        assert!(error.contains(expected), "{args:?}: {}", out.all());
        assert!(out.stderr.lines().any(|l| l.starts_with("hint: ")), "{args:?}: {}", out.all());
        assert_eq!(tip(r), before, "{args:?} moved the store");
        first = error;
    }
    first
}

fn write_questions(r: &Repo<'_>, questions: &[String]) {
    let text: String = questions.iter().map(|q| format!("- [unresolved] none — {q} (2026-09-01)\n")).collect();
    r.write(".ai/local/state/open-questions.md", &format!("# Open questions\n\n{text}"));
}

#[test]
fn a_question_with_a_control_character_refuses_the_publish_naming_it() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (r, name) = ready(&env);
    write_questions(&r, &["Which URL?".into(), "Clear \u{1b}[2J the screen?".into()]);
    let e = refused(&r, &name, "/questions/1/text: holds the control character U+001B");
    insta::assert_snapshot!(e, @"error: publish: the record would be refused by admission: /questions/1/text: holds the control character U+001B; a single-line field holds none");
    // Corrected, it travels.
    write_questions(&r, &["Which URL?".into(), "Clear the screen?".into()]);
    let v = json(&r.mj(&["--json", "continuity", "publish", "--handover", &name]).ok());
    assert_eq!(v["written"], true, "{v}");
}

#[test]
fn a_body_with_a_bidirectional_override_refuses_the_publish_and_tabs_do_not() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("a");
    r.mj(&["continuity", "device", "--label", "laptop"]).ok();
    let bad = BODY.replace("Ship it.", "Ship \u{202e}txt.exe");
    let name = r.mj_in(&["handover", "--no-task"], &bad).ok().first_line().rsplit('/').next().unwrap().to_string();
    refused(&r, &name, "/handover/body: holds the control character U+202E");
    let good = BODY.replace("Ship it.", "Ship\tit.");
    let name = r.mj_in(&["handover", "--no-task"], &good).ok().first_line().rsplit('/').next().unwrap().to_string();
    let v = json(&r.mj(&["--json", "continuity", "publish", "--handover", &name]).ok());
    assert_eq!(v["written"], true, "{v}");
}

/// Today's publish cut a decision's text at 4,096 bytes: now the publish is refused, naming it.
#[test]
fn a_decision_over_its_size_is_refused_never_cut() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("a");
    r.mj(&["continuity", "device", "--label", "laptop"]).ok();
    r.mj(&["start", "Ship it", "--scope", "src"]).ok();
    let why = "w".repeat(5000);
    r.mj(&["decision", "add", "Keep the format", "--why", &why]).ok();
    let name = r.mj_in(&["handover"], BODY).ok().first_line().rsplit('/').next().unwrap().to_string();
    let e = refused(&r, &name, "/decisions/0/text: ");
    insta::assert_snapshot!(e, @"error: publish: the record would be refused by admission: /decisions/0/text: 5118 bytes, cap 4096");
}

/// Every unresolved question travels: a record they would push over the store's cap is refused
/// at publish (where it used to be published and then refused by every reader as too large).
#[test]
fn questions_over_the_store_cap_refuse_the_publish() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (r, name) = ready(&env);
    let questions: Vec<String> = (0..400).map(|i| format!("Question {i} {}?", "q".repeat(500))).collect();
    write_questions(&r, &questions);
    let e = refused(&r, &name, "over the store's cap of 163840");
    insta::assert_snapshot!(e, @"error: publish: the record would be 234128 bytes, over the store's cap of 163840 (400 unresolved questions, 0 decisions, a body of 78 bytes); nothing is cut, nothing was published");
    // Fewer fit, and every one of them travels.
    write_questions(&r, &questions[..100]);
    let v = json(&r.mj(&["--json", "continuity", "publish", "--handover", &name]).ok());
    assert_eq!(v["written"], true, "{v}");
    let id = v["record"]["id"].as_str().unwrap();
    let text = r.git(&["cat-file", "blob", &format!("{REF}:records/{}/{}/{id}.json", &id[..2], &id[2..4])]);
    let stored: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(stored["record"]["questions"].as_array().unwrap().len(), 100);
}
