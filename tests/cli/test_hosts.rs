//! Every agent host by its own contract (docs/HOOKS.md, docs/REFERENCE.md#origin; issue 23): the real hook command
//! with each host's payload shapes, the briefing's shape and cap, the end reasons, and where
//! the checkout is found.

use serde_json::Value;

use crate::common::{Repo, TestEnv};

/// A checkout whose resolved handover's Next Action is about 60,000 characters (ten lines of
/// 6,000), with the policy's own character budget raised past every host's cap: what is left
/// to trim is the host's.
fn big_briefing(env: &TestEnv) -> Repo<'_> {
    let r = env.ready_repo("r");
    r.start("A task with a very long next action");
    let line = "é".repeat(3_000) + &"x".repeat(3_000);
    let na: Vec<String> = (0..10).map(|i| format!("{i} {line}")).collect();
    let body = format!("# Objective\nShip it.\n\n# Current State\nHalf.\n\n# Next Action\n{}\n", na.join("\n"));
    r.mj_in(&["handover"], &body).ok();
    let policy = r.read(".ai/repo/policy.yaml").replace("briefing_budget_chars: 9000", "briefing_budget_chars: 100000");
    r.write(".ai/repo/policy.yaml", &policy);
    r
}

/// The last line of a briefing (where an overflow is said).
fn last_line(text: &str) -> &str {
    text.trim_end().lines().last().unwrap_or("")
}

fn start(r: &Repo, host: &str, payload: &str) -> String {
    let out = r.mj_in(&["hook", host, "start"], payload).ok();
    out.stdout
}

