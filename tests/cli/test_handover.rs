//! Tests of `handover`: docs/REFERENCE.md#store scenario 05 and docs/REFERENCE.md#front-matter items 1–7, 10–12.

use std::os::unix::fs::PermissionsExt;

use crate::common::{TestEnv, HANDOVER};

#[test]
fn scenario_05_handover_lifecycle() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    // no task → 12
    let out = r.mj_in(&["handover"], HANDOVER).code(12);
    assert!(out.stderr.contains("no task record; run git majordomus start, or pass --no-task"));
    let id = r.start("Fix the callback");
    // missing sections named
    let out = r.mj_in(&["handover"], "# Objective\nx\n").code(10);
    assert!(out.stderr.contains("handover: missing or empty section(s): Current State, Next Action"), "{}", out.stderr);
    // placeholder counts as empty
    let out = r.mj_in(&["handover"], &HANDOVER.replace("Fix the callback.", "<one paragraph>")).code(10);
    assert!(out.stderr.contains("Objective"));
    // identity field → computed
    let out = r.mj_in(&["handover"], &format!("{HANDOVER}head: abc\n")).code(10);
    assert!(out.stderr.contains("computed"), "{}", out.stderr);
    assert!(r.records("handovers").is_empty(), "nothing written by refusals");
    // success
    r.write("lib/a.rs", "dirty\n");
    let out = r.mj_in(&["handover"], HANDOVER).ok();
    let rel = out.stdout.lines().next().unwrap().to_string();
    let path = r.root.join(&rel);
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    let text = r.read(&rel);
    assert!(text.contains(&format!("head: {}\n", r.head())));
    assert!(text.contains("working_tree: dirty\n"));
    // `lib/` is untracked: listed as git status shows it (docs/REFERENCE.md#front-matter).
    assert!(text.contains("changed_files:\n  - lib/\nchanged_total: 1\n"), "{text}");
    assert!(text.contains(&format!("task_id: {id}\n")));
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
    assert!(out.stdout.starts_with(&format!("Handover: {rel}\nMatch: same_worktree_same_branch\nGit state: exact\nCreated: 2026-09-03T20:00:00Z (0m ago)\nTask: {id}\nFreshness: fresh")), "{}", out.stdout);
    assert!(out.stdout.contains("---\n# Objective\nFix the callback."));
    r.commit_file("lib/a.rs", "done\n");
    let out = r.mj(&["handover", "--resolve"]).ok();
    assert!(out.stdout.contains("Git state: advanced"), "{}", out.stdout);
    assert!(out.stdout.contains("Divergence: working tree was dirty, now clean"), "{}", out.stdout);
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
    assert!(r.read(".ai/local/state/current.yaml").contains("outcome: handed_over"));
    // --close then start archives one file
    r.mj(&["start", "next", "--scope", "lib"]).ok();
    let archived: Vec<_> = std::fs::read_dir(r.state("archive")).unwrap().collect();
    assert_eq!(archived.len(), 1);
    assert!(r.exists(&format!(".ai/local/state/archive/{id}.yaml")));
    // garbage record → warning, exit 0
    r.write(".ai/local/state/handovers/20260903T210000Z--main--0000000--00000000000000ff.md", "garbage\n");
    let out = r.mj(&["handover", "--resolve", "--path"]).ok();
    assert_eq!(out.stdout.trim(), newer);
    assert!(out.stderr.contains("warning: skipped .ai/local/state/handovers/20260903T210000Z--main--0000000--00000000000000ff.md: no front matter"), "{}", out.stderr);
}

#[test]
fn item_5_same_second_tie_is_decided_by_ledger_position_not_name() {
    let env = TestEnv::new();
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
    assert!(out.stdout.contains(&renamed_second), "{}", out.stdout);
    assert!(out.stdout.contains("second"));
    // --list order agrees
    let list = r.mj(&["handover", "--list"]).ok();
    assert!(list.stdout.lines().next().unwrap().contains(&renamed_second), "{}", list.stdout);
}

