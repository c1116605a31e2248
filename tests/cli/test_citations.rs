//! Claims checked against git (issue 43, first slice): the paths a handover names are kept with
//! their blobs at its head, and each is labelled against git when the record is read
//! (docs/REFERENCE.md#citations).

use crate::common::{TestEnv, HANDOVER};

const BODY: &str =
    "# Objective\nRetry.\n\n# Current State\nTouched `a.rs`, `c.rs`, `d.rs`, dir/e.rs:3 and `gone.rs`.\n\n\
```\nquoted/f.rs:1\n```\n\n# Next Action\nFinish the loop in `b.rs`.\n";

#[test]
fn each_citation_is_labelled_from_git_and_the_briefing_says_what_the_next_action_names_changed() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    for f in ["a.rs", "b.rs", "c.rs", "d.rs", "dir/e.rs"] {
        r.write(f, &format!("{f}\n"));
    }
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "-m", "files"]);
    r.start("cite");
    r.mj_in(&["checkpoint"], "Working in `b.rs`.\n").ok();
    let written = r.mj_in(&["handover"], BODY).ok().first_line();
    let text = r.read(&written);
    let front = text.split("---").nth(1).unwrap();
    assert!(front.contains("citations:"), "{front}");
    assert!(front.contains("b.rs@") && front.contains("gone.rs@absent"), "{front}");
    assert!(!front.contains("quoted/f.rs"), "a path in a fenced block is quoted, not cited: {front}");
    // Unchanged citations cost no words.
    let fresh = r.mj(&["handover", "--resolve"]).ok().stdout;
    assert!(fresh.contains("Citations: 6 cited, 5 unchanged\n  `gone.rs` named, absent\n"), "{fresh}");

    r.write("b.rs", "b, changed\n");
    r.git(&["add", "b.rs"]);
    r.git(&["commit", "-q", "--author", "Dana <dana@example.com>", "-m", "b"]);
    let b_commit = r.git(&["rev-parse", "--short=7", "HEAD"]);
    r.git(&["rm", "-q", "c.rs"]);
    r.git(&["mv", "dir", "dir2"]);
    r.git(&["commit", "-q", "-m", "c gone, dir moved"]);
    r.write("d.rs", "d, edited\n");
    let out = r.mj(&["handover", "--resolve"]).ok().stdout;
    let want = format!(
        "Citations: 6 cited, 1 unchanged\n  `c.rs` deleted\n  `d.rs` has uncommitted changes\n  `dir/e.rs` renamed to `dir2/e.rs`\n  `gone.rs` named, absent\n  `b.rs` changed in 1 commit(s) since this handover, newest {b_commit} by Dana\n"
    );
    assert!(out.contains(&want), "{out}");
    // Every reader carries the labels: state (so MCP, HTTP and the cockpit), checkpoint --show,
    // context; the state schema copy knows them.
    let state: serde_json::Value = serde_json::from_str(&r.mj(&["--json", "state"]).ok().stdout).unwrap();
    let b = state["handover"]["citations"].as_array().unwrap().iter().find(|c| c["path"] == "b.rs").unwrap().clone();
    assert_eq!(
        (b["label"].as_str(), b["commits"].as_u64(), b["author"].as_str()),
        (Some("changed"), Some(1), Some("Dana"))
    );
    if crate::common::have(crate::common::Tool::SurfacesVenv) {
        let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/continuity-state.schema.json");
        let (ok, why) = crate::common::validate(&schema, &state);
        assert!(ok, "{why}");
    }
    assert!(r.mj(&["context"]).ok().stdout.contains("Citations: 6 cited, 1 unchanged"));
    let shown = r.mj(&["checkpoint", "--show"]).ok().stdout;
    assert!(shown.contains(&format!("Citations: 1 cited, 0 unchanged\n  `b.rs` changed in 1 commit(s) since this checkpoint, newest {b_commit} by Dana\n")), "{shown}");
    // The cockpit draws the ones that moved.
    let served = crate::common::serve::serve(&env, &r.root);
    let (status, _, html) = crate::test_surfaces::get(&served.addr, "/");
    assert_eq!(status, 200);
    assert!(
        html.contains(&format!(
            "<li><code>b.rs</code> changed in 1 commit(s) since this handover, newest {b_commit} by Dana</li>"
        )),
        "{html}"
    );
    assert!(html.contains("<li><code>dir/e.rs</code> renamed to dir2/e.rs</li>"), "{html}");
    let brief = r.mj_in(&["hook", "claude-code", "start"], r#"{"session_id":"c1","source":"startup"}"#).ok().stdout;
    assert!(
        brief.contains(&format!("  Finish the loop in `b.rs`.\ncheck first: `b.rs` changed in 1 commit(s) since this handover, newest {b_commit} by Dana\n")),
        "{brief}"
    );
}

#[test]
fn a_record_without_citations_reads_as_before_and_citations_cannot_be_authored() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.start("old");
    // A record written before citations: no key, no label, no error.
    let written = r.mj_in(&["handover"], HANDOVER).ok().first_line();
    let path = r.root.join(&written);
    let text = std::fs::read_to_string(&path).unwrap();
    let old: String = text.lines().filter(|l| !l.starts_with("citations")).map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, old).unwrap();
    let out = r.mj(&["handover", "--resolve"]).ok().stdout;
    assert!(!out.contains("Citations:"), "{out}");
    // Computed, so refused when a body authors it.
    let forged = r.mj_in(&["handover"], &format!("citations: [x.rs@absent]\n{HANDOVER}"));
    assert_ne!(forged.code, 0, "{}", forged.all());
}