#[test]
fn each_host_gets_the_briefing_in_its_own_shape_and_under_its_own_cap() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = big_briefing(&env);
    // Claude Code: plain text, at most 10,000 characters with the overflow line.
    let out = start(&r, "claude-code", r#"{"session_id":"cc-1","source":"startup","hook_event_name":"SessionStart"}"#);
    assert!(out.starts_with("## Majordomus"), "{out}");
    assert!(out.chars().count() <= 10_000, "{}", out.chars().count());
    insta::assert_snapshot!(last_line(&out), @"... 11 more line(s) withheld by Claude Code's 10000-character hook output cap; run `git majordomus context` for the whole briefing.");
    // Codex: plain, never looking like JSON, at most 10,000 bytes (the é are two each).
    let out = start(
        &r,
        "codex",
        r#"{"session_id":"cx-1","source":"startup","hook_event_name":"SessionStart","cwd":"/nowhere"}"#,
    );
    assert!(!out.trim_start().starts_with('{'));
    assert!(out.len() <= 10_000, "{}", out.len());
    insta::assert_snapshot!(last_line(&out), @"... 13 more line(s) withheld by Codex's 10000-byte hook output cap; run `git majordomus context` for the whole briefing.");
    // Gemini CLI: stdout is one JSON document and nothing else.
    let out = start(
        &r,
        "gemini-cli",
        r#"{"session_id":"gm-1","source":"startup","hook_event_name":"SessionStart","timestamp":"2026-09-01T00:00:00Z"}"#,
    );
    let v: Value = serde_json::from_str(&out).expect("Gemini CLI needs JSON-only stdout");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    let text = v["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(text.starts_with("## Majordomus") && text.chars().count() <= 10_000);
    insta::assert_snapshot!(last_line(text), @"... 14 more line(s) withheld by Gemini CLI's 10000-character hook output cap; run `git majordomus context` for the whole briefing.");
    // Cursor and Copilot CLI: one JSON object with their key.
    let out = start(
        &r,
        "cursor",
        r#"{"conversation_id":"cu-1","generation_id":"g","workspace_roots":["/w"],"hook_event_name":"sessionStart"}"#,
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v["additional_context"].as_str().unwrap().starts_with("## Majordomus"));
    let out = start(&r, "copilot-cli", r#"{"timestamp":1764000000,"cwd":"/w","source":"new","sessionId":"cp-1"}"#);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v["additionalContext"].as_str().unwrap().chars().count() <= 10_000);
    // Each opened its own episode, keyed by its own session id.
    let open = std::fs::read_dir(r.state("sessions-open")).unwrap().count();
    assert_eq!(open, 5);
}

#[test]
fn a_policy_budget_lowers_the_cap_and_never_raises_it() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = big_briefing(&env);
    let policy = r.read(".ai/repo/policy.yaml").replace("briefing_budget_chars: 100000", "briefing_budget_chars: 3000");
    r.write(".ai/repo/policy.yaml", &policy);
    let out = start(&r, "claude-code", r#"{"session_id":"cc-1","source":"startup"}"#);
    assert!(out.chars().count() <= 3_000);
    insta::assert_snapshot!(last_line(&out), @"... 12 more line(s) withheld by session.briefing_budget_chars; run `git majordomus context` for the whole briefing.");
}

#[test]
fn end_reasons_close_or_interrupt_by_each_hosts_own_words() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let mut said = String::new();
    for (host, id, reason, outcome) in [
        ("claude-code", "cc-1", "logout", "closed"),
        ("claude-code", "cc-2", "other", "interrupted"),
        ("codex", "cx-1", "other", "interrupted"),
        ("gemini-cli", "gm-1", "exit", "closed"),
        ("cursor", "cu-1", "completed", "interrupted"),
        // A normal exit of `copilot -p` (measured on Copilot CLI 1.0.102, docs/HOOKS.md).
        ("copilot-cli", "cp-1", "complete", "closed"),
    ] {
        let key = match host {
            "cursor" => "conversation_id",
            "copilot-cli" => "sessionId",
            _ => "session_id",
        };
        r.mj_in(&["hook", host, "start"], &format!(r#"{{"{key}":"{id}","source":"startup"}}"#)).ok();
        // Cursor's sessionEnd names the session under `session_id`: the same id.
        let end_key = if host == "copilot-cli" { "sessionId" } else { "session_id" };
        let out = r.mj_in(&["hook", host, "end"], &format!(r#"{{"{end_key}":"{id}","reason":"{reason}"}}"#)).ok();
        let closed = r.ledger().into_iter().rfind(|l| l["event"] == "session.closed").unwrap();
        assert_eq!(closed["outcome"], outcome, "{host} {reason}");
        if host == "gemini-cli" {
            // Gemini CLI shows a compact or end hook's stderr to its user as a "Hook system
            // message": nothing is printed there (docs/HOOKS.md, "Measured on the real CLIs").
            assert_eq!(out.stderr, "", "{host}");
        }
        said.push_str(&format!("{host} {reason}:\n{}", out.stderr));
    }
    insta::assert_snapshot!(said, @"
    claude-code logout:
    checkpoint: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    handover: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    session s-[ID] closed: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    claude-code other:
    checkpoint: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    handover: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    session s-[ID] interrupted: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    codex other:
    checkpoint: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    handover: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    session s-[ID] interrupted: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    gemini-cli exit:
    cursor completed:
    checkpoint: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    handover: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    session s-[ID] interrupted: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    copilot-cli complete:
    checkpoint: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    handover: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    session s-[ID] closed: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    ");
    // Compact is only where the host has it.
    insta::assert_snapshot!(r.mj_in(&["hook", "cursor", "compact"], "{}").ok().shown(), @r#"
    --- stderr
    majordomus: cursor has no "compact" event; known: start, end
    --- exit 0
    "#);
    let out = r.mj_in(&["hook", "gemini-cli", "compact"], r#"{"session_id":"gm-2","trigger":"auto"}"#).ok();
    assert!(out.stdout.is_empty(), "Gemini's stdout holds JSON or nothing: {}", out.stdout);
    assert_eq!(out.stderr, "", "nothing on a Gemini compact's stderr");
}

#[test]
fn the_checkout_is_found_from_the_payload_cwd_then_claude_project_dir() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let outside = env.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let payload = format!(r#"{{"session_id":"cc-1","source":"startup","cwd":"{}"}}"#, r.root.display());
    let out = env.run(&outside, &["hook", "claude-code", "start"], Some(payload.as_bytes()), &[]);
    assert!(out.stdout.starts_with("## Majordomus"), "{} / {}", out.stdout, out.stderr);
    let root = r.root.display().to_string();
    let out = env.run(
        &outside,
        &["hook", "claude-code", "start"],
        Some(br#"{"session_id":"cc-2","source":"startup"}"#),
        &[("CLAUDE_PROJECT_DIR", root.as_str())],
    );
    assert!(out.stdout.starts_with("## Majordomus"), "{} / {}", out.stdout, out.stderr);
    // Nothing names a checkout: one line says so, nothing is written, the host is not failed.
    let out = env.run(&outside, &["hook", "claude-code", "start"], Some(br#"{"session_id":"cc-3"}"#), &[]);
    insta::assert_snapshot!(out.ok().shown(), @"
    --- stderr
    majordomus: claude-code start hook: not inside a git repository; nothing recorded
    --- exit 0
    ");
}

#[test]
fn a_fork_in_another_worktree_opens_its_episode_there() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj_in(&["hook", "claude-code", "start"], r#"{"session_id":"main-1","source":"startup"}"#).ok();
    let wt = env.path().join("fork-wt");
    r.git(&["worktree", "add", "-q", "-b", "fork", wt.to_str().unwrap()]);
    let wt = std::fs::canonicalize(&wt).unwrap();
    let payload = format!(r#"{{"session_id":"fork-1","source":"fork","cwd":"{}"}}"#, wt.display());
    // Claude Code runs the hook from the project directory; the forked session works in its own
    // worktree.
    insta::assert_snapshot!(r.mj_in(&["hook", "claude-code", "start"], &payload).ok().stdout, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on fork at [HEX], working tree clean.
    No task record: checkpoints and handovers are still written for this episode.
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    assert!(wt.join(".ai/local/state/sessions-open").read_dir().unwrap().count() == 1);
    assert_eq!(r.state("sessions-open").read_dir().unwrap().count(), 1, "the main checkout keeps only its own episode");
    // Another source with the same cwd stays with the process's checkout.
    let payload = format!(r#"{{"session_id":"resume-1","source":"resume","cwd":"{}"}}"#, wt.display());
    r.mj_in(&["hook", "claude-code", "start"], &payload).ok();
    assert_eq!(r.state("sessions-open").read_dir().unwrap().count(), 2);
}

#[test]
fn install_declares_the_end_and_compact_timeouts_and_adds_them_to_an_older_install() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.write(
        ".claude/settings.json",
        r#"{"hooks":{"SessionEnd":[{"hooks":[{"type":"command","command":"git majordomus hook claude-code end"}]}]}}"#,
    );
    insta::assert_snapshot!(r.mj(&["hooks", "install", "--claude-code"]).ok().shown(), @"
    .claude/settings.json: added 3 hook entries
    .claude/commands/handover.md: added the /handover command
    --- stderr
    --- exit 0
    ");
    let v: Value = serde_json::from_str(&r.read(".claude/settings.json")).unwrap();
    let entry = |e: &str| v["hooks"][e][0]["hooks"][0].clone();
    assert_eq!(entry("SessionEnd")["timeout"], 30);
    assert_eq!(entry("PreCompact")["timeout"], 30);
    assert!(entry("SessionStart").get("timeout").is_none());
    assert_eq!(v["hooks"]["SessionEnd"].as_array().unwrap().len(), 1, "the old entry was updated, not doubled");
    insta::assert_snapshot!(r.mj(&["hooks", "install", "--claude-code"]).ok().shown(), @"
    .claude/settings.json: already installed
    .claude/commands/handover.md: the /handover command already installed
    --- stderr
    --- exit 0
    ");
    r.mj(&["hooks", "uninstall", "--claude-code"]).ok();
    let v: Value = serde_json::from_str(&r.read(".claude/settings.json")).unwrap();
    assert!(v.get("hooks").is_none(), "{v}");
}

/// Every host and scope: install merges beside what is there, keeps the file's mode, is
/// idempotent, and uninstall removes exactly what it added; `hooks status` says where.
#[test]
fn install_every_host_and_scope_merges_keeps_the_mode_and_uninstalls_exactly() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let cases: &[(&str, &str, &str, &[&str])] = &[
        (
            "--claude-code=project",
            ".claude/settings.json",
            "hooks.SessionStart",
            &["SessionStart", "PreCompact", "SessionEnd"],
        ),
        ("--claude-code=local", ".claude/settings.local.json", "", &["SessionStart", "PreCompact", "SessionEnd"]),
        ("--codex", ".codex/hooks.json", "", &["SessionStart", "PreCompact", "SessionEnd"]),
        ("--gemini-cli", ".gemini/settings.json", "", &["SessionStart", "PreCompress", "SessionEnd"]),
        ("--cursor", ".cursor/hooks.json", "", &["sessionStart", "sessionEnd"]),
        ("--copilot-cli", ".github/hooks/majordomus.json", "", &["sessionStart", "sessionEnd"]),
    ];
    let mut said = String::new();
    for (flag, rel, _, events) in cases {
        // A file the user already has: a foreign entry on the same event and another key.
        let foreign_event = events[0];
        let foreign = if rel.contains("cursor") || rel.contains("github") {
            format!(
                r#"{{"version":1,"hooks":{{"{foreign_event}":[{{"command":"echo mine","bash":"echo mine"}}]}},"other":true}}"#
            )
        } else {
            format!(
                r#"{{"hooks":{{"{foreign_event}":[{{"hooks":[{{"type":"command","command":"echo mine"}}]}}]}},"other":true}}"#
            )
        };
        r.write(rel, &foreign);
        std::fs::set_permissions(r.root.join(rel), std::fs::Permissions::from_mode(0o640)).unwrap();
        said.push_str(&format!("{flag}:\n{}", r.mj(&["hooks", "install", flag]).ok().stdout));
        let text = r.read(rel);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["other"], true, "{flag}: the user's keys stay");
        assert!(text.contains("echo mine"), "{flag}: the user's entry stays");
        for e in *events {
            assert!(v["hooks"][e].to_string().contains("git majordomus hook "), "{flag}: {e} in {text}");
        }
        assert_eq!(
            std::fs::metadata(r.root.join(rel)).unwrap().permissions().mode() & 0o777,
            0o640,
            "{flag}: mode kept"
        );
        // idempotent
        said.push_str(&format!("{flag} again:\n{}", r.mj(&["hooks", "install", flag]).ok().stdout));
        let status: Value = serde_json::from_str(&r.mj(&["--json", "hooks", "status"]).ok().stdout).unwrap();
        let row = status["hosts"].as_array().unwrap().iter().find(|h| h["path"] == *rel).unwrap().clone();
        assert_eq!(row["state"], "installed", "{flag}: {row}");
        r.mj(&["hooks", "uninstall", flag]).ok();
        let back: Value = serde_json::from_str(&r.read(rel)).unwrap();
        assert_eq!(
            back,
            serde_json::from_str::<Value>(&foreign).unwrap(),
            "{flag}: uninstall removes exactly what install added"
        );
    }
    insta::assert_snapshot!(said, @"
    --claude-code=project:
    .claude/settings.json: added 3 hook entries
    .claude/commands/handover.md: added the /handover command
    --claude-code=project again:
    .claude/settings.json: already installed
    .claude/commands/handover.md: the /handover command already installed
    --claude-code=local:
    .claude/settings.local.json: added 3 hook entries
    --claude-code=local again:
    .claude/settings.local.json: already installed
    --codex:
    .codex/hooks.json: added 3 hook entries
    codex: pending trust: Codex runs a project's hooks only in a trusted project and only once each hook is trusted — open /hooks in Codex (an edited entry needs trusting again); `codex exec` skips untrusted hooks silently (automation: --dangerously-bypass-hook-trust)
    .agents/skills/handover/SKILL.md: added the handover skill
    --codex again:
    .codex/hooks.json: already installed
    .agents/skills/handover/SKILL.md: the handover skill already installed
    --gemini-cli:
    .gemini/settings.json: added 3 hook entries
    gemini-cli: Gemini CLI runs hooks only in a trusted folder — trust this folder when it asks (`gemini -p` exits 55 in an untrusted one)
    .gemini/commands/handover.toml: added the /handover command
    --gemini-cli again:
    .gemini/settings.json: already installed
    .gemini/commands/handover.toml: the /handover command already installed
    --cursor:
    .cursor/hooks.json: added 2 hook entries
    --cursor again:
    .cursor/hooks.json: already installed
    --copilot-cli:
    .github/hooks/majordomus.json: added 2 hook entries
    copilot-cli: Copilot CLI runs repository hooks only in a trusted folder — trust it when Copilot asks; `copilot -p` silently runs none otherwise (automation: --trust-folder or GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true)
    .agents/skills/handover/SKILL.md: added the handover skill
    --copilot-cli again:
    .github/hooks/majordomus.json: already installed
    .agents/skills/handover/SKILL.md: the handover skill already installed
    ");
    // Codex says its hooks wait for trust.
    std::fs::remove_file(r.root.join(".codex/hooks.json")).unwrap();
    insta::assert_snapshot!(r.mj(&["hooks", "install", "--codex"]).ok().stdout, @"
    .codex/hooks.json: added 3 hook entries
    codex: pending trust: Codex runs a project's hooks only in a trusted project and only once each hook is trusted — open /hooks in Codex (an edited entry needs trusting again); `codex exec` skips untrusted hooks silently (automation: --dangerously-bypass-hook-trust)
    .agents/skills/handover/SKILL.md: added the handover skill
    ");
    let v: Value = serde_json::from_str(&r.read(".codex/hooks.json")).unwrap();
    assert_eq!(v["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"], 3, "Codex caps SessionEnd at 3 s");
    // A new file is shared configuration, not a secret.
    assert_eq!(std::fs::metadata(r.root.join(".codex/hooks.json")).unwrap().permissions().mode() & 0o777, 0o644);
    // Copilot's own file: typed entries with timeoutSec; removed whole when only ours was in it.
    std::fs::remove_file(r.root.join(".github/hooks/majordomus.json")).unwrap();
    // Each host says what it needs before it runs the hooks (measured, docs/HOOKS.md "Trust").
    insta::assert_snapshot!(r.mj(&["hooks", "install", "--copilot-cli"]).ok().stdout, @"
    .github/hooks/majordomus.json: added 2 hook entries
    copilot-cli: Copilot CLI runs repository hooks only in a trusted folder — trust it when Copilot asks; `copilot -p` silently runs none otherwise (automation: --trust-folder or GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true)
    .agents/skills/handover/SKILL.md: the handover skill already installed
    ");
    std::fs::remove_file(r.root.join(".gemini/settings.json")).unwrap();
    insta::assert_snapshot!(r.mj(&["hooks", "install", "--gemini-cli"]).ok().stdout, @"
    .gemini/settings.json: added 3 hook entries
    gemini-cli: Gemini CLI runs hooks only in a trusted folder — trust this folder when it asks (`gemini -p` exits 55 in an untrusted one)
    .gemini/commands/handover.toml: added the /handover command
    ");
    let v: Value = serde_json::from_str(&r.read(".github/hooks/majordomus.json")).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(
        v["hooks"]["sessionEnd"][0],
        serde_json::json!({"type":"command","bash":"git majordomus hook copilot-cli end","timeoutSec":30})
    );
    r.mj(&["hooks", "uninstall", "--copilot-cli"]).ok();
    assert!(!r.exists(".github/hooks/majordomus.json"));
    // User scope lives under $HOME.
    r.mj(&["hooks", "install", "--claude-code=user"]).ok();
    assert!(env.home.join(".claude/settings.json").exists());
    insta::assert_snapshot!(r.mj(&["hooks", "status"]).ok().stdout, @"
    claude-code  project  .claude/settings.json              absent
    claude-code  local    .claude/settings.local.json        absent
    claude-code  user     ~/.claude/settings.json            installed
    codex        project  .codex/hooks.json                  installed
    codex        user     ~/.codex/hooks.json                absent
    gemini-cli   project  .gemini/settings.json              installed
    gemini-cli   user     ~/.gemini/settings.json            absent
    cursor       project  .cursor/hooks.json                 absent
    cursor       user     ~/.cursor/hooks.json               absent
    copilot-cli  project  .github/hooks/majordomus.json      absent
    git          hook     pre-push                           absent
    git          hook     post-checkout                      absent
    git          hook     post-rewrite                       absent
    ");
    // A scope a host does not have is a usage error.
    insta::assert_snapshot!(r.mj(&["hooks", "install", "--cursor=local"]).code(2).shown(), @"
    --- stderr
    error: Cursor has no local settings file
    hint: choose project, or a scope the host has (docs/HOOKS.md)
    --- exit 2
    ");
}

/// A Codex session through its own payload shapes (`openai/codex` `codex-rs/hooks/schema/
/// generated/`: SessionStart, PreCompact with `turn_id`/`trigger`, SessionEnd's `reason:
/// "other"`): one episode, a derived checkpoint at compact, closed as interrupted.
#[test]
fn a_codex_session_through_its_own_payloads() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("Codex work");
    let cwd = r.root.display().to_string();
    let start = format!(
        r#"{{"session_id":"019a-cx","transcript_path":null,"cwd":"{cwd}","hook_event_name":"SessionStart","model":"gpt-5","permission_mode":"default","source":"startup"}}"#
    );
    let out = r.mj_in(&["hook", "codex", "start"], &start).ok();
    // Plain text reaches the model as it is; JSON-looking text that does not parse fails the hook.
    assert!(out.stdout.starts_with("## Majordomus") && out.stdout.len() <= 10_000);
    assert!(serde_json::from_str::<Value>(&out.stdout).is_err());
    r.write("lib/a.rs", "work\n");
    let compact = format!(
        r#"{{"session_id":"019a-cx","turn_id":"t1","transcript_path":null,"cwd":"{cwd}","hook_event_name":"PreCompact","model":"gpt-5","trigger":"auto"}}"#
    );
    // Codex's own schema judges the fixture (and refuses one without `turn_id`, so a pass
    // means something).
    if crate::common::have(crate::common::Tool::SurfacesVenv) {
        let schema = codex_schema("pre-compact.command.input");
        let (valid, why) = crate::common::validate(&schema, &serde_json::from_str(&compact).unwrap());
        assert!(valid, "the fixture is not Codex's PreCompact input: {why}");
        let no_turn = compact.replace(r#""turn_id":"t1","#, "");
        assert!(!crate::common::validate(&schema, &serde_json::from_str(&no_turn).unwrap()).0);
    }
    insta::assert_snapshot!(r.mj_in(&["hook", "codex", "compact"], &compact).ok().shown(), @"
    --- stderr
    checkpoint: .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md
    --- exit 0
    ");
    let end = format!(
        r#"{{"session_id":"019a-cx","transcript_path":null,"cwd":"{cwd}","hook_event_name":"SessionEnd","reason":"other"}}"#
    );
    insta::assert_snapshot!(r.mj_in(&["hook", "codex", "end"], &end).ok().shown(), @"
    --- stderr
    checkpoint: skipped — nothing changed since the last checkpoint (same head, same working tree)
    handover: .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    session s-[ID] interrupted: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    --- exit 0
    ");
    // A receipt's own `event` key (start, compact, end) follows the ledger's: the last one read.
    let receipts: Vec<_> = r.ledger().into_iter().filter(|l| l.get("provider_session").is_some()).collect();
    let events: Vec<&str> = receipts.iter().map(|l| l["event"].as_str().unwrap()).collect();
    assert_eq!(events, ["start", "compact", "end"]);
    assert!(receipts.iter().all(|l| l["provider"] == "codex" && l["provider_session"] == "019a-cx"));
}

/// One of Codex's own hook schemas, copied into `tests/fixtures/hosts/codex/` (its README
/// names the source and licence).
fn codex_schema(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/hosts/codex/{name}.schema.json"))
}

/// A dry run says what the event would really do: after an authored handover, the end would
/// skip the derived one — and the real end then does.
#[test]
fn the_end_hooks_dry_run_reads_the_same_plan_as_the_end() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("Dry run");
    r.mj_in(&["hook", "claude-code", "start"], r#"{"session_id":"d-1","source":"startup"}"#).ok();
    r.write("lib/a.rs", "work\n");
    let out = r
        .mj_env(
            &["hook", "claude-code", "end"],
            r#"{"session_id":"d-1","reason":"logout"}"#,
            &[("MAJORDOMUS_SESSION_DRY_RUN", "1")],
        )
        .ok();
    insta::assert_snapshot!(out.stderr, @"
    dry run (claude-code end): would append provider.event.received for session key d-1
    dry run: would write a final derived checkpoint
    dry run: would write a derived handover
    dry run: would close the episode as closed
    ");
    r.mj_in(&["handover"], crate::common::HANDOVER).ok();
    let before = r.read(".ai/local/state/ledger.jsonl");
    let out = r
        .mj_env(
            &["hook", "claude-code", "end"],
            r#"{"session_id":"d-1","reason":"logout"}"#,
            &[("MAJORDOMUS_SESSION_DRY_RUN", "1")],
        )
        .ok();
    insta::assert_snapshot!(out.stderr, @"
    dry run (claude-code end): would append provider.event.received for session key d-1
    dry run: would write a final derived checkpoint
    dry run: would skip the derived handover: an authored handover is newer than this episode's last activity
    dry run: would close the episode as closed
    ");
    assert_eq!(r.read(".ai/local/state/ledger.jsonl"), before, "a dry run writes nothing");
    let out = r.mj_in(&["hook", "claude-code", "end"], r#"{"session_id":"d-1","reason":"logout"}"#).ok();
    insta::assert_snapshot!(out.stderr, @"
    checkpoint: .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md
    handover: skipped — an authored handover is newer than this episode's last activity
    session s-[ID] closed: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    ");
}

#[test]
fn an_agents_own_command_names_its_episode_through_its_hosts_shell_variable() {
    // Measured on the real CLIs (docs/HOOKS.md): Copilot CLI sets COPILOT_AGENT_SESSION_ID in the
    // agent's shell, not COPILOT_SESSION_ID (issue 41 item 4).
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("two hosts");
    start(&r, "copilot-cli", r#"{"timestamp":1764000000,"cwd":"/w","source":"new","sessionId":"cp-7"}"#);
    start(&r, "claude-code", r#"{"session_id":"cc-7","source":"startup","hook_event_name":"SessionStart"}"#);
    r.mj_env(&["decision", "add", "copilot's choice", "--why", "w"], "", &[("COPILOT_AGENT_SESSION_ID", "cp-7")]).ok();
    let ledger = r.read(".ai/local/state/ledger.jsonl");
    let line = ledger.lines().find(|l| l.contains("decision.recorded")).expect("a decision event");
    let v: Value = serde_json::from_str(line).unwrap();
    let open = r.read(".ai/local/state/sessions-open/cp-7.yaml");
    let session = open.lines().find_map(|l| l.strip_prefix("session_id: ")).unwrap().trim_matches('"');
    assert_eq!(v["session"].as_str(), Some(session), "{line}\n{open}");
}

#[test]
fn everything_asks_for_the_handover_the_briefing_the_prompt_and_a_handover_command() {
    // Issue 42 item 5: nothing asked the agent for the handover that is the whole value.
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    insta::assert_snapshot!(start(&r, "claude-code", r#"{"session_id":"ask-1","source":"startup"}"#), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    No task record: checkpoints and handovers are still written for this episode.
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    // `init` wrote the prompt; `context --prompt handover` prints it.
    assert!(r.exists(".ai/repo/prompts/handover.md"));
    let prompt = r.mj(&["context", "--prompt", "handover"]).ok().stdout;
    let prompt: Vec<&str> =
        prompt.lines().skip_while(|l| !l.starts_with("## PROMPT")).take_while(|l| *l != "## EXCLUDED").collect();
    insta::assert_snapshot!(prompt.join("\n"), @r#"
    ## PROMPT handover
    # Hand over

    Before this session stops, write the handover the next worker — a person, or an agent in
    another session or another host — starts from. Only what you write here survives: the
    conversation does not.

    Run `git majordomus handover --close` with this body on stdin (a heredoc is easiest):

    ```
    # Objective
    What the task is for, in one or two sentences.

    # Current State
    What is done, what is half done, what was tried and failed; the files that matter.

    # Next Action
    The one next step, concrete enough to start on without reading anything else.
    ```

    Write `--close` only when you hand the task over; a plain `git majordomus handover` leaves it
    active. Open questions that block completion go in with `git majordomus question add "<q>"`.
    Check the result with `git majordomus handover --resolve`.
    "#);
    // The hosts with a project command mechanism get `/handover`; it is the tool's file.
    let mut said = String::new();
    for (flag, rel) in
        [("--claude-code", ".claude/commands/handover.md"), ("--gemini-cli", ".gemini/commands/handover.toml")]
    {
        said.push_str(&r.mj(&["hooks", "install", flag]).ok().stdout);
        assert!(r.read(rel).contains("Only what you write here survives"), "{rel}");
    }
    insta::assert_snapshot!(said, @"
    .claude/settings.json: added 3 hook entries
    .claude/commands/handover.md: added the /handover command
    .gemini/settings.json: added 3 hook entries
    gemini-cli: Gemini CLI runs hooks only in a trusted folder — trust this folder when it asks (`gemini -p` exits 55 in an untrusted one)
    .gemini/commands/handover.toml: added the /handover command
    ");
    // Codex and Copilot CLI both list `.agents/skills/`: one skill, shared, kept while either
    // host's hooks are in.
    for flag in ["--codex", "--copilot-cli"] {
        r.mj(&["hooks", "install", flag]).ok();
    }
    assert!(r.read(".agents/skills/handover/SKILL.md").starts_with("---\nname: handover\n"));
    // the host files are the tool's: the tree is clean
    insta::assert_snapshot!(r.mj(&["state"]).ok().stdout, @"
    Checkout [TMP]/r on main at [HEX], working tree clean
    Episode: s-[ID] (since 2026-09-03T20:00:00Z)
    Task: none
    Handover: none for this worktree and branch
    Checkpoint: none for this worktree and branch
    Blockers: 0 open question(s)
    (git majordomus state --json: the whole value, as MCP and HTTP return it)
    ");
    insta::assert_snapshot!(r.mj(&["hooks", "uninstall", "--codex"]).ok().stdout, @"
    .codex/hooks.json: removed 3 hook entries
    .agents/skills/handover/SKILL.md: kept for GitHub Copilot CLI
    ");
    r.mj(&["hooks", "uninstall", "--copilot-cli"]).ok();
    assert!(!r.exists(".agents/skills/handover/SKILL.md"));
    r.mj(&["hooks", "uninstall", "--claude-code", "--gemini-cli"]).ok();
    assert!(!r.exists(".claude/commands/handover.md") && !r.exists(".gemini/commands/handover.toml"));
    // A command of the user's by that name is left alone both ways.
    r.write(".claude/commands/handover.md", "my own\n");
    insta::assert_snapshot!(r.mj(&["hooks", "install", "--claude-code"]).ok().stdout, @"
    .claude/settings.json: added 3 hook entries
    .claude/commands/handover.md: a file of yours is there (the /handover command not written); left as it is
    ");
    r.mj(&["hooks", "uninstall", "--claude-code"]).ok();
    assert_eq!(r.read(".claude/commands/handover.md"), "my own\n");
}

#[test]
fn a_hook_says_on_stderr_what_it_could_not_do_and_never_fails_its_host() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let bare = env.repo("bare");
    bare.commit_file("a.txt", "a\n");
    let mut text = bare.mj_in(&["hook", "vim", "start"], "{}").shown();
    text.push_str(&bare.mj_in(&["hook", "claude-code", "start"], r#"{"session_id":"cc-1"}"#).shown());
    let r = env.ready_repo("r");
    text.push_str(&r.mj_in(&["hook", "claude-code", "end"], "not json").shown());
    insta::assert_snapshot!(text, @r#"
    --- stderr
    majordomus: unknown provider "vim"; known: claude-code, codex, gemini-cli, cursor, copilot-cli
    --- exit 0
    --- stderr
    majordomus: claude-code start hook: no majordomus layer in this repository; nothing recorded (run git majordomus init)
    --- exit 0
    --- stderr
    majordomus: claude-code end hook: payload is not a JSON object; the event is still recorded, under session key unknown
    end: no open episode for unknown; nothing to close
    --- exit 0
    "#);
}
