//! Tests of `context` (docs/REFERENCE.md#context; docs/REFERENCE.md#front-matter items 19, 20, 21).

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::json::{doc, Context, ErrorDoc};

use crate::common::{Output, Repo, TestEnv, HANDOVER};

/// The budget steps in their fixed order (docs/REFERENCE.md#context).
const DROP_ORDER: &[&str] = &[
    "history",
    "files",
    "documents",
    "reasoning",
    "decisions",
    "handover-state",
    "checkpoint-body",
    "handover-body",
    "checkpoint",
    "handover",
];

/// The headings of sections that are never dropped.
const KEPT: &[&str] = &["## GIT", "## TASK", "## PROFILE ", "## OPEN QUESTIONS ("];

/// A handover whose Current State is longer than the `handover-state` step keeps.
const LONG_STATE: &str = "# Objective\nFix the callback.\n\n# Current State\nReproduced.\nstate two\nstate three\nstate four\nstate five\nstate six\nstate seven\nstate eight\nstate nine\nstate ten\nstate eleven\nstate twelve\n\n# Next Action\nWrite the regression test.\n";

const NO_HANDOVER: &str = "- handover — no record for this worktree and branch — absence, not a stale match";

/// `(lines, limit, dropped)` from the `## BUDGET` block.
fn budget(stdout: &str) -> (usize, usize, Vec<String>) {
    let line =
        stdout.lines().skip_while(|l| *l != "## BUDGET").nth(1).unwrap_or_else(|| panic!("no BUDGET line:\n{stdout}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!((words[1], words[3]), ("of", "lines"), "{line}");
    let dropped = line
        .split_once("(dropped: ")
        .map(|(_, d)| d.trim_end_matches(')').split(' ').map(str::to_string).collect())
        .unwrap_or_default();
    (words[0].parse().unwrap(), words[2].parse().unwrap(), dropped)
}

/// The lines under `## EXCLUDED`.
fn excluded(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .skip_while(|l| *l != "## EXCLUDED")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Every `## ` heading of the sections (EXCLUDED and BUDGET left out).
fn headings(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| l.starts_with("## ") && *l != "## EXCLUDED" && *l != "## BUDGET")
        .map(str::to_string)
        .collect()
}

fn json(out: &Output) -> Context {
    doc(&out.stdout)
}

fn context(r: &Repo<'_>, n: usize) -> Output {
    r.mj(&["context", "--budget-lines", &n.to_string()])
}

/// Every file under `.ai/` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().map(|e| e.unwrap()) {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// A debugging task with every droppable section filled: documents, a decision, a question, a
/// four-line checkpoint, a handover, a touched file and ledger history.
fn rich_repo(env: &TestEnv) -> (Repo<'_>, String) {
    let r = env.ready_repo("r");
    r.write("lib/README.md", "lib\ndocs\n");
    r.write("CLAUDE.md", "rules\n");
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "-m", "docs"]);
    let out = r.mj(&["start", "Fix the callback", "--scope", "lib", "--profile", "debugging"]).ok();
    let id = out.stdout.split_whitespace().nth(1).unwrap().to_string();
    r.mj(&["decision", "add", "Use the ledger order", "--why", "seconds are too coarse"]).ok();
    r.mj(&["question", "add", "Which callback URL?"]).ok();
    r.mj_in(&["checkpoint"], "step one\nstep two\n\nstep three\nstep four\n").ok();
    r.mj_in(&["handover"], LONG_STATE).ok();
    r.write("lib/a.rs", "touched\n");
    (r, id)
}

