//! The README's tour is a test: the ```sh block under `## A tour` is read from README.md and its
//! commands run in order in a fresh repository, each of which must exit 0 (the tour once
//! used to fail at `finish`, `.gitignore` being outside the scope).
//!
//! What the test adds to the README's lines, and only that: a repository with one commit to
//! start from, the handover note the tour's `handover` line reads (written where its `<` points),
//! one commit of work inside the scope before `finish`, and `true` for the verify command.

use std::path::PathBuf;

use crate::common::TestEnv;

/// The tour's commands, in order: the first ```sh block after `## A tour`, without comment-only
/// lines and without each line's trailing comment.
fn tour_commands(readme: &str) -> Vec<String> {
    let after = readme.split_once("\n## A tour\n").expect("README.md has a `## A tour` section").1;
    let block = after.split_once("```sh\n").expect("the tour has a ```sh block").1;
    let block = block.split_once("\n```").expect("the tour's block is closed").0;
    block.lines().map(strip_comment).filter(|l| !l.is_empty()).collect()
}

/// `line` without a shell comment: a `#` at the start of a word, outside quotes.
fn strip_comment(line: &str) -> String {
    let (mut single, mut double, mut prev_blank) = (false, false, true);
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && prev_blank => return line[..i].trim().to_string(),
            _ => {}
        }
        prev_blank = c.is_whitespace();
    }
    line.trim().to_string()
}

/// `cmd` with the argument of `--verify-command` replaced by `true`.
fn verify_is_true(cmd: &str) -> String {
    let Some((head, rest)) = cmd.split_once("--verify-command ") else { return cmd.to_string() };
    let rest = rest.trim_start();
    let tail = match rest.chars().next() {
        Some(q @ ('"' | '\'')) => rest[1..].split_once(q).map(|(_, t)| t).unwrap_or(""),
        _ => rest.split_once(' ').map(|(_, t)| t).unwrap_or(""),
    };
    format!("{head}--verify-command true {tail}").trim_end().to_string()
}

/// The file a command reads with `< path`, resolved as the shell would from `root` (`~/` is HOME).
fn stdin_file(cmd: &str, env: &TestEnv, root: &std::path::Path) -> Option<PathBuf> {
    let word = cmd.split_once(" < ")?.1.split_whitespace().next()?;
    Some(match word.strip_prefix("~/") {
        Some(rel) => env.home.join(rel),
        None => root.join(word),
    })
}

const NOTE: &str = "# Objective\nFix the OAuth callback so a forged state cannot log anyone in.\n\n\
# Current State\nlib/auth/callback.rs validates the state; an expired state redirects to login.\n\n\
# Next Action\nAdd a regression test for the expired-state redirect.\n";

#[test]
fn the_readme_tour_runs_start_to_finish() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let commands = tour_commands(&readme);
    assert!(commands.len() >= 8, "the tour block has too few commands: {commands:?}");
    assert!(commands.iter().any(|c| c.starts_with("git majordomus finish ")), "{commands:?}");

    let env = TestEnv::new();
    let r = env.repo("tour");
    r.write("README.md", "# a demo app\n");
    r.write("lib/auth/login.rs", "pub fn login() {}\n");
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "-m", "Initial import"]);

    let mut worked = false;
    let mut init_next = None;
    for cmd in &commands {
        if cmd.starts_with("git majordomus finish") && !worked {
            r.commit_file("lib/auth/callback.rs", "pub fn callback() {}\n");
            worked = true;
        }
        if let Some(note) = stdin_file(cmd, &env, &r.root) {
            std::fs::write(note, NOTE).unwrap();
        }
        let run = verify_is_true(cmd);
        let out = env.sh(&r.root, &run, b"", &[]);
        assert_eq!(
            out.code, 0,
            "the README tour's step `{cmd}` (run as `{run}`) exited {}\n--- stdout\n{}--- stderr\n{}",
            out.code, out.stdout, out.stderr
        );
        if cmd == "git majordomus init" {
            init_next = out.stdout.lines().find(|l| l.starts_with("next: ")).map(str::to_string);
        }
    }
    assert!(worked, "the tour has a finish step");
    // What init tells a newcomer to do next is the tour's next line: the commit of the layer.
    let i = commands.iter().position(|c| c == "git majordomus init").expect("the tour runs init");
    let following = commands.get(i + 1).map(String::as_str).unwrap_or("");
    assert!(following.starts_with("git add "), "the tour commits the layer after init: {following:?}");
    let next = init_next.unwrap_or_default();
    assert!(next.contains(following), "init's next: line {next:?} names the tour's commit {following:?}");
    assert!(r.git(&["status", "--porcelain"]).is_empty(), "the tour leaves a clean tree");
    let finished = r.ledger().into_iter().filter(|l| l["event"] == "task.finished").collect::<Vec<_>>();
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0]["outcome"], "completed");
}

#[test]
fn the_tour_parser_reads_commands_and_drops_comments() {
    let readme = "x\n## A tour\n\n```sh\n# a note\ngit a   # why\necho \"a # b\" | git b\n\n```\n";
    assert_eq!(tour_commands(readme), ["git a", "echo \"a # b\" | git b"]);
    assert_eq!(verify_is_true("f --verify-command \"cargo test\""), "f --verify-command true");
    assert_eq!(verify_is_true("f --verify-command make --x"), "f --verify-command true --x");
}
