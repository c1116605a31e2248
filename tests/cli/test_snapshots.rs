//! Snapshots (insta) of the fixed text renderings: the resolved handover (docs/REFERENCE.md#records), the
//! context document (docs/REFERENCE.md#context), the start briefing (docs/REFERENCE.md#hook-events) and the continuity texts (docs/REFERENCE.md#continuity-commands). Paths of
//! the temporary directory, commit and record hashes, keys and random name suffixes are filtered,
//! so a snapshot changes only when the layout does. Review changes with `cargo insta review`.

use crate::common::{Output, Repo, TestEnv, HANDOVER};

/// `assert_snapshot!` of a named file snapshot under the test's filters (`common::snap`).
macro_rules! snap {
    ($env:expr, $name:expr, $text:expr) => {{
        let _snap = $env.snapshots();
        insta::assert_snapshot!($name, $text);
    }};
}

fn shown(out: &Output) -> String {
    out.shown()
}

/// A checkout with a task, a checkpoint, a decision, an open question and a handover.
fn worked(env: &TestEnv) -> Repo<'_> {
    let r = env.ready_repo("r");
    r.start("Fix the parser");
    r.mj_in(&["checkpoint"], "Reproduced the fault; next, the regression test.\n").ok();
    r.mj(&["decision", "add", "Parse with pulldown-cmark", "--why", "code blocks are not sections"]).ok();
    r.mj(&["question", "add", "Keep setext headings?"]).ok();
    r.mj_in(&["handover"], HANDOVER).ok();
    r
}

#[test]
fn handover_resolve_fresh_and_stale() {
    let env = TestEnv::new();
    let r = worked(&env);
    snap!(env, "handover_resolve_fresh", shown(&r.mj(&["handover", "--resolve"])));
    r.commit_file("lib/a.rs", "x\n");
    env.set_now("2026-09-09T20:00:00Z");
    snap!(env, "handover_resolve_stale", shown(&r.mj(&["handover", "--resolve"])));
}

#[test]
fn context_document() {
    let env = TestEnv::new();
    let r = worked(&env);
    snap!(env, "context", shown(&r.mj(&["context"])));
}

#[test]
fn start_briefing() {
    let env = TestEnv::new();
    let r = worked(&env);
    let payload = r#"{"session_id":"cc-1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"SessionStart","source":"startup"}"#;
    snap!(env, "start_briefing", shown(&r.mj_in(&["hook", "claude-code", "start"], payload)));
}

#[test]
fn continuity_texts() {
    let env = TestEnv::new();
    let r = worked(&env);
    r.mj(&["continuity", "device", "--label", "laptop"]).ok();
    r.mj(&["continuity", "publish", "--issue", "#7"]).ok();
    snap!(env, "continuity_status", shown(&r.mj(&["continuity", "status"])));
    snap!(env, "continuity_records", shown(&r.mj(&["continuity", "records"])));
    snap!(env, "continuity_plan", shown(&r.mj(&["continuity", "plan"])));
}

#[test]
fn session_texts() {
    let env = TestEnv::new();
    let r = worked(&env);
    let mut text = shown(&r.mj(&["session", "start", "--owner", "ana", "--worker", "claude"]));
    text.push_str(&shown(&r.mj(&["session", "status"])));
    r.commit_file("lib/b.rs", "y\n");
    text.push_str(&shown(&r.mj_in(&["session", "close"], "Parser fixed.\n")));
    text.push_str(&shown(&r.mj(&["session", "status"])));
    text.push_str(&shown(&r.mj(&["session", "list"])));
    text.push_str(&shown(&r.mj(&["session", "latest"])));
    snap!(env, "session_texts", text);
}

#[test]
fn knowledge_texts() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let mut text = shown(&r.mj(&["knowledge", "derive"]));
    text.push_str(&shown(&r.mj(&["knowledge", "candidates"])));
    r.mj(&["session", "start"]).ok();
    r.mj(&["decision", "add", "Use tabs", "--why", "the linter wants them"]).ok();
    text.push_str(&shown(&r.mj(&["knowledge", "derive", "--dry-run"])));
    text.push_str(&shown(&r.mj(&["knowledge", "derive"])));
    text.push_str(&shown(&r.mj(&["knowledge", "derive"])));
    text.push_str(&shown(&r.mj(&["knowledge", "candidates"])));
    snap!(env, "knowledge_texts", text);
}

/// The filters themselves: a key id where a key is named is `[KEY ID]` even when its random
/// digits hold no letter (then it would read as a hash), a hash of digits is still a hash, and a
/// file name's upper-case suffix is filtered too.
#[test]
fn the_filters_tell_a_key_id_of_digits_from_a_hash() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let text = "signature (key 0123456789012345) valid\n\"key_id\": \"89ABCDEF01234567\"\nkey         4444333322221111\n\
                handovers/20260903T200000Z--main--0000000000000000.md\nhandovers/x--main--abc1234--0123456789ABCDEF.md\n";
    insta::assert_snapshot!(text, @r#"
    signature (key [KEY ID]) valid
    "key_id": "[KEY ID]"
    key         [KEY ID]
    handovers/20260903T200000Z--main--[HEX].md
    handovers/x--main--[HEX]--[KEY ID].md
    "#);
}