#[test]
fn item_19_budget_drops_in_fixed_order_and_counts_the_printed_lines() {
    let env = TestEnv::new();
    let (r, _) = rich_repo(&env);
    let full = r.mj(&["context"]).ok().stdout;
    let (lines, limit, dropped) = budget(&full);
    assert_eq!((lines, limit), (full.lines().count(), 300), "{full}");
    assert!(dropped.is_empty());
    for h in [
        "## CONTEXT DOCUMENTS",
        "## DECISIONS",
        "## REASONING",
        "## LATEST CHECKPOINT",
        "## LATEST COMPATIBLE HANDOVER",
        "## FILES TOUCHED IN SCOPE (1)",
        "## RECENT HISTORY",
    ] {
        assert!(full.contains(h), "{h} missing:\n{full}");
    }
    let mut seen: Vec<Vec<String>> = Vec::new();
    let mut min_ok = lines + 1;
    for n in (0..=lines).rev() {
        let out = context(&r, n);
        if out.code == 10 {
            assert!(out.stdout.is_empty(), "a refusal prints no document:\n{}", out.stdout);
            assert!(
                out.stderr.starts_with("error: context: git, task, profile and open questions need "),
                "{}",
                out.stderr
            );
            continue;
        }
        let out = out.ok();
        assert_eq!(min_ok, n + 1, "once the undroppable sections exceed the budget, every smaller budget refuses too");
        min_ok = n;
        let (lines, limit, dropped) = budget(&out.stdout);
        assert_eq!(lines, out.stdout.lines().count(), "BUDGET counts header, EXCLUDED and itself:\n{}", out.stdout);
        assert!(lines <= n && limit == n, "{}", out.stdout);
        assert_eq!(dropped[..], DROP_ORDER[..dropped.len()], "fixed drop order at {n}");
        let ex = excluded(&out.stdout);
        for d in &dropped {
            assert!(
                ex.contains(&format!("- {d} — context budget {n} lines")),
                "{d} not named under EXCLUDED:\n{}",
                out.stdout
            );
        }
        for k in KEPT {
            assert!(out.stdout.lines().any(|l| l.starts_with(k)), "{k} dropped at {n}:\n{}", out.stdout);
        }
        if dropped.contains(&"history".to_string()) {
            assert!(!out.stdout.contains("## RECENT HISTORY"));
        }
        if dropped.contains(&"checkpoint-body".to_string()) && !dropped.contains(&"checkpoint".to_string()) {
            assert!(!out.stdout.contains("step three"), "{}", out.stdout);
            assert!(
                out.stdout.contains("\nbody omitted for budget — read .ai/local/state/checkpoints/"),
                "{}",
                out.stdout
            );
        }
        if dropped.contains(&"handover-state".to_string()) && !dropped.contains(&"handover".to_string()) {
            // Current State is cut with a visible marker, Objective and Next Action stay
            assert!(!out.stdout.contains("state twelve"), "{}", out.stdout);
            assert!(out.stdout.contains("Write the regression test.") && out.stdout.contains("Fix the callback."));
            if !dropped.contains(&"handover-body".to_string()) {
                assert!(out.stdout.contains("state five\n(Current State truncated for the context budget: 5 of 12 lines — read .ai/local/state/handovers/"), "{}", out.stdout);
            }
        }
        if dropped.contains(&"handover-body".to_string()) && !dropped.contains(&"handover".to_string()) {
            assert!(!out.stdout.contains("Reproduced."), "{}", out.stdout);
            assert!(out.stdout.contains("Write the regression test."), "the Next Action stays:\n{}", out.stdout);
            assert!(
                out.stdout.contains("\nbody omitted for budget — read .ai/local/state/handovers/"),
                "{}",
                out.stdout
            );
        }
        if seen.last() != Some(&dropped) {
            seen.push(dropped);
        }
    }
    assert_eq!(seen.len(), DROP_ORDER.len() + 1, "every stage of the drop order was reached: {seen:?}");
    // Exit 10 only when git/task/profile/questions alone exceed N: the count the refusal names
    // is exactly the document holding those four and nothing else.
    let refused = context(&r, min_ok - 1).code(10);
    let need: usize = refused.stderr.split("need ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert_eq!(need, min_ok, "{}", refused.stderr);
    let at_need = r.mj(&["context", "--json", "--budget-lines", &need.to_string()]).ok();
    assert_eq!(json(&at_need).ids(), ["git", "task", "profile", "questions"]);
}

#[test]
fn item_20_json_has_the_report_shape_and_matches_the_text_selection() {
    let env = TestEnv::new();
    let (r, id) = rich_repo(&env);
    for n in [300, 60, 50] {
        let text = context(&r, n).ok().stdout;
        let out = r.mj(&["context", "--json", "--budget-lines", &n.to_string()]).ok();
        assert!(!out.stdout.contains("\"provider\""), "no --for, no provider key");
        let j = json(&out);
        assert_eq!((j.schema, j.generated_at.as_str()), (1, "2026-09-03T20:00:00Z"));
        assert_eq!(j.git.branch, "main");
        assert_eq!(j.git.head, r.head());
        assert_eq!(j.git.working_tree, "dirty");
        assert_eq!(j.git.task_record.as_deref(), Some("exact"));
        let task = j.task.as_ref().expect("the active task");
        assert_eq!(task.id, id);
        assert_eq!(task.scope, ["lib"]);
        assert_eq!(task.profile, "debugging");
        let mut heads = Vec::new();
        for s in &j.sections {
            let t = &s.text;
            assert_eq!(s.lines, t.lines().count(), "{t}");
            assert!(text.contains(&format!("\n\n{t}\n\n")), "section {} is printed verbatim:\n{text}", s.id);
            heads.push(t.lines().next().unwrap().to_string());
        }
        assert_eq!(heads, headings(&text), "same sections, same order");
        let ex: Vec<String> = j.excluded.iter().map(|e| format!("- {} — {}", e.item, e.reason)).collect();
        assert_eq!(ex, excluded(&text));
        let (lines, limit, dropped) = budget(&text);
        assert_eq!((j.budget.lines, j.budget.limit), (lines, limit));
        assert_eq!(j.budget.dropped, dropped);
        assert_eq!(lines, text.lines().count());
    }
    // Under --json a refusal leaves stdout empty and prints one JSON error on stderr.
    let out = r.mj(&["context", "--json", "--budget-lines", "5"]).code(10);
    assert!(out.stdout.is_empty());
    assert_eq!(doc::<ErrorDoc>(&out.stderr).error.exit, 10);
}

#[test]
fn item_21_routine_excludes_decisions_and_deep_work_reads_the_repository() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let a = r.start("first");
    r.mj(&["decision", "add", "Decision of the first task", "--why", "w"]).ok();
    let out = r.mj(&["context"]).ok().stdout;
    assert!(
        out.contains(
            "## DECISIONS (1 most recent for this task)\n- 2026-09-03 — Decision of the first task — why: w\n"
        ),
        "{out}"
    );
    r.mj_in(&["handover", "--close"], HANDOVER).ok();

    r.mj(&["start", "second", "--scope", "lib", "--profile", "routine"]).ok();
    r.mj(&["decision", "add", "Decision of the routine task", "--why", "w"]).ok();
    let out = r.mj(&["context"]).ok().stdout;
    assert!(!out.contains("## DECISIONS"), "{out}");
    let ex = excluded(&out);
    assert!(ex.iter().any(|l| l.starts_with("- decisions — ") && l.contains("context.decisions: false")), "{ex:?}");
    assert!(ex.iter().any(|l| l.starts_with("- files — ") && l.contains("context.relevant_files: false")), "{ex:?}");
    assert!(
        ex.iter().any(|l| l.starts_with("- history — ") && l.contains("context.recent_history_depth: 0")),
        "{ex:?}"
    );
    r.mj_in(&["handover", "--close"], HANDOVER).ok();

    r.mj(&["start", "third", "--scope", "lib", "--profile", "deep-work"]).ok();
    let out = r.mj(&["context"]).ok().stdout;
    assert!(out.contains("## DECISIONS (2 most recent in this repository)\n- 2026-09-03 — Decision of the routine task — why: w\n- 2026-09-03 — Decision of the first task — why: w\n"), "{out}");
    assert!(out.contains("## RECENT HISTORY (last "), "deep-work reads history:\n{out}");
    assert!(!out.contains(&format!("id: {a}")), "the task shown is the active one");
}