/// The name index of the handover directory (docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow): once the listing of a settled
/// directory is kept, a handover written after it still resolves, and a removed one no longer.
#[test]
fn a_kept_name_index_never_hides_a_handover_written_or_removed_after_it() {
    use std::time::{Duration, SystemTime};
    let env = TestEnv::new();
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
    let r = env.ready_repo("r");
    r.commit_file("x", "1\n");
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    r.commit_file("z", "1\n");
    assert!(r.mj(&["handover", "--resolve"]).ok().stdout.contains("Git state: advanced"));
    r.git(&["reset", "-q", "--hard", "HEAD~2"]);
    r.commit_file("y", "2\n");
    let out = r.mj(&["handover", "--resolve"]).ok();
    assert!(out.stdout.contains("Git state: diverged"), "{}", out.stdout);
    // A record from another branch, read on this one, is labelled different_context in --list.
    r.git(&["checkout", "-q", "-b", "side"]);
    let list = r.mj(&["handover", "--list"]).ok();
    assert!(list.stdout.contains("different_context"), "{}", list.stdout);
}

#[test]
fn item_4_other_branch_record_never_resolves_even_when_newer() {
    let env = TestEnv::new();
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
    let r = env.ready_repo("r");
    let rel = r.mj_in(&["handover", "--no-task"], HANDOVER).ok().first_line();
    assert!(r.read(&rel).contains("task_id: none\n"));
    let ev = r.ledger().pop().unwrap();
    assert_eq!(ev["event"], "task.handed_over");
    assert!(ev.get("task_id").is_none(), "{ev}");
}

#[test]
fn item_11_branch_key_in_file_name() {
    let env = TestEnv::new();
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
    let r = env.ready_repo("r");
    let id = r.start("one");
    let out = r.mj(&["start", "two", "--scope", "lib"]).code(15);
    assert!(out.stderr.contains(&format!("error: task {id} is active ('one')\n")), "{}", out.stderr);
    assert!(
        out.stderr.contains("hint: run git majordomus handover --close or git majordomus finish first"),
        "{}",
        out.stderr
    );
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    let out = r.mj(&["start", "two", "--scope", "lib"]).ok();
    assert!(out.stdout.contains("INFO handover"), "prior record named: {}", out.stdout);
    assert!(r.exists(&format!(".ai/local/state/archive/{id}.yaml")));
}

#[test]
fn stale_handover_withholds_its_next_action() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    r.commit_file("x", "1\n");
    env.set_now("2026-09-09T20:00:00Z");
    let out = r.mj(&["handover", "--resolve"]).ok();
    assert!(out.stdout.contains("Git state: advanced"));
    assert!(out.stdout.contains("Created: 2026-09-03T20:00:00Z (6d ago)"), "{}", out.stdout);
    assert!(out.stdout.contains("Freshness: stale — "), "{}", out.stdout);
    assert!(out.stdout.contains("(Next Action withheld: stale"), "{}", out.stdout);
    assert!(!out.stdout.contains("Write the regression test."));
}

#[test]
fn derived_handover_has_the_required_sections_and_refuses_an_underivable_one() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let id = r.start("Derive me");
    r.mj_in(&["checkpoint"], "noted\n").ok();
    r.mj(&["question", "add", "Which way?"]).ok();
    let rel = r.mj(&["handover", "--derive"]).ok().first_line();
    let text = r.read(&rel);
    for s in [
        "# Objective\nDerive me",
        "# Current State",
        "# Next Action\nAnswer the 1 open question(s) first",
        "> noted",
        "# Open Questions",
        "no model wrote it",
    ] {
        assert!(text.contains(s), "missing {s:?} in {text}");
    }
    assert!(text.contains(&format!("task_id: {id}")));
    r.write(
        ".ai/repo/policy.yaml",
        &r.read(".ai/repo/policy.yaml").replace("[Objective, Current State, Next Action]", "[Objective, Risks]"),
    );
    let out = r.mj(&["handover", "--derive"]).code(10);
    assert!(out.stderr.contains("\"Risks\" has no writer"), "{}", out.stderr);
}

