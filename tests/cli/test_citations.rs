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
    let _snap = env.snapshots();
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
    // a path in a fenced block is quoted, not cited
    insta::assert_snapshot!(front, @r#"

    schema_version: 1
    created_at: 2026-09-03T20:00:00Z
    task_id: t-[ID]
    profile: implementation
    owner: "tester"
    repository_id: [TMP]/r/.git
    worktree: [TMP]/r
    branch: main
    head: [HEX]
    working_tree: clean
    changed_files: []
    changed_total: 0
    citations:
      - "a.rs@[HEX]"
      - "c.rs@[HEX]"
      - "d.rs@[HEX]"
      - "dir/e.rs@[HEX]"
      - "gone.rs@absent"
      - "b.rs@[HEX]"
    origin: authored
    session: none
    "#);
    // Unchanged citations cost no words.
    insta::assert_snapshot!(r.mj(&["handover", "--resolve"]).ok().stdout, @"
    Handover: .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: t-[ID]
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    Citations: 6 cited, 5 unchanged
      `gone.rs` named, absent
    ---
    # Objective
    Retry.

    # Current State
    Touched `a.rs`, `c.rs`, `d.rs`, dir/e.rs:3 and `gone.rs`.

    ```
    quoted/f.rs:1
    ```

    # Next Action
    Finish the loop in `b.rs`.
    ");

    r.write("b.rs", "b, changed\n");
    r.git(&["add", "b.rs"]);
    r.git(&["commit", "-q", "--author", "Dana <dana@example.com>", "-m", "b"]);
    let b_commit = r.git(&["rev-parse", "--short=7", "HEAD"]);
    r.git(&["rm", "-q", "c.rs"]);
    r.git(&["mv", "dir", "dir2"]);
    r.git(&["commit", "-q", "-m", "c gone, dir moved"]);
    r.write("d.rs", "d, edited\n");
    // (b.rs's commit shown as [B])
    let named = |text: String| text.replace(&b_commit, "[B]");
    insta::assert_snapshot!(named(r.mj(&["handover", "--resolve"]).ok().stdout), @"
    Handover: .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: advanced
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: t-[ID]
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    Divergence: working tree was clean, now dirty
    Citations: 6 cited, 1 unchanged
      `c.rs` deleted
      `d.rs` has uncommitted changes
      `dir/e.rs` renamed to `dir2/e.rs`
      `gone.rs` named, absent
      `b.rs` changed in 1 commit(s) since this handover, newest [B] by Dana
    ---
    # Objective
    Retry.

    # Current State
    Touched `a.rs`, `c.rs`, `d.rs`, dir/e.rs:3 and `gone.rs`.

    ```
    quoted/f.rs:1
    ```

    # Next Action
    Finish the loop in `b.rs`.
    ");
    // Every reader carries the labels: state (so MCP, HTTP and the cockpit), checkpoint --show,
    // context; the state schema copy knows them.
    // The state schema copy knows them: the document is valid under it.
    let state = crate::common::json::read("continuity-state.schema.json", &r.mj(&["--json", "state"]).ok().stdout);
    let b = state["handover"]["citations"].as_array().unwrap().iter().find(|c| c["path"] == "b.rs").unwrap().clone();
    assert_eq!(
        (b["label"].as_str(), b["commits"].as_u64(), b["author"].as_str()),
        (Some("changed"), Some(1), Some("Dana"))
    );
    let context = r.mj(&["context"]).ok().stdout;
    let cited: Vec<&str> = context.lines().filter(|l| l.starts_with("Citations: ")).collect();
    assert_eq!(cited, ["Citations: 6 cited, 1 unchanged"], "{context}");
    insta::assert_snapshot!(named(r.mj(&["checkpoint", "--show"]).ok().stdout), @"
    Checkpoint: .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md
    Created: 2026-09-03T20:00:00Z (0m ago)
    Git state: advanced
    Origin: authored
    Citations: 1 cited, 0 unchanged
      `b.rs` changed in 1 commit(s) since this checkpoint, newest [B] by Dana
    ---
    Working in `b.rs`.
    ");
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
    insta::assert_snapshot!(named(brief), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree dirty.
    Task t-[ID] (active, profile implementation): cite
    Scope: lib
    Handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (same_worktree_same_branch, advanced, 0m ago, authored).
    Its Next Action:
      Finish the loop in `b.rs`.
    check first: `b.rs` changed in 1 commit(s) since this handover, newest [B] by Dana
    Newest authored checkpoint .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md (advanced, 0m ago); read it with git majordomus checkpoint --show.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
}

#[test]
fn a_record_without_citations_reads_as_before_and_citations_cannot_be_authored() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("old");
    // A record written before citations: no key, no label, no error.
    let written = r.mj_in(&["handover"], HANDOVER).ok().first_line();
    let path = r.root.join(&written);
    let text = std::fs::read_to_string(&path).unwrap();
    let old: String = text.lines().filter(|l| !l.starts_with("citations")).map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, old).unwrap();
    insta::assert_snapshot!(r.mj(&["handover", "--resolve"]).ok().stdout, @"
    Handover: .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: t-[ID]
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    ---
    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.
    ");
    // Computed, so refused when a body authors it.
    let forged = r.mj_in(&["handover"], &format!("citations: [x.rs@absent]\n{HANDOVER}"));
    assert_ne!(forged.code, 0, "{}", forged.all());
}