#[test]
fn stale_handover_is_history_and_its_next_action_is_withheld() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.start("t");
    r.mj_in(&["handover"], HANDOVER).ok();
    r.commit_file("lib/a.rs", "x\n");
    let fresh = r.mj(&["context"]).ok().stdout;
    assert!(fresh.contains("# Next Action\nWrite the regression test.\n"), "{fresh}");
    assert!(!fresh.contains("HISTORY:"));
    env.set_now("2026-09-09T20:00:00Z");
    let out = r.mj(&["context"]).ok().stdout;
    let section: String =
        out.split("\n\n").find(|b| b.starts_with("## LATEST COMPATIBLE HANDOVER (")).unwrap().to_string();
    assert!(section.contains("HISTORY: this handover is stale"), "{section}");
    assert!(section.contains("Git state: advanced"), "{section}");
    assert!(section.contains("(6d ago)"), "{section}");
    assert!(section.contains("Freshness: stale — 6d old, past session.freshness.stale_minutes"), "{section}");
    assert!(section.contains("(Next Action withheld: stale, 6d old"), "{section}");
    assert!(!section.contains("Write the regression test."), "{section}");
    let j = json(&r.mj(&["context", "--json"]).ok());
    assert!(!j.section("handover").expect("a handover section").text.contains("Write the regression test."));
}