#[test]
fn item_23_freshness_boundaries_with_pinned_time() {
    let env = TestEnv::new();
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
    for (m, label) in [
        (1, "fresh"),
        (fresh - 1, "fresh"),
        (fresh, "aging"),
        (fresh + 1, "aging"),
        (stale - 1, "aging"),
        (stale, "stale"),
        (stale + 1, "stale"),
        (30 * 24 * 60, "stale"),
    ] {
        let out = at(m);
        assert!(out.contains(&format!("Freshness: {label} — ")), "{m} min → expected {label}: {out}");
        assert_eq!(
            out.contains("Write the regression test."),
            label != "stale",
            "{m}: next action shown iff not history"
        );
    }
    let out = at(-60);
    assert!(out.contains("Freshness: invalid — ") && out.contains("future"), "{out}");
    // An empty timestamp is unknown (not history); garbage is invalid (history).
    let text = r.read(&rel);
    r.write(&rel, &text.replace("created_at: 2026-09-03T20:00:00Z", "created_at: \"\""));
    let out = at(5);
    assert!(out.contains("Freshness: unknown — no timestamp"), "{out}");
    assert!(out.contains("Write the regression test."));
    r.write(&rel, &text.replace("created_at: 2026-09-03T20:00:00Z", "created_at: yesterday"));
    let out = at(5);
    assert!(out.contains("Freshness: invalid — "), "{out}");
    assert!(out.contains("(Next Action withheld: invalid"));
    // Thresholds absent from policy → unknown, naming the key.
    r.write(".ai/repo/policy.yaml", &policy.replace(&format!("    fresh_minutes: {fresh}\n"), ""));
    r.write(&rel, &text);
    let out = at(5);
    assert!(out.contains("Freshness: unknown — policy has no session.freshness.fresh_minutes"), "{out}");
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
    let r = env.ready_repo("r");
    let start = |key: &str| {
        let p = format!(r#"{{"session_id":"{key}","hook_event_name":"SessionStart","source":"startup"}}"#);
        r.mj_in(&["hook", "claude-code", "start"], &p).ok();
    };
    let (a, b) = ([("MAJORDOMUS_PROVIDER_SESSION", "ka")], [("MAJORDOMUS_PROVIDER_SESSION", "kb")]);
    start("ka");
    start("kb");
    // No task: an authored handover of episode a, then a derived one of the same episode.
    env.set_now("2026-09-03T20:01:00Z");
    let authored = r.mj_env(&["handover", "--no-task"], HANDOVER, &a).ok().first_line();
    env.set_now("2026-09-03T20:02:00Z");
    let derived = r.mj_env(&["handover", "--derive", "--no-task"], "", &a).ok().first_line();
    let text = r.read(&derived);
    assert!(text.contains("\norigin: derived\nsession: s-") && r.read(&authored).contains("\norigin: authored\n"));
    // The derived body carries the authored Next Action forward, quoted, footer outside it.
    assert!(text.contains("gave this Next Action:\n> Write the regression test.\n"), "{text}");
    let out = r.mj_env(&["handover", "--resolve"], "", &a).ok().stdout;
    assert!(out.starts_with(&format!("Handover: {authored}\n")), "{out}");
    assert!(out.contains(&format!("Origin: authored\nPreferred to: {derived} (newer, derived")), "{out}");
    let state: serde_json::Value = serde_json::from_str(&r.mj_env(&["--json", "state"], "", &a).ok().stdout).unwrap();
    assert_eq!(state["handover"]["origin"], "authored");
    assert_eq!(state["handover"]["passed_over"], derived.as_str());
    // A derived record of ANOTHER episode of this checkout (task none), written after it, is
    // hidden by it too (SPEC §A.28 "Authored beats derived across episodes"; before, the newest
    // won, and the next session lost the Next Action an agent wrote, TRIAL #5).
    env.set_now("2026-09-03T20:03:00Z");
    let other = r.mj_env(&["handover", "--derive", "--no-task"], "", &b).ok().first_line();
    let out = r.mj(&["handover", "--resolve"]).ok().stdout;
    assert!(out.starts_with(&format!("Handover: {authored}\nMatch:")) && out.contains("Origin: authored\n"), "{out}");
    assert!(out.contains(&format!("Preferred to: {other} (newer, derived")), "{out}");
    // With a task, an authored record of the task beats every newer derived one of the task.
    let id = r.start("t");
    env.set_now("2026-09-03T20:04:00Z");
    let authored = r.mj_in(&["handover"], HANDOVER).ok().first_line();
    env.set_now("2026-09-03T20:05:00Z");
    r.mj_env(&["handover", "--derive"], "", &b).ok();
    let out = r.mj(&["handover", "--resolve"]).ok().stdout;
    assert!(out.starts_with(&format!("Handover: {authored}\n")) && out.contains(&format!("Task: {id}\n")), "{out}");
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
    let b = r.mj_in(&["hook", "claude-code", "start"], p).ok().stdout;
    assert!(b.contains("Its Next Action:\n  Write the regression test.\n") && !b.contains("Derived by"), "{b}");
}
