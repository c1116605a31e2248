//! Tests of `start`'s smaller rules: the owner without `$USER` (git's `user.name`, else
//! `unknown`), the title cap (200 characters), a scope path that names nothing (a WARN, kept).

use crate::common::TestEnv;

fn owner_of(r: &crate::common::Repo<'_>) -> String {
    let text = r.read(".ai/local/state/current.yaml");
    text.lines().find_map(|l| l.strip_prefix("owner:")).unwrap().trim().trim_matches('"').to_string()
}

#[test]
fn r18_owner_falls_back_to_git_user_name_when_user_is_unset() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.git(&["config", "user.name", "Ada Lovelace"]);
    let out = env.sh(&r.root, "unset USER LOGNAME; git majordomus start one --scope lib", b"", &[]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(owner_of(&r), "Ada Lovelace");
    let started = r.ledger().into_iter().find(|l| l["event"] == "task.started").unwrap();
    assert_eq!(started["owner"], "Ada Lovelace");

    // $USER still wins; with neither, the owner is `unknown`.
    r.mj_in(&["handover", "--close"], crate::common::HANDOVER).ok();
    r.start("two");
    assert_eq!(owner_of(&r), "tester");
    r.mj_in(&["handover", "--close"], crate::common::HANDOVER).ok();
    r.git(&["config", "--unset", "user.name"]);
    let out = env.sh(&r.root, "unset USER LOGNAME; git majordomus start three --scope lib", b"", &[]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(owner_of(&r), "unknown");
}

#[test]
fn r20_a_title_over_200_characters_is_refused_with_2() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let long = "é".repeat(201);
    let out = r.mj(&["start", &long, "--scope", "lib"]).code(2);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: start: the task is 201 characters, cap 200
    hint: name the task in one short line; put the detail in a checkpoint or the handover
    --- exit 2
    ");
    assert!(!r.exists(".ai/local/state/current.yaml"), "nothing was written");
    // 200 characters (400 bytes) are taken.
    r.mj(&["start", &"é".repeat(200), "--scope", "lib"]).ok();
}

#[test]
fn r19_a_scope_path_in_neither_head_nor_the_working_tree_warns() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.commit_file("src/main.rs", "fn main() {}\n");
    r.commit_file("gone/old.rs", "x\n");
    std::fs::remove_dir_all(r.root.join("gone")).unwrap();
    r.write("fresh/new.rs", "x\n");
    let out = r.mj(&["start", "one", "--scope", "srcc,src,gone,fresh,."]).ok();
    let warns: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("WARN scope ")).collect();
    assert_eq!(
        warns,
        ["WARN scope srcc — exists neither in HEAD nor in the working tree: a typo, or a path this task will create  [reproduce: git ls-files -- srcc]"],
        "{}",
        out.stdout
    );
    let task = r.read(".ai/local/state/current.yaml");
    assert!(task.lines().any(|l| l.trim() == "- srcc"), "the scope is kept as given: {task}");
}