#[test]
fn missing_handover_is_named_as_absence() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.start("t");
    // A handover on another branch never resolves here.
    r.git(&["checkout", "-q", "-b", "other"]);
    r.mj_in(&["handover"], HANDOVER).ok();
    r.git(&["checkout", "-q", "main"]);
    let out = r.mj(&["context"]).ok().stdout;
    assert!(!out.contains("## LATEST COMPATIBLE HANDOVER"), "{out}");
    assert!(excluded(&out).contains(&NO_HANDOVER.to_string()), "{out}");
    assert!(excluded(&out).iter().any(|l| l.starts_with("- checkpoint — no checkpoint for task ")), "{out}");
}

#[test]
fn handover_of_the_task_first_then_of_any_task() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.start("first");
    r.mj_in(&["handover", "--close"], &HANDOVER.replace("Reproduced.", "first task state")).ok();
    let b = r.start("second");
    let out = r.mj(&["context"]).ok().stdout;
    assert!(out.contains("first task state"), "no handover of this task: any task's resolves\n{out}");
    env.set_now("2026-09-03T20:05:00Z");
    r.mj_in(&["handover"], &HANDOVER.replace("Reproduced.", "second task state")).ok();
    env.set_now("2026-09-03T20:10:00Z");
    r.mj_in(&["handover", "--no-task"], &HANDOVER.replace("Reproduced.", "newest, no task")).ok();
    let out = r.mj(&["context"]).ok().stdout;
    assert!(
        out.contains("second task state") && !out.contains("newest, no task"),
        "the task's own handover wins\n{out}"
    );
    assert!(out.contains(&format!("Task: {b}")), "{out}");
}

#[test]
fn provider_line_and_unknown_provider() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.write("CLAUDE.md", "one\ntwo\n");
    let out = r.mj(&["context", "--for", "claude-code"]).ok().stdout;
    let head: Vec<&str> = out.lines().take(4).collect();
    assert_eq!(
        head,
        [
            "# Majordomus context — 2026-09-03T20:00:00Z",
            "# a projection of durable state, not a source of truth: validate every line against git",
            "# provider claude-code — its always-loaded instructions are CLAUDE.md",
            ""
        ]
    );
    assert!(out.contains("- CLAUDE.md (2 lines; always loaded by claude-code)\n"), "{out}");
    assert!(!out.contains("one\ntwo"), "documents are named, not quoted");
    assert_eq!(budget(&out).0, out.lines().count());
    let j = json(&r.mj(&["context", "--json", "--for", "codex"]).ok());
    let p = j.provider.expect("--for names the provider");
    assert_eq!((p.name.as_str(), p.always_loaded.as_str()), ("codex", "AGENTS.md"));
    let out = r.mj(&["context", "--for", "vim"]).code(2);
    assert!(out.stdout.is_empty());
    assert!(out.stderr.contains("unknown provider \"vim\""), "{}", out.stderr);
    assert!(out.stderr.contains("claude-code, codex"), "{}", out.stderr);
}

