//! Record bodies are read as CommonMark (docs/REFERENCE.md#handover-body): a `# ...` line inside code or HTML never
//! ends the withheld Next Action of a stale handover, on every reader — `handover --resolve`
//! and `context` (text and `--json`, the JSON form that carries handover bodies) and the start
//! briefing.

use crate::common::{Output, Repo, TestEnv};

/// A command that must never reach the next worker once the handover is history.
const SECRET: &str = "rm -rf build && deploy-now";

/// Next Action bodies whose `#` lines are not headings, each followed by the secret command.
fn next_actions() -> Vec<(&'static str, String)> {
    vec![
        ("backtick fence with info", format!("```sh\n# rebuild first\n{SECRET}\n```\n")),
        ("backtick fence without info", format!("```\n# rebuild first\n{SECRET}\n```\n")),
        ("tilde fence with info", format!("~~~bash\n# rebuild first\n{SECRET}\n~~~\n")),
        ("tilde fence without info", format!("~~~\n# rebuild first\n{SECRET}\n~~~\n")),
        ("unclosed fence", format!("```sh\n# rebuild first\n{SECRET}\n")),
        ("indented code", format!("Run:\n\n    # rebuild first\n    {SECRET}\n")),
        ("HTML block", format!("<pre>\n# rebuild first\n{SECRET}\n</pre>\n")),
        ("HTML comment across blank lines", format!("<!--\n# rebuild first\n\n-->\n{SECRET}\n")),
        ("setext-looking line", format!("Rebuild\n===\n{SECRET}\n")),
        ("heading inside a block quote", format!("> # Risks\n> none\n\n{SECRET}\n")),
    ]
}

fn body(next_action: &str, closing: &str) -> String {
    format!(
        "# Objective\nShip the parser.\n\n# Current State\nHalf done.\n\n# Next Action{closing}\n{next_action}\n# Risks\nNone known.\n"
    )
}

fn payload(sid: &str) -> String {
    format!(
        r#"{{"session_id":"{sid}","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"SessionStart"}}"#
    )
}

#[track_caller]
fn assert_withheld(what: &str, case: &str, out: &Output) {
    assert!(!out.stdout.contains(SECRET), "{case}: {what} leaked the stale Next Action:\n{}", out.stdout);
    assert!(!out.stdout.contains("rebuild first"), "{case}: {what} leaked part of the Next Action:\n{}", out.stdout);
}

/// Writes a handover with `body`, moves HEAD on and the clock six days on.
fn stale_handover(env: &TestEnv, r: &Repo<'_>, body: &str) {
    env.set_now(crate::common::NOW);
    r.mj_in(&["handover", "--no-task"], body).ok();
    r.commit_file(&format!("lib/{}", r.records("handovers").len()), "x\n");
    env.set_now("2026-09-09T20:00:00Z");
}

