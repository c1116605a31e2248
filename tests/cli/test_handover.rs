//! Tests of `handover`: docs/REFERENCE.md#store scenario 05 and docs/REFERENCE.md#front-matter items 1–7, 10–12.

use std::os::unix::fs::PermissionsExt;

use crate::common::snap::has_line;
use crate::common::{TestEnv, HANDOVER};

/// Whether `text` has `line` as one whole line.
#[test]
fn scenario_05_handover_lifecycle() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    // no task → 12
    insta::assert_snapshot!(r.mj_in(&["handover"], HANDOVER).code(12).shown(), @"
    --- stderr
    error: no task record; run git majordomus start, or pass --no-task
    hint: git majordomus handover --no-task writes a handover outside a task
    --- exit 12
    ");
    let id = r.start("Fix the callback");
    // missing sections named
    insta::assert_snapshot!(r.mj_in(&["handover"], "# Objective\nx\n").code(10).shown(), @"
    --- stderr
    error: handover: missing or empty section(s): Current State, Next Action
    hint: each required section is a level-one heading (# Name) with real content; <placeholders> count as empty
    --- exit 10
    ");
    // placeholder counts as empty
    let out = r.mj_in(&["handover"], &HANDOVER.replace("Fix the callback.", "<one paragraph>")).code(10);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: handover: missing or empty section(s): Objective
    hint: each required section is a level-one heading (# Name) with real content; <placeholders> count as empty
    --- exit 10
    ");
    // identity field → computed
    insta::assert_snapshot!(r.mj_in(&["handover"], &format!("{HANDOVER}head: abc\n")).code(10).shown(), @"
    --- stderr
    error: handover: the body sets `head:`, a field computed from git and the clock at write time
    hint: remove the `head:` line; identity fields are never authored
    --- exit 10
    ");
    assert!(r.records("handovers").is_empty(), "nothing written by refusals");
    // success
    r.write("lib/a.rs", "dirty\n");
    let out = r.mj_in(&["handover"], HANDOVER).ok();
    let rel = out.stdout.lines().next().unwrap().to_string();
    let path = r.root.join(&rel);
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    let text = r.read(&rel);
    assert!(has_line(&text, &format!("head: {}", r.head())), "{text}");
    assert!(has_line(&text, &format!("task_id: {id}")), "{text}");
    // `lib/` is untracked: listed as git status shows it (docs/REFERENCE.md#front-matter).
    insta::assert_snapshot!(text, @r#"
    ---
    schema_version: 1
    created_at: 2026-09-03T20:00:00Z
    task_id: t-[ID]
    profile: implementation
    owner: "tester"
    repository_id: [TMP]/r/.git
    worktree: [TMP]/r
    branch: main
    head: [HEX]
    working_tree: dirty
    changed_files:
      - lib/
    changed_total: 1
    origin: authored
    session: none
    ---

    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.
    "#);
    let last = r.ledger().pop().unwrap();
    assert_eq!(last["event"], "task.handed_over");
    assert_eq!(last["task_id"], id.as_str());
    assert_eq!(last["handover_path"], rel.as_str());
    assert_eq!(last["closed"], false);
    assert_eq!(r.git(&["check-ignore", &rel]), rel, "record is git-ignored");
    assert_eq!(r.git(&["diff", "--cached", "--name-only"]), "", "nothing staged");
    // start refused while active
    r.mj(&["start", "other", "--scope", "lib"]).code(15);
    // resolve exact, then advanced after a commit, --path form
    let out = r.mj(&["handover", "--resolve"]).ok();
    assert!(out.stdout.starts_with(&format!("Handover: {rel}\n")), "{}", out.stdout);
    assert!(has_line(&out.stdout, &format!("Task: {id}")), "{}", out.stdout);
    insta::assert_snapshot!(out.stdout, @"
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
    r.commit_file("lib/a.rs", "done\n");
    insta::assert_snapshot!(r.mj(&["handover", "--resolve"]).ok().stdout, @"
    Handover: .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: advanced
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: t-[ID]
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    Divergence: working tree was dirty, now clean
    ---
    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.
    ");
    assert_eq!(r.mj(&["handover", "--resolve", "--path"]).ok().stdout, format!("{rel}\n"));
    // another branch → absence
    r.git(&["checkout", "-q", "-b", "other"]);
    assert_eq!(r.mj(&["handover", "--resolve"]).ok().stdout, "No relevant handover.\n");
    r.git(&["checkout", "-q", "main"]);
    // newest wins in tier
    env.set_now("2026-09-03T20:05:00Z");
    let newer = r.mj_in(&["handover", "--close"], &HANDOVER.replace("Reproduced.", "Newer state.")).ok().first_line();
    assert_eq!(r.mj(&["handover", "--resolve", "--path"]).ok().stdout.trim(), newer);
    assert_eq!(r.ledger().pop().unwrap()["closed"], true);
    assert!(r.read(".ai/local/state/current.yaml").lines().any(|l| l == "outcome: handed_over"));
    // --close then start archives one file
    r.mj(&["start", "next", "--scope", "lib"]).ok();
    let archived: Vec<_> = std::fs::read_dir(r.state("archive")).unwrap().collect();
    assert_eq!(archived.len(), 1);
    assert!(r.exists(&format!(".ai/local/state/archive/{id}.yaml")));
    // garbage record → warning, exit 0
    r.write(".ai/local/state/handovers/20260903T210000Z--main--0000000--00000000000000ff.md", "garbage\n");
    let out = r.mj(&["handover", "--resolve", "--path"]).ok();
    assert_eq!(out.stdout.trim(), newer);
    assert_eq!(
        out.stderr,
        "warning: skipped .ai/local/state/handovers/20260903T210000Z--main--0000000--00000000000000ff.md: no front matter\n"
    );
}

#[test]
fn item_5_same_second_tie_is_decided_by_ledger_position_not_name() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj_in(&["handover", "--no-task"], &HANDOVER.replace("Reproduced.", "first")).ok();
    r.mj_in(&["handover", "--no-task"], &HANDOVER.replace("Reproduced.", "second")).ok();
    let names = r.records("handovers");
    assert_eq!(names.len(), 2);
    // Make the later-written record sort FIRST by name: rename it to a smaller suffix and fix the ledger.
    let ledger = std::fs::read_to_string(r.state("ledger.jsonl")).unwrap();
    let second_line = ledger.lines().last().unwrap();
    let second = names.iter().find(|n| second_line.contains(n.as_str())).unwrap().clone();
    let first = names.iter().find(|n| **n != second).unwrap().clone();
    let renamed_second = format!("{}0000000000000000.md", &second[..second.len() - 19]);
    let renamed_first = format!("{}ffffffffffffffff.md", &first[..first.len() - 19]);
    std::fs::rename(r.state(&format!("handovers/{second}")), r.state(&format!("handovers/{renamed_second}"))).unwrap();
    std::fs::rename(r.state(&format!("handovers/{first}")), r.state(&format!("handovers/{renamed_first}"))).unwrap();
    std::fs::write(r.state("ledger.jsonl"), ledger.replace(&second, &renamed_second).replace(&first, &renamed_first))
        .unwrap();
    let out = r.mj(&["handover", "--resolve"]).ok();
    assert_eq!(out.first_line(), format!("Handover: .ai/local/state/handovers/{renamed_second}"));
    insta::assert_snapshot!(out.stdout, @"
    Handover: .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: none
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    ---
    # Objective
    Fix the callback.

    # Current State
    second

    # Next Action
    Write the regression test.
    ");
    // --list order agrees
    let list = r.mj(&["handover", "--list"]).ok();
    assert_eq!(
        list.first_line().split_whitespace().last().unwrap(),
        format!(".ai/local/state/handovers/{renamed_second}"),
        "{}",
        list.stdout
    );
    insta::assert_snapshot!(list.stdout, @"
    2026-09-03T20:00:00Z  none                     exact              .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    2026-09-03T20:00:00Z  none                     exact              .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    ");
}

/// The name index of the handover directory (docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow): once the listing of a settled
/// directory is kept, a handover written after it still resolves, and a removed one no longer.
#[test]
fn a_kept_name_index_never_hides_a_handover_written_or_removed_after_it() {
    use std::time::{Duration, SystemTime};
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let first = r.mj_in(&["handover", "--no-task"], &HANDOVER.replace("Reproduced.", "first")).ok().first_line();
    let dir = r.state("handovers");
    let settle = || {
        let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::open(&dir).unwrap().set_modified(an_hour_ago).unwrap();
    };
    let resolved = || r.mj(&["handover", "--resolve", "--path"]).ok().stdout.trim().to_string();
    settle();
    assert_eq!(resolved(), first);
    let index = r.root.join(".git/majordomus/names/.ai/local/state/handovers");
    assert!(std::fs::read_to_string(&index).unwrap().contains(&first[first.rfind('/').unwrap() + 1..]));
    env.set_now("2026-09-03T20:10:00Z");
    let second = r.mj_in(&["handover", "--no-task"], &HANDOVER.replace("Reproduced.", "second")).ok().first_line();
    assert_eq!(resolved(), second, "written after the index was kept");
    settle();
    assert_eq!(resolved(), second, "the index kept again");
    std::fs::remove_file(r.root.join(&second)).unwrap();
    assert_eq!(resolved(), first, "removed after the index was kept");
}

#[test]
fn item_6_touching_an_old_record_changes_nothing() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj_in(&["handover", "--no-task"], &HANDOVER.replace("Reproduced.", "old")).ok();
    env.set_now("2026-09-03T20:10:00Z");
    let newer = r.mj_in(&["handover", "--no-task"], &HANDOVER.replace("Reproduced.", "new")).ok().first_line();
    let list_before = r.mj(&["handover", "--list"]).ok().stdout;
    let old = r.records("handovers")[0].clone();
    let f = std::fs::File::options().write(true).open(r.state(&format!("handovers/{old}"))).unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(3600)).unwrap();
    assert_eq!(r.mj(&["handover", "--resolve", "--path"]).ok().stdout.trim(), newer);
    assert_eq!(r.mj(&["handover", "--list"]).ok().stdout, list_before);
}

#[test]
fn item_7_labels_follow_git() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.commit_file("x", "1\n");
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    r.commit_file("z", "1\n");
    insta::assert_snapshot!(r.mj(&["handover", "--resolve"]).ok().stdout, @"
    Handover: .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: advanced
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: none
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
    r.git(&["reset", "-q", "--hard", "HEAD~2"]);
    r.commit_file("y", "2\n");
    insta::assert_snapshot!(r.mj(&["handover", "--resolve"]).ok().stdout, @"
    Handover: .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: diverged
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: none
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
    // A record from another branch, read on this one, is labelled different_context in --list.
    r.git(&["checkout", "-q", "-b", "side"]);
    insta::assert_snapshot!(r.mj(&["handover", "--list"]).ok().stdout, @"2026-09-03T20:00:00Z  none                     different_context  .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md");
}

#[test]
fn item_4_other_branch_record_never_resolves_even_when_newer() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    r.git(&["checkout", "-q", "-b", "other"]);
    env.set_now("2026-09-03T21:00:00Z");
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    r.git(&["checkout", "-q", "-b", "third"]);
    assert_eq!(r.mj(&["handover", "--resolve"]).ok().stdout, "No relevant handover.\n");
}

#[test]
fn item_10_handover_without_task_has_task_id_none_and_no_task_id_in_the_event() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let rel = r.mj_in(&["handover", "--no-task"], HANDOVER).ok().first_line();
    assert!(r.read(&rel).lines().any(|l| l == "task_id: none"), "{}", r.read(&rel));
    let ev = r.ledger().pop().unwrap();
    assert_eq!(ev["event"], "task.handed_over");
    assert!(ev.get("task_id").is_none(), "{ev}");
}

#[test]
fn item_11_branch_key_in_file_name() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.git(&["checkout", "-q", "-b", "feat/x"]);
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    let name = &r.records("handovers")[0];
    let h7 = &r.head()[..7];
    assert!(name.starts_with(&format!("20260903T200000Z--feat-x--{h7}--")), "{name}");
    assert_eq!(name.len(), "20260903T200000Z--feat-x--".len() + 7 + 2 + 16 + 3);
}

#[test]
fn item_12_start_refused_while_active_then_archives_after_close() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let id = r.start("one");
    let out = r.mj(&["start", "two", "--scope", "lib"]).code(15);
    assert_eq!(
        out.stderr,
        format!(
            "error: task {id} is active ('one')\nhint: run git majordomus handover --close or git majordomus finish first\n"
        )
    );
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    // the prior record is named
    insta::assert_snapshot!(r.mj(&["start", "two", "--scope", "lib"]).ok().shown(), @"
    started t-[ID]  profile=implementation  scope=lib
    WARN scope lib — exists neither in HEAD nor in the working tree: a typo, or a path this task will create  [reproduce: git ls-files -- lib]
    INFO handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md — prior record, same_worktree_same_branch, exact, 0m ago  [reproduce: git majordomus handover --resolve]
    next: git majordomus context
    --- stderr
    archived t-[ID] to .ai/local/state/archive/t-[ID].yaml
    --- exit 0
    ");
    assert!(r.exists(&format!(".ai/local/state/archive/{id}.yaml")));
}

#[test]
fn stale_handover_withholds_its_next_action() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    r.commit_file("x", "1\n");
    env.set_now("2026-09-09T20:00:00Z");
    insta::assert_snapshot!(r.mj(&["handover", "--resolve"]).ok().stdout, @"
    Handover: .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: advanced
    Created: 2026-09-03T20:00:00Z (6d ago)
    Task: none
    Freshness: stale — 6d old, past session.freshness.stale_minutes (5760 min)
    Origin: authored
    ---
    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
    ");
}

#[test]
fn derived_handover_has_the_required_sections_and_refuses_an_underivable_one() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let id = r.start("Derive me");
    r.mj_in(&["checkpoint"], "noted\n").ok();
    r.mj(&["question", "add", "Which way?"]).ok();
    let rel = r.mj(&["handover", "--derive"]).ok().first_line();
    let text = r.read(&rel);
    assert!(has_line(&text, &format!("task_id: {id}")), "{text}");
    insta::assert_snapshot!(text, @r#"
    ---
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
    origin: derived
    session: none
    ---

    # Objective
    Derive me
    Task t-[ID] (profile implementation, outcome active); scope: lib.

    # Current State
    The newest authored checkpoint .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md (0m ago):
    > noted
    What git and the records say now:
    On main at [HEX], working tree clean.
    Since the task started at [HEX]: 0 commit(s), exact.
    Recorded so far: 1 checkpoint(s), 0 decision(s), 1 question(s), 0 handover(s).

    # Next Action
    Answer the 1 open question(s) first; they refuse finish --outcome completed:
    - Which way?

    # Open Questions
    - [unresolved] t-[ID] — Which way?

    ---
    Derived by git-majordomus from its records and git; no model wrote it.
    "#);
    r.write(
        ".ai/repo/policy.yaml",
        &r.read(".ai/repo/policy.yaml").replace("[Objective, Current State, Next Action]", "[Objective, Risks]"),
    );
    insta::assert_snapshot!(r.mj(&["handover", "--derive"]).code(10).shown(), @r#"
    --- stderr
    error: handover --derive: required section "Risks" has no writer; write the handover by hand
    hint: derivable sections: objective, current_state, next_action, decisions, open_questions, verification
    --- exit 10
    "#);
}

#[test]
fn item_23_freshness_boundaries_with_pinned_time() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let rel = r.mj_in(&["handover", "--no-task"], HANDOVER).ok().first_line();
    // Thresholds are read from the policy the repository carries; the test reads them back from it.
    let policy = r.read(".ai/repo/policy.yaml");
    let num =
        |k: &str| -> i64 { policy.lines().find_map(|l| l.trim().strip_prefix(k)).unwrap().trim().parse().unwrap() };
    let (fresh, stale) = (num("fresh_minutes:"), num("stale_minutes:"));
    let at = |minutes: i64| {
        let t = chrono_like(minutes);
        env.set_now(&t);
        r.mj(&["handover", "--resolve"]).ok().stdout
    };
    // The Freshness line and the Next Action (shown iff not history) at each age.
    let seen = |out: &str| -> String {
        let line =
            |p: &str| out.lines().skip_while(|l| !l.starts_with(p)).nth(usize::from(p == "# Next")).unwrap_or("");
        format!("{}\n  {}\n", line("Freshness: "), line("# Next"))
    };
    let mut table = String::new();
    for m in [1, fresh - 1, fresh, fresh + 1, stale - 1, stale, stale + 1, 30 * 24 * 60, -60] {
        table.push_str(&format!("{m} min: {}", seen(&at(m))));
    }
    insta::assert_snapshot!(table, @"
    1 min: Freshness: fresh — 1m old, under session.freshness.fresh_minutes (720 min)
      Write the regression test.
    719 min: Freshness: fresh — 11h old, under session.freshness.fresh_minutes (720 min)
      Write the regression test.
    720 min: Freshness: aging — 12h old, past session.freshness.fresh_minutes (720 min)
      Write the regression test.
    721 min: Freshness: aging — 12h old, past session.freshness.fresh_minutes (720 min)
      Write the regression test.
    5759 min: Freshness: aging — 3d old, past session.freshness.fresh_minutes (720 min)
      Write the regression test.
    5760 min: Freshness: stale — 4d old, past session.freshness.stale_minutes (5760 min)
      (Next Action withheld: stale, 4d old, past session.freshness.stale_minutes (5760 min))
    5761 min: Freshness: stale — 4d old, past session.freshness.stale_minutes (5760 min)
      (Next Action withheld: stale, 4d old, past session.freshness.stale_minutes (5760 min))
    43200 min: Freshness: stale — 30d old, past session.freshness.stale_minutes (5760 min)
      (Next Action withheld: stale, 30d old, past session.freshness.stale_minutes (5760 min))
    -60 min: Freshness: invalid — timestamp 2026-09-03T20:00:00Z is in the future (60m ahead of now)
      (Next Action withheld: invalid, timestamp 2026-09-03T20:00:00Z is in the future (60m ahead of now))
    ");
    // An empty timestamp is unknown (not history); garbage is invalid (history).
    let text = r.read(&rel);
    r.write(&rel, &text.replace("created_at: 2026-09-03T20:00:00Z", "created_at: \"\""));
    let empty = seen(&at(5));
    r.write(&rel, &text.replace("created_at: 2026-09-03T20:00:00Z", "created_at: yesterday"));
    let garbage = seen(&at(5));
    // Thresholds absent from policy → unknown, naming the key.
    r.write(".ai/repo/policy.yaml", &policy.replace(&format!("    fresh_minutes: {fresh}\n"), ""));
    r.write(&rel, &text);
    let no_key = seen(&at(5));
    insta::assert_snapshot!(format!("empty: {empty}garbage: {garbage}no key: {no_key}"), @r#"
    empty: Freshness: unknown — no timestamp
      Write the regression test.
    garbage: Freshness: invalid — timestamp "yesterday" is not YYYY-MM-DDTHH:MM:SSZ
      (Next Action withheld: invalid, timestamp "yesterday" is not YYYY-MM-DDTHH:MM:SSZ)
    no key: Freshness: unknown — policy has no session.freshness.fresh_minutes
      Write the regression test.
    "#);
}

/// `2026-09-03T20:00:00Z` plus `minutes`, formatted as MAJORDOMUS_NOW expects.
fn chrono_like(minutes: i64) -> String {
    let base = 1788465600i64; // 2026-09-03T20:00:00Z
    let t = base + minutes * 60;
    let out = std::process::Command::new("date")
        .args(["-u", "-d", &format!("@{t}"), "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// docs/REFERENCE.md#origin: within a tier a derived record never beats an authored one of the same
/// task (task `none`: of the same episode), and the reader names the one it passed over; a
/// record written before `origin` existed is derived iff it ends with the provenance line.
#[test]
fn authored_beats_newer_derived_of_the_same_task_episode_or_checkout() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let start = |key: &str| {
        let p = format!(r#"{{"session_id":"{key}","hook_event_name":"SessionStart","source":"startup"}}"#);
        r.mj_in(&["hook", "claude-code", "start"], &p).ok();
    };
    let (a, b) = ([("MAJORDOMUS_PROVIDER_SESSION", "ka")], [("MAJORDOMUS_PROVIDER_SESSION", "kb")]);
    start("ka");
    // Opened later than ka: the briefing lists the newest-opened episode first.
    env.set_now("2026-09-03T20:00:30Z");
    start("kb");
    // No task: an authored handover of episode a, then a derived one of the same episode.
    env.set_now("2026-09-03T20:01:00Z");
    let authored = r.mj_env(&["handover", "--no-task"], HANDOVER, &a).ok().first_line();
    env.set_now("2026-09-03T20:02:00Z");
    let derived = r.mj_env(&["handover", "--derive", "--no-task"], "", &a).ok().first_line();
    assert!(has_line(&r.read(&authored), "origin: authored"));
    // The derived body carries the authored Next Action forward, quoted, footer outside it.
    insta::assert_snapshot!(r.read(&derived), @r#"
    ---
    schema_version: 1
    created_at: 2026-09-03T20:02:00Z
    task_id: none
    profile: none
    owner: "tester"
    repository_id: [TMP]/r/.git
    worktree: [TMP]/r
    branch: main
    head: [HEX]
    working_tree: clean
    changed_files: []
    changed_total: 0
    origin: derived
    session: s-[ID]
    ---

    # Objective
    No active task: this handover records the state of the episode outside any task.
    The authored handover .ai/local/state/handovers/20260903T200100Z--main--[HEX]--[HEX].md (1m ago) states it as:
    > Fix the callback.

    # Current State
    The authored handover .ai/local/state/handovers/20260903T200100Z--main--[HEX]--[HEX].md (1m ago) said:
    > Reproduced.
    What git and the records say now:
    On main at [HEX], working tree clean.
    Since the authored handover: 0 commit(s), exact.
    Recorded in this episode: 0 checkpoint(s), 0 decision(s), 0 question(s), 1 handover(s).

    # Next Action
    The authored handover .ai/local/state/handovers/20260903T200100Z--main--[HEX]--[HEX].md (1m ago) gave this Next Action:
    > Write the regression test.
    Nothing was checkpointed in this stretch of work; read the git log for what happened.

    ---
    Derived by git-majordomus from its records and git; no model wrote it.
    "#);
    let out = r.mj_env(&["handover", "--resolve"], "", &a).ok().stdout;
    assert!(out.starts_with(&format!("Handover: {authored}\n")), "{out}");
    assert!(has_line(&out, &format!("Preferred to: {derived} (newer, derived; an authored record wins)")), "{out}");
    insta::assert_snapshot!(out, @"
    Handover: .ai/local/state/handovers/20260903T200100Z--main--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:01:00Z (1m ago)
    Task: none
    Freshness: fresh — 1m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    Preferred to: .ai/local/state/handovers/20260903T200200Z--main--[HEX]--[HEX].md (newer, derived; an authored record wins)
    ---
    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.
    ");
    let state: serde_json::Value = serde_json::from_str(&r.mj_env(&["--json", "state"], "", &a).ok().stdout).unwrap();
    assert_eq!(state["handover"]["origin"], "authored");
    assert_eq!(state["handover"]["passed_over"], derived.as_str());
    // A derived record of ANOTHER episode of this checkout (task none), written after it, is
    // hidden by it too (authored beats derived across episodes, docs/REFERENCE.md#origin: were the
    // newest to win, the next session would lose the Next Action an agent wrote).
    env.set_now("2026-09-03T20:03:00Z");
    let other = r.mj_env(&["handover", "--derive", "--no-task"], "", &b).ok().first_line();
    let out = r.mj(&["handover", "--resolve"]).ok().stdout;
    assert!(out.starts_with(&format!("Handover: {authored}\nMatch:")), "{out}");
    assert!(has_line(&out, &format!("Preferred to: {other} (newer, derived; an authored record wins)")), "{out}");
    insta::assert_snapshot!(out, @"
    Handover: .ai/local/state/handovers/20260903T200100Z--main--[HEX]--[HEX].md
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:01:00Z (2m ago)
    Task: none
    Freshness: fresh — 2m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    Preferred to: .ai/local/state/handovers/20260903T200300Z--main--[HEX]--[HEX].md (newer, derived; an authored record wins)
    ---
    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.
    ");
    // With a task, an authored record of the task beats every newer derived one of the task.
    let id = r.start("t");
    env.set_now("2026-09-03T20:04:00Z");
    let authored = r.mj_in(&["handover"], HANDOVER).ok().first_line();
    env.set_now("2026-09-03T20:05:00Z");
    r.mj_env(&["handover", "--derive"], "", &b).ok();
    let out = r.mj(&["handover", "--resolve"]).ok().stdout;
    assert!(out.starts_with(&format!("Handover: {authored}\n")) && has_line(&out, &format!("Task: {id}")), "{out}");
    // An old record without `origin` that ends with the provenance line reads as derived.
    let old = r.read(&authored).replace("origin: authored\n", "").replace(
        "Write the regression test.\n",
        "Write the regression test.\n\n---\nDerived by git-majordomus from its records and git; no model wrote it.\n",
    );
    env.set_now("2026-09-03T20:06:00Z");
    let name = authored.replace("20260903T200400Z", "20260903T200600Z");
    r.write(&name, &old.replace("created_at: 2026-09-03T20:04:00Z", "created_at: 2026-09-03T20:06:00Z"));
    let out = r.mj(&["handover", "--resolve"]).ok().stdout;
    assert!(out.starts_with(&format!("Handover: {authored}\n")), "the old derived record loses too:\n{out}");
    // The derived footer is part of no section: the briefing's Next Action ends before it.
    let p = r#"{"session_id":"kc","hook_event_name":"SessionStart","source":"startup"}"#;
    insta::assert_snapshot!(r.mj_in(&["hook", "claude-code", "start"], p).ok().stdout, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Also open in this checkout: 2 other episode(s).
    - claude-code episode s-[ID], opened 5m ago, last activity 1m ago
    - claude-code episode s-[ID], opened 6m ago, last activity 4m ago
    Task t-[ID] (active, profile implementation): t
    Scope: lib
    Handover .ai/local/state/handovers/20260903T200400Z--main--[HEX]--[HEX].md (same_worktree_same_branch, exact, 2m ago, authored).
    A newer derived handover (20260903T200600Z--main--[HEX]--[HEX].md) only restates it: the authored one is shown.
    Its Next Action:
      Write the regression test.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
}