#[test]
fn context_writes_nothing() {
    let env = TestEnv::new();
    let (r, _) = rich_repo(&env);
    r.write(".ai/repo/prompts/review.md", "Review the diff.\n");
    let ai = r.root.join(".ai");
    let before = snapshot(&ai);
    let ledger = r.read(".ai/local/state/ledger.jsonl");
    r.mj(&["context"]).ok();
    r.mj(&["context", "--json", "--for", "claude-code", "--prompt", "review"]).ok();
    r.mj(&["context", "--budget-lines", "3"]).code(10);
    r.mj(&["context", "--prompt", "missing"]).code(12);
    assert_eq!(r.read(".ai/local/state/ledger.jsonl"), ledger, "not even the ledger");
    assert!(snapshot(&ai) == before, "context changed files under .ai/");
}

#[test]
fn works_with_no_active_task() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let out = r.mj(&["context"]).ok().stdout;
    assert!(out.contains("## TASK\nnone active — run: git majordomus start \"<task>\" --scope <path>\n"), "{out}");
    assert!(out.contains("task_record: none (no active task)"), "{out}");
    assert!(out.contains("## PROFILE implementation\n"), "the default profile applies: {out}");
    assert!(
        out.contains("## OPEN QUESTIONS (0 unresolved — every one refuses finish --outcome completed)\n- none\n"),
        "{out}"
    );
    assert!(out.contains("- README.md (1 line)"), "the root chain without a scope: {out}");
    let ex = excluded(&out);
    assert!(ex.contains(&NO_HANDOVER.to_string()), "{ex:?}");
    assert!(ex.iter().any(|l| l.starts_with("- files — no active task")), "{ex:?}");
    let j = json(&r.mj(&["context", "--json"]).ok());
    assert!(j.task.is_none());
    assert!(j.git.task_record.is_none());
    assert_eq!(j.git.repository, ".git");
    // A finished task is not shown as the active one.
    r.start("t");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    let out = r.mj(&["context"]).ok().stdout;
    assert!(out.contains("none active"), "{out}");
    assert!(out.contains("## LATEST COMPATIBLE HANDOVER"), "any task's handover: {out}");
}

#[test]
fn failing_output_is_listed_under_excluded_for_debugging() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.mj(&["start", "t", "--scope", "lib", "--profile", "debugging"]).ok();
    let out = r.mj(&["context"]).ok().stdout;
    let ex = excluded(&out);
    assert!(
        ex.iter().any(|l| l.starts_with("- failing_output — ")
            && l.contains("failing_output: true")
            && l.contains("does not capture command output")),
        "{ex:?}"
    );
    assert!(out.contains("## REASONING\nhypothesis-driven: "), "{out}");
    let plain = env.ready_repo("q");
    plain.start("t");
    assert!(!plain.mj(&["context"]).ok().stdout.contains("failing_output"));
}