#[test]
fn r7_a_stale_next_action_never_leaks_through_code_or_html() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    // Per case: what handover --resolve prints from the Next Action on, and the line of context
    // and of the briefing that withholds it.
    let mut seen = String::new();
    let withheld = |out: &Output| {
        out.stdout.lines().filter(|l| l.contains("withheld")).map(|l| format!("  {l}\n")).collect::<String>()
    };
    for (i, (case, na)) in next_actions().into_iter().enumerate() {
        let closing = if i % 2 == 0 { "" } else { " ##" };
        stale_handover(&env, &r, &body(&na, closing));
        let text = r.mj(&["handover", "--resolve"]).ok();
        // An unclosed fence runs to the end of the body (CommonMark), taking `# Risks` with it.
        let risks_stay = case != "unclosed fence";
        assert_eq!(text.stdout.contains("# Risks\nNone known."), risks_stay, "{case}: {}", text.stdout);
        assert_withheld("handover --resolve", case, &text);
        let from_next: Vec<&str> = text.stdout.lines().skip_while(|l| !l.starts_with("# Next Action")).collect();
        seen.push_str(&format!("{case}:\n{}\n", from_next.join("\n")));
        let ctx = r.mj(&["context"]).ok();
        assert_withheld("context", case, &ctx);
        seen.push_str(&withheld(&ctx));
        assert_withheld("context --json", case, &r.mj(&["context", "--json"]).ok());
        let brief = r.mj_in(&["hook", "claude-code", "start"], &payload(&format!("s{i}"))).ok();
        assert_withheld("the start briefing", case, &brief);
        seen.push_str(&withheld(&brief));
    }
    insta::assert_snapshot!(seen, @"
    backtick fence with info:
    # Next Action
    (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
    # Risks
    None known.
      HISTORY: this handover is stale — read it as background, not as the thing to do now; its Next Action is withheld
      (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
      It is history (stale, 6d ago): 6d old, past session.freshness.stale_minutes (5760 min). Its next action is withheld; read it with git majordomus handover --resolve.
    backtick fence without info:
    # Next Action ##
    (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
    # Risks
    None known.
      HISTORY: this handover is stale — read it as background, not as the thing to do now; its Next Action is withheld
      (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
      It is history (stale, 6d ago): 6d old, past session.freshness.stale_minutes (5760 min). Its next action is withheld; read it with git majordomus handover --resolve.
    tilde fence with info:
    # Next Action
    (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
    # Risks
    None known.
      HISTORY: this handover is stale — read it as background, not as the thing to do now; its Next Action is withheld
      (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
      It is history (stale, 6d ago): 6d old, past session.freshness.stale_minutes (5760 min). Its next action is withheld; read it with git majordomus handover --resolve.
    tilde fence without info:
    # Next Action ##
    (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
    # Risks
    None known.
      HISTORY: this handover is stale — read it as background, not as the thing to do now; its Next Action is withheld
      (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
      It is history (stale, 6d ago): 6d old, past session.freshness.stale_minutes (5760 min). Its next action is withheld; read it with git majordomus handover --resolve.
    unclosed fence:
    # Next Action
    (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
      HISTORY: this handover is stale — read it as background, not as the thing to do now; its Next Action is withheld
      (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
      It is history (stale, 6d ago): 6d old, past session.freshness.stale_minutes (5760 min). Its next action is withheld; read it with git majordomus handover --resolve.
    indented code:
    # Next Action ##
    (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
    # Risks
    None known.
      HISTORY: this handover is stale — read it as background, not as the thing to do now; its Next Action is withheld
      (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
      It is history (stale, 6d ago): 6d old, past session.freshness.stale_minutes (5760 min). Its next action is withheld; read it with git majordomus handover --resolve.
    HTML block:
    # Next Action
    (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
    # Risks
    None known.
      HISTORY: this handover is stale — read it as background, not as the thing to do now; its Next Action is withheld
      (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
      It is history (stale, 6d ago): 6d old, past session.freshness.stale_minutes (5760 min). Its next action is withheld; read it with git majordomus handover --resolve.
    HTML comment across blank lines:
    # Next Action ##
    (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
    # Risks
    None known.
      HISTORY: this handover is stale — read it as background, not as the thing to do now; its Next Action is withheld
      (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
      It is history (stale, 6d ago): 6d old, past session.freshness.stale_minutes (5760 min). Its next action is withheld; read it with git majordomus handover --resolve.
    setext-looking line:
    # Next Action
    (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
    # Risks
    None known.
      HISTORY: this handover is stale — read it as background, not as the thing to do now; its Next Action is withheld
      (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
      It is history (stale, 6d ago): 6d old, past session.freshness.stale_minutes (5760 min). Its next action is withheld; read it with git majordomus handover --resolve.
    heading inside a block quote:
    # Next Action ##
    (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
    # Risks
    None known.
      HISTORY: this handover is stale — read it as background, not as the thing to do now; its Next Action is withheld
      (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
      It is history (stale, 6d ago): 6d old, past session.freshness.stale_minutes (5760 min). Its next action is withheld; read it with git majordomus handover --resolve.
    ");
}

#[test]
fn r7_a_fresh_next_action_is_quoted_whole_code_included() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj_in(&["handover", "--no-task"], &body(&format!("```sh\n# rebuild first\n{SECRET}\n```\n"), "")).ok();
    // the next section is not part of it
    insta::assert_snapshot!(r.mj_in(&["hook", "claude-code", "start"], &payload("s")).ok().stdout, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    No task record: checkpoints and handovers are still written for this episode.
    Handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (same_worktree_same_branch, exact, 0m ago, authored).
    Its Next Action:
      ```sh
      # rebuild first
      rm -rf build && deploy-now
      ```
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
}

#[test]
fn r7_a_next_action_only_inside_code_is_no_section() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let only_in_code = "# Objective\nShip it.\n\n# Current State\nHalf done.\n\n```md\n# Next Action\nrun it\n```\n";
    insta::assert_snapshot!(r.mj_in(&["handover", "--no-task"], only_in_code).code(10).shown(), @"
    --- stderr
    error: handover: missing or empty section(s): Next Action
    hint: each required section is a level-one heading (# Name) with real content; <placeholders> count as empty
    --- exit 10
    ");
    assert!(r.records("handovers").is_empty(), "nothing written");
    let setext = "# Objective\nShip it.\n\n# Current State\nHalf done.\n\nNext Action\n===\nrun it\n";
    r.mj_in(&["handover", "--no-task"], setext).code(10);
    let trailing = "# Objective ##\nShip it.\n\n# Current State #\nHalf done.\n\n# Next Action ###\nrun it\n";
    r.mj_in(&["handover", "--no-task"], trailing).ok();
}