#[test]
fn prompt_is_appended_refused_or_excluded() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.write(".ai/repo/prompts/review.md", "Review the diff.\n\nBe brief.\n");
    r.write(".ai/repo/prompts/wrap.md", "Before\n{{CONTEXT}}\nAfter\n");
    let out = r.mj(&["context", "--prompt", "review"]).ok().stdout;
    assert!(out.contains("## PROMPT review\nReview the diff.\n\nBe brief.\n\n## EXCLUDED"), "{out}");
    assert_eq!(budget(&out).0, out.lines().count());
    let out = r.mj(&["context", "--prompt", "wrap"]).ok().stdout;
    assert!(!out.contains("## PROMPT"), "{out}");
    assert!(excluded(&out).iter().any(|l| l.starts_with("- prompt — wrap ") && l.contains("{{CONTEXT}}")), "{out}");
    let out = r.mj(&["context", "--prompt", "absent"]).code(12);
    assert!(out.stderr.contains(".ai/repo/prompts/absent.md"), "{}", out.stderr);
    assert!(out.stderr.contains("hint: "), "{}", out.stderr);
    r.mj(&["context", "--prompt", "../policy"]).code(2);
    r.mj(&["context", "--prompt", "sub/x"]).code(2);
}

#[test]
fn scope_documents_files_and_questions() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.write("lib/auth/AGENTS.md", "a\nb\nc\n");
    r.write("lib/README.md", "x\n");
    r.write("docs/README.md", "not in scope\n");
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "-m", "docs"]);
    let policy = r.read(".ai/repo/policy.yaml").replace("max_list_items: 20", "max_list_items: 2");
    r.write(".ai/repo/policy.yaml", &policy);
    r.mj(&["start", "t", "--scope", "lib/auth,lib/README.md"]).ok();
    for q in ["one?", "two?", "three?"] {
        r.mj(&["question", "add", q]).ok();
    }
    r.commit_file("lib/auth/a.rs", "committed\n");
    r.write("lib/auth/b.rs", "porcelain\n");
    r.write("lib/auth/c.rs", "porcelain\n");
    r.write("docs/out.md", "out of scope\n");
    r.write(".ai/repo/prompts/p.md", "layer file\n");
    let out = r.mj(&["context"]).ok().stdout;
    assert!(out.contains("## CONTEXT DOCUMENTS (3, from the scope paths up to the root; not quoted)\n- lib/auth/AGENTS.md (3 lines)\n- lib/README.md (1 line)\n- README.md (1 line)\n"), "{out}");
    assert!(!out.contains("docs/README.md"), "{out}");
    assert!(out.contains("## OPEN QUESTIONS (3 unresolved"), "questions are never bounded by max_list_items: {out}");
    assert!(out.contains("three?"), "{out}");
    assert!(out.contains("## FILES TOUCHED IN SCOPE (3)\n- lib/auth/a.rs\n- lib/auth/b.rs\n... and 1 more (context.max_list_items)\n"), "{out}");
    assert!(!out.contains("docs/out.md") && !out.contains(".ai/repo/prompts/p.md\n"), "{out}");
}

#[test]
fn diverged_task_record_prints_a_warning() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.commit_file("lib/a.rs", "one\n");
    r.start("t");
    r.git(&["reset", "-q", "--hard", "HEAD~1"]);
    r.commit_file("lib/b.rs", "two\n");
    let out = r.mj(&["context"]).ok().stdout;
    assert!(out.contains("task_record: diverged (recorded head "), "{out}");
    assert!(out.contains("\nWARNING: the task was recorded on main at "), "{out}");
}

#[test]
fn without_the_layer_context_exits_12() {
    let env = TestEnv::new();
    let r = env.repo("bare");
    let out = r.mj(&["context"]).code(12);
    assert!(out.stderr.contains("hint: run git majordomus init"), "{}", out.stderr);
}

#[test]
fn a_task_profile_that_does_not_load_falls_back_to_the_default_with_a_warning() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.start("t");
    let current = r.read(".ai/local/state/current.yaml").replace("profile: implementation", "profile: gone");
    r.write(".ai/local/state/current.yaml", &current);
    let out = r.mj(&["context"]).ok();
    assert!(
        out.stdout.contains("profile: gone\n") && out.stdout.contains("## PROFILE implementation\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains("warning: unknown profile \"gone\"; context uses profiles.default (implementation)"),
        "{}",
        out.stderr
    );
}
