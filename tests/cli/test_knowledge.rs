//! Tests of knowledge: docs/REFERENCE.md#knowledge (candidate format, derivation table), docs/REFERENCE.md#knowledge (derive,
//! candidates, promote, reject, check), docs/REFERENCE.md#sessions (close derives), docs/REFERENCE.md#findings (doctor's knowledge rules)
//! and the "Knowledge:" acceptance bullet of docs/REFERENCE.md#store.

use crate::common::json::{self, findings};
use crate::common::snap::named;
use crate::common::{Repo, TestEnv};

const CANDIDATES: &str = ".ai/repo/knowledge/candidates";
const CURATED: &str = ".ai/repo/knowledge/curated";

fn sid_of(out: &str) -> String {
    out.split_whitespace().nth(1).unwrap().to_string()
}

/// Opens a hand episode; returns its id.
fn open(r: &Repo<'_>) -> String {
    sid_of(&r.mj(&["session", "start"]).ok().stdout)
}

/// Writes a note outside the repository; returns its absolute path.
fn note(r: &Repo<'_>, name: &str, body: &str) -> String {
    let p = r.root.parent().unwrap().join(name);
    std::fs::write(&p, body).unwrap();
    p.display().to_string()
}

/// `(file name, text)` of every file in a knowledge directory, sorted by name.
fn files(r: &Repo<'_>, dir: &str) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(r.root.join(dir))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| (e.file_name().into_string().unwrap(), std::fs::read_to_string(e.path()).unwrap()))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The candidate whose title is `title`: `(id, text)`.
#[track_caller]
fn by_title(r: &Repo<'_>, title: &str) -> (String, String) {
    let all = files(r, CANDIDATES);
    let hit = all.iter().find(|(_, t)| t.contains(&format!("\ntitle: \"{title}\"\n")));
    let (name, text) = hit.unwrap_or_else(|| {
        panic!("no candidate titled {title:?} among {:?}", all.iter().map(|(n, _)| n).collect::<Vec<_>>())
    });
    (name.trim_end_matches(".md").to_string(), text.clone())
}

/// The value of a top-level front-matter key (first occurrence).
fn field<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    text.lines().find_map(|l| l.strip_prefix(&format!("{key}: ")))
}

/// `text`'s lines sorted (candidates are listed and derived in id order, random in a test).
fn sorted(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort();
    lines.join("\n")
}

fn is_hex(s: &str) -> bool {
    s.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
}

fn events(r: &Repo<'_>, name: &str) -> Vec<serde_json::Value> {
    r.ledger().into_iter().filter(|l| l["event"] == name).collect()
}

/// Bytes of every candidate and curated file.
fn snapshot(r: &Repo<'_>) -> Vec<(String, String)> {
    let mut v = files(r, CANDIDATES);
    v.extend(files(r, CURATED).into_iter().map(|(n, t)| (format!("curated/{n}"), t)));
    v
}

#[test]
fn derive_without_an_episode_says_so_and_appends_nothing() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    // A decision outside any episode is no evidence of one.
    r.mj(&["decision", "add", "Use tabs", "--why", "w"]).ok();
    let out = r.mj(&["knowledge", "derive"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    knowledge derive: no episode (none open here and none named with --episode); nothing derived
    --- stderr
    --- exit 0
    ");
    assert!(events(&r, "knowledge.derived").is_empty());
    assert!(files(&r, CANDIDATES).is_empty());
    let out = r.mj(&["--json", "knowledge", "derive"]).ok().stdout;
    json::read("knowledge-derive.schema.json", &out);
    insta::assert_snapshot!(out, @r#"
    {
      "episode": null,
      "lines": [],
      "written": 0,
      "unchanged": 0,
      "skipped": 0
    }
    "#);
    assert!(events(&r, "knowledge.derived").is_empty());
    // Outside a repository / without the layer.
    let bare = env.repo("bare");
    bare.mj(&["knowledge", "derive"]).code(12);
}

#[test]
fn decision_becomes_a_convention_dated_by_its_evidence_day() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let ep = open(&r);
    let task = r.start("Fix the callback");
    r.mj(&["decision", "add", "Use tabs", "--why", "the linter wants them"]).ok();
    // Derived days later: the date is the day of the ledger line, not the clock.
    env.set_now("2026-09-07T09:30:00Z");
    let out = r.mj(&["knowledge", "derive"]).ok();
    let all = files(&r, CANDIDATES);
    assert_eq!(all.len(), 1, "{all:?}");
    let (name, text) = &all[0];
    let id = name.strip_suffix(".md").unwrap();
    let digest = id.strip_prefix(&format!("{ep}-")).unwrap_or_else(|| panic!("{id} is not <episode>-<digest>"));
    assert!(digest.len() == 12 && is_hex(digest), "{digest}");
    let path = format!("{CANDIDATES}/{name}");
    assert_eq!(out.stdout, format!("written {path}\nknowledge derive: 1 written, 0 unchanged, 0 skipped\n"));
    let expected = format!(
        "---\nschema: knowledge/v1\nid: {id}\nkind: knowledge\nclass: convention\ntitle: \"Use tabs\"\n\
         description: \"Decided because the linter wants them\"\nstatus: candidate\nepistemics: decided\n\
         date: 2026-09-03\ntags: [derived, decision]\nprovenance:\n  origin: extracted\n  \
         derived_from: [session:{ep}, decision:{task}]\nrelations: []\n---\n# Use tabs\nDecided because the linter wants them\n"
    );
    assert_eq!(text, &expected);
    // The ledger line: stamped with the episode, at the clock's time, naming what it wrote.
    let d = events(&r, "knowledge.derived");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0]["ts"], "2026-09-07T09:30:00Z");
    assert_eq!(d[0]["session"], ep.as_str());
    assert_eq!(d[0]["episode"], ep.as_str());
    assert_eq!(d[0]["written"], 1);
    assert_eq!(d[0]["unchanged"], 0);
    assert_eq!(d[0]["skipped"], 0);
    assert_eq!(d[0]["paths"], serde_json::json!([path]));
    // Never staged.
    assert_eq!(r.git(&["diff", "--cached", "--name-only"]), "");
}

#[test]
fn derivation_table_questions_and_finished_tasks() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let ep = open(&r);
    // question.resolved → fact/observed
    let t1 = r.start("one");
    r.mj(&["question", "add", "Which callback URL?"]).ok();
    r.mj(&["question", "resolve", "1", "--answer", "the staging one"]).ok();
    // blocked → lesson/inferred, the first line of the note's # Reason
    let n = note(&r, "blocked.md", "# Reason\n\nThe staging API is down.\nSecond line.\n\n# Next Action\nAsk ops.\n");
    r.mj(&["finish", "--outcome", "blocked", "--note", &n]).ok();
    // failed and no_match → lesson/inferred
    env.set_now("2026-09-04T08:00:00Z");
    let t2 = r.start("two");
    r.mj(&["finish", "--outcome", "failed", "--note", &note(&r, "failed.md", "# Reason\nThe fix broke the build.\n")])
        .ok();
    let t3 = r.start("three");
    r.mj(&[
        "finish",
        "--outcome",
        "no_match",
        "--note",
        &note(&r, "nomatch.md", "# Reason\nNo such endpoint exists.\n"),
    ])
    .ok();
    // completed with a verify command → fact/observed
    let t4 = r.start("four");
    r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).ok();
    // partial → nothing
    let t5 = r.start("five");
    r.mj(&["finish", "--outcome", "partial", "--note", &note(&r, "partial.md", "# Next Action\nGo on.\n")]).ok();

    env.set_now("2026-09-10T08:00:00Z");
    let out = r.mj(&["knowledge", "derive"]).ok();
    assert!(out.stdout.ends_with("knowledge derive: 5 written, 0 unchanged, 0 skipped\n"), "{}", out.stdout);
    assert_eq!(files(&r, CANDIDATES).len(), 5);

    let (_, q) = by_title(&r, "Which callback URL?");
    assert_eq!(field(&q, "class"), Some("fact"));
    assert_eq!(field(&q, "epistemics"), Some("observed"));
    assert_eq!(field(&q, "description"), Some("\"the staging one\""));
    assert_eq!(field(&q, "date"), Some("2026-09-03"));
    assert_eq!(field(&q, "tags"), Some("[derived, question]"));
    let ids = [("EP", ep.as_str()), ("T1", t1.as_str()), ("T2", t2.as_str()), ("T3", t3.as_str()), ("T4", t4.as_str())];
    insta::assert_snapshot!(named(&q, &ids), @r#"
    ---
    schema: knowledge/v1
    id: [EP]-[HEX]
    kind: knowledge
    class: fact
    title: "Which callback URL?"
    description: "the staging one"
    status: candidate
    epistemics: observed
    date: 2026-09-03
    tags: [derived, question]
    provenance:
      origin: extracted
      derived_from: [session:[EP], question:[T1]]
    relations: []
    ---
    # Which callback URL?
    the staging one
    "#);

    let (_, b) = by_title(&r, &format!("Task {t1} ended blocked"));
    assert_eq!(field(&b, "class"), Some("lesson"));
    assert_eq!(field(&b, "epistemics"), Some("inferred"));
    assert_eq!(field(&b, "description"), Some("\"The staging API is down.\""));
    assert_eq!(field(&b, "date"), Some("2026-09-03"));
    insta::assert_snapshot!(named(&b, &ids), @r#"
    ---
    schema: knowledge/v1
    id: [EP]-[HEX]
    kind: knowledge
    class: lesson
    title: "Task [T1] ended blocked"
    description: "The staging API is down."
    status: candidate
    epistemics: inferred
    date: 2026-09-03
    tags: [derived, task]
    provenance:
      origin: extracted
      derived_from: [session:[EP], task:[T1]]
    relations: []
    ---
    # Task [T1] ended blocked
    The staging API is down.
    "#);

    let (_, f) = by_title(&r, &format!("Task {t2} ended failed"));
    assert_eq!((field(&f, "class"), field(&f, "epistemics")), (Some("lesson"), Some("inferred")));
    assert_eq!(field(&f, "description"), Some("\"The fix broke the build.\""));
    assert_eq!(field(&f, "date"), Some("2026-09-04"));

    let (_, m) = by_title(&r, &format!("Task {t3} ended no_match"));
    assert_eq!((field(&m, "class"), field(&m, "epistemics")), (Some("lesson"), Some("inferred")));
    assert_eq!(field(&m, "description"), Some("\"No such endpoint exists.\""));

    let (_, c) = by_title(&r, &format!("Task {t4} completed and verified"));
    assert_eq!((field(&c, "class"), field(&c, "epistemics")), (Some("fact"), Some("observed")));
    insta::assert_snapshot!(named(&c, &ids), @r#"
    ---
    schema: knowledge/v1
    id: [EP]-[HEX]
    kind: knowledge
    class: fact
    title: "Task [T4] completed and verified"
    description: "`true` exited 0"
    status: candidate
    epistemics: observed
    date: 2026-09-04
    tags: [derived, task]
    provenance:
      origin: extracted
      derived_from: [session:[EP], task:[T4]]
    relations: []
    ---
    # Task [T4] completed and verified
    `true` exited 0
    "#);

    assert!(!files(&r, CANDIDATES).iter().any(|(_, t)| t.contains(&t5)), "partial derives nothing");
}

#[test]
fn derive_is_idempotent_dry_run_writes_nothing_and_json_parses() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let ep = open(&r);
    r.mj(&["decision", "add", "Use tabs", "--why", "w"]).ok();
    r.mj(&["decision", "add", "Use \"quotes\": carefully", "--why", "yaml"]).ok();
    // --dry-run: reports, writes nothing, appends nothing.
    let before = r.ledger().len();
    let out = r.mj(&["knowledge", "derive", "--dry-run"]).ok();
    assert_eq!(
        out.stdout.lines().filter(|l| l.starts_with(&format!("would write {CANDIDATES}/{ep}-"))).count(),
        2,
        "{}",
        out.stdout
    );
    assert!(!r.exists(CANDIDATES) || files(&r, CANDIDATES).is_empty());
    assert_eq!(r.ledger().len(), before);
    // First run writes.
    let out = r.mj(&["knowledge", "derive"]).ok();
    assert!(out.stdout.ends_with("knowledge derive: 2 written, 0 unchanged, 0 skipped\n"), "{}", out.stdout);
    let first = snapshot(&r);
    assert_eq!(first.len(), 2);
    // Second run, even at another time: only `unchanged`, identical bytes.
    env.set_now("2026-09-05T12:00:00Z");
    let out = r.mj(&["knowledge", "derive"]).ok();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", out.stdout);
    assert!(lines[..2].iter().all(|l| l.starts_with("unchanged ")), "{}", out.stdout);
    assert_eq!(lines[2], "knowledge derive: 0 written, 2 unchanged, 0 skipped");
    assert_eq!(snapshot(&r), first);
    let d = events(&r, "knowledge.derived");
    assert_eq!(d.len(), 2);
    assert_eq!((d[1]["written"].clone(), d[1]["unchanged"].clone()), (serde_json::json!(0), serde_json::json!(2)));
    assert_eq!(d[1]["paths"], serde_json::json!([]));
    // --dry-run on an up-to-date store: still nothing appended.
    let before = r.ledger().len();
    let out = r.mj(&["knowledge", "derive", "--dry-run"]).ok();
    assert!(out.stdout.lines().take(2).all(|l| l.starts_with("unchanged ")), "{}", out.stdout);
    assert_eq!(r.ledger().len(), before);
    // --json: the same verdicts.
    let out = r.mj(&["--json", "knowledge", "derive"]).ok().stdout;
    json::read("knowledge-derive.schema.json", &out);
    insta::assert_snapshot!(named(&out, &[("EP", &ep)]), @r#"
    {
      "episode": "[EP]",
      "lines": [
        [
          "unchanged",
          ".ai/repo/knowledge/candidates/[EP]-[HEX].md"
        ],
        [
          "unchanged",
          ".ai/repo/knowledge/candidates/[EP]-[HEX].md"
        ]
      ],
      "written": 0,
      "unchanged": 2,
      "skipped": 0
    }
    "#);
    assert_eq!(snapshot(&r), first);
    // A quoted title survives the round trip.
    let (_, t) = by_title(&r, "Use \\\"quotes\\\": carefully");
    insta::assert_snapshot!(named(&t, &[("EP", &ep)]), @r#"
    ---
    schema: knowledge/v1
    id: [EP]-[HEX]
    kind: knowledge
    class: convention
    title: "Use \"quotes\": carefully"
    description: "Decided because yaml"
    status: candidate
    epistemics: decided
    date: 2026-09-03
    tags: [derived, decision]
    provenance:
      origin: extracted
      derived_from: [session:[EP], decision:none]
    relations: []
    ---
    # Use "quotes": carefully
    Decided because yaml
    "#);
}

#[test]
fn only_lines_stamped_with_the_episode_count() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj(&["decision", "add", "Before any episode", "--why", "w"]).ok();
    let other = sid_of(&r.mj(&["session", "start", "--provider-session", "win-b"]).ok().stdout);
    let ep = open(&r); // the pointer now names the hand episode
    r.mj_env(&["decision", "add", "In the other window", "--why", "w"], "", &[("MAJORDOMUS_SESSION_KEY", "win-b")])
        .ok();
    r.mj(&["decision", "add", "In this episode", "--why", "w"]).ok();
    let out = r.mj(&["knowledge", "derive"]).ok();
    assert!(out.stdout.ends_with("knowledge derive: 1 written, 0 unchanged, 0 skipped\n"), "{}", out.stdout);
    let all = files(&r, CANDIDATES);
    assert_eq!(all.len(), 1, "{all:?}");
    let (id, text) = by_title(&r, "In this episode");
    assert!(id.starts_with(&format!("{ep}-")));
    let ids = [("EP", ep.as_str()), ("OTHER", other.as_str())];
    insta::assert_snapshot!(named(&text, &ids), @r#"
    ---
    schema: knowledge/v1
    id: [EP]-[HEX]
    kind: knowledge
    class: convention
    title: "In this episode"
    description: "Decided because w"
    status: candidate
    epistemics: decided
    date: 2026-09-03
    tags: [derived, decision]
    provenance:
      origin: extracted
      derived_from: [session:[EP], decision:none]
    relations: []
    ---
    # In this episode
    Decided because w
    "#);
    // The other window's episode, named explicitly, derives only its own line.
    r.mj(&["knowledge", "derive", "--episode", &other]).ok();
    assert_eq!(files(&r, CANDIDATES).len(), 2);
    let (id, text) = by_title(&r, "In the other window");
    assert!(id.starts_with(&format!("{other}-")));
    insta::assert_snapshot!(named(&text, &ids), @r#"
    ---
    schema: knowledge/v1
    id: [OTHER]-[HEX]
    kind: knowledge
    class: convention
    title: "In the other window"
    description: "Decided because w"
    status: candidate
    epistemics: decided
    date: 2026-09-03
    tags: [derived, decision]
    provenance:
      origin: extracted
      derived_from: [session:[OTHER], decision:none]
    relations: []
    ---
    # In the other window
    Decided because w
    "#);
    assert!(!files(&r, CANDIDATES).iter().any(|(_, t)| t.contains("Before any episode")));
    // Under the other window's key, derive defaults to that episode: the ledger line says so.
    r.mj_env(&["knowledge", "derive"], "", &[("MAJORDOMUS_SESSION_KEY", "win-b")]).ok();
    let last = events(&r, "knowledge.derived").pop().unwrap();
    assert_eq!(last["episode"], other.as_str());
    assert_eq!(last["session"], other.as_str());
    assert_eq!(last["unchanged"], 1);
    // An episode nothing was stamped with derives nothing (and still says so in the ledger).
    let out = r.mj(&["knowledge", "derive", "--episode", "s-20990101000000-0000"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    knowledge derive: 0 written, 0 unchanged, 0 skipped
    --- stderr
    --- exit 0
    ");
    assert_eq!(files(&r, CANDIDATES).len(), 2);
}

#[test]
fn episode_commits_touching_adrs_or_rules_add_commit_and_relation() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let before = r.commit_file(".ai/repo/adrs/0000-before.md", "# Before the episode\n");
    let ep = open(&r);
    r.mj(&["decision", "add", "Use tabs", "--why", "w"]).ok();
    let adr = r.commit_file(".ai/repo/adrs/0001-tabs.md", "# Tabs\n");
    let lib = r.commit_file("lib/x.rs", "fn x() {}\n");
    let rule = r.commit_file(".ai/repo/rules/style.md", "tabs\n");
    r.mj(&["knowledge", "derive"]).ok();
    let (_, t) = by_title(&r, "Use tabs");
    let ids = [("EP", ep.as_str()), ("ADR", adr.as_str()), ("RULE", rule.as_str()), ("BEFORE", &before), ("LIB", &lib)];
    insta::assert_snapshot!(named(&t, &ids), @r#"
    ---
    schema: knowledge/v1
    id: [EP]-[HEX]
    kind: knowledge
    class: convention
    title: "Use tabs"
    description: "Decided because w"
    status: candidate
    epistemics: decided
    date: 2026-09-03
    tags: [derived, decision]
    provenance:
      origin: extracted
      derived_from: [session:[EP], decision:none, commit:[ADR], commit:[RULE]]
    relations:
      - type: relates_to
        target: "file:.ai/repo/adrs/0001-tabs.md"
      - type: relates_to
        target: "file:.ai/repo/rules/style.md"
    ---
    # Use tabs
    Decided because w
    "#);
    // Same ledger + same git → same bytes; after close (the closed record names the start head) too.
    let first = snapshot(&r);
    r.mj(&["knowledge", "derive"]).ok();
    assert_eq!(snapshot(&r), first);
    r.mj(&["session", "close"]).ok();
    assert_eq!(snapshot(&r), first, "close re-derives the same bytes");
    r.mj(&["knowledge", "derive", "--episode", &ep]).ok();
    assert_eq!(snapshot(&r), first);
}

#[test]
fn a_line_with_a_transcript_marker_is_skipped_and_reported() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let ep = open(&r);
    r.mj(&["decision", "add", "Use tabs", "--why", "w"]).ok();
    let line = format!(
        "{{\"ts\":\"2026-09-03T20:00:00Z\",\"event\":\"decision.recorded\",\"head\":\"{}\",\"branch\":\"main\",\"by\":\"git-majordomus/0.1.0\",\"session\":\"{ep}\",\"task_id\":\"none\",\"decision\":\"Leaked from a chat\",\"messages\":[{{\"role\":\"user\",\"content\":\"hi\"}}]}}\n",
        r.head()
    );
    let mut f = std::fs::OpenOptions::new().append(true).open(r.state("ledger.jsonl")).unwrap();
    std::io::Write::write_all(&mut f, line.as_bytes()).unwrap();
    drop(f);
    let out = r.mj(&["knowledge", "derive"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    skipped (transcript) a ledger line carrying a transcript marker
    written .ai/repo/knowledge/candidates/s-[ID]-[HEX].md
    knowledge derive: 1 written, 0 unchanged, 1 skipped
    --- stderr
    --- exit 0
    ");
    let all = files(&r, CANDIDATES);
    assert_eq!(all.len(), 1);
    insta::assert_snapshot!(named(&all[0].1, &[("EP", &ep)]), @r#"
    ---
    schema: knowledge/v1
    id: [EP]-[HEX]
    kind: knowledge
    class: convention
    title: "Use tabs"
    description: "Decided because w"
    status: candidate
    epistemics: decided
    date: 2026-09-03
    tags: [derived, decision]
    provenance:
      origin: extracted
      derived_from: [session:[EP], decision:none]
    relations: []
    ---
    # Use tabs
    Decided because w
    "#);
    let d = events(&r, "knowledge.derived").pop().unwrap();
    assert_eq!(d["skipped"], 1);
    assert_eq!(d["written"], 1);
    // Reported again (never derived) on the next run.
    let out = r.mj(&["knowledge", "derive"]).ok();
    assert!(out.stdout.ends_with("knowledge derive: 0 written, 1 unchanged, 1 skipped\n"), "{}", out.stdout);
    assert_eq!(files(&r, CANDIDATES).len(), 1);
}

#[test]
fn candidates_lists_text_and_json() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    assert_eq!(r.mj(&["knowledge", "candidates"]).ok().stdout, "no knowledge candidates\n");
    let out = r.mj(&["--json", "knowledge", "candidates"]).ok().stdout;
    json::read("knowledge-candidates.schema.json", &out);
    insta::assert_snapshot!(out, @r#"
    {
      "candidates": []
    }
    "#);
    let ep = open(&r);
    let task = r.start("t");
    r.mj(&["decision", "add", "Use tabs", "--why", "w"]).ok();
    r.mj(&["question", "add", "Which URL?"]).ok();
    r.mj(&["question", "resolve", "1", "--answer", "staging"]).ok();
    r.mj(&["knowledge", "derive"]).ok();
    let (dec, _) = by_title(&r, "Use tabs");
    let (q, _) = by_title(&r, "Which URL?");
    let out = r.mj(&["knowledge", "candidates"]).ok().stdout;
    // Listed by id, random here: sorted by name.
    let mut lines: Vec<String> = named(&out, &[("DEC", &dec), ("Q", &q)]).lines().map(str::to_string).collect();
    lines.sort();
    insta::assert_snapshot!(lines.join("\n"), @"
    [DEC]  candidate  convention Use tabs
    [Q]  candidate  fact       Which URL?
    ");
    // (sorted by title: listed in id order, random here)
    let mut v =
        json::read("knowledge-candidates.schema.json", &r.mj(&["--json", "knowledge", "candidates"]).ok().stdout);
    v["candidates"].as_array_mut().expect("candidates").sort_by_key(|k| k["title"].to_string());
    let ids = [("DEC", dec.as_str()), ("Q", &q), ("EP", &ep), ("TASK", &task)];
    insta::assert_snapshot!(named(&format!("{v:#}"), &ids), @r#"
    {
      "candidates": [
        {
          "id": "[DEC]",
          "class": "convention",
          "title": "Use tabs",
          "description": "Decided because w",
          "status": "candidate",
          "epistemics": "decided",
          "date": "2026-09-03",
          "tags": [
            "derived",
            "decision"
          ],
          "derived_from": [
            "session:[EP]",
            "decision:[TASK]"
          ],
          "relations": [],
          "superseded_by": null
        },
        {
          "id": "[Q]",
          "class": "fact",
          "title": "Which URL?",
          "description": "staging",
          "status": "candidate",
          "epistemics": "observed",
          "date": "2026-09-03",
          "tags": [
            "derived",
            "question"
          ],
          "derived_from": [
            "session:[EP]",
            "question:[TASK]"
          ],
          "relations": [],
          "superseded_by": null
        }
      ]
    }
    "#);
}

#[test]
fn promote_moves_to_curated_verified_and_is_never_rederived() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let ep = open(&r);
    r.mj(&["decision", "add", "Use tabs", "--why", "the linter wants them"]).ok();
    r.mj(&["decision", "add", "Keep the API", "--why", "clients"]).ok();
    r.mj(&["knowledge", "derive"]).ok();
    let (id, original) = by_title(&r, "Use tabs");
    let (other, _) = by_title(&r, "Keep the API");
    let cand = format!("{CANDIDATES}/{id}.md");
    env.set_now("2026-09-08T10:00:00Z");
    // Refusals first: nothing moves.
    r.mj_in(&["knowledge", "promote", &id], "").code(10);
    r.mj_in(&["knowledge", "promote", &id], "  \n\n").code(10);
    let out = r.mj_in(&["knowledge", "promote", &id], "Human: is this true?\nAssistant: yes\n").code(10);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: knowledge promote: the evidence looks like a transcript; state the evidence instead
    --- exit 10
    ");
    let out = r.mj_in(&["knowledge", "promote", &id, "--class", "rumour"], "The linter config says so.\n").code(10);
    insta::assert_snapshot!(out.shown(), @r#"
    --- stderr
    error: knowledge promote: unknown class "rumour"; use one of fact, convention, constraint, memory, lesson
    --- exit 10
    "#);
    r.mj_in(&["knowledge", "promote", "nope"], "evidence\n").code(12);
    r.mj_in(&["knowledge", "promote", "../../etc/passwd"], "evidence\n").code(12);
    r.mj_in(&["--json", "knowledge", "promote", &id], "evidence\n").code(2);
    assert_eq!(r.read(&cand), original);
    assert!(!r.exists(CURATED) || files(&r, CURATED).is_empty());
    assert!(events(&r, "knowledge.promoted").is_empty());
    // Promote.
    let out = r
        .mj_in(
            &["knowledge", "promote", &id, "--class", "constraint"],
            "The linter config in .editorconfig requires tabs.\n",
        )
        .ok();
    let dest = format!("{CURATED}/{id}.md");
    assert_eq!(out.stdout.trim_end().lines().last().unwrap(), dest);
    assert!(!r.exists(&cand));
    let text = r.read(&dest);
    assert_eq!(field(&text, "id"), Some(id.as_str()));
    assert_eq!(field(&text, "status"), Some("verified"));
    assert_eq!(field(&text, "class"), Some("constraint"));
    assert_eq!(field(&text, "epistemics"), Some("decided"));
    assert_eq!(field(&text, "date"), Some("2026-09-08"), "date is today");
    insta::assert_snapshot!(named(&text, &[("EP", &ep), ("ID", &id)]), @r#"
    ---
    schema: knowledge/v1
    id: [EP]-[HEX]
    kind: knowledge
    class: constraint
    title: "Use tabs"
    description: "Decided because the linter wants them"
    status: verified
    epistemics: decided
    date: 2026-09-08
    tags: [derived, decision]
    provenance:
      origin: extracted
      derived_from: [session:[EP], decision:none]
    relations: []
    ---
    # Use tabs
    Decided because the linter wants them

    # Evidence
    The linter config in .editorconfig requires tabs.
    "#);
    let p = events(&r, "knowledge.promoted");
    assert_eq!(p.len(), 1);
    assert_eq!(p[0]["id"], id.as_str());
    assert_eq!(p[0]["path"], dest.as_str());
    assert_eq!(r.git(&["diff", "--cached", "--name-only"]), "", "never staged");
    // Promoting again → 10 (not a candidate any more); rejecting it too.
    r.mj_in(&["knowledge", "promote", &id], "more evidence\n").code(10);
    r.mj(&["knowledge", "reject", &id, "--reason", "x"]).code(10);
    // Derive again: skipped (promoted), never re-created.
    let curated = r.read(&dest);
    let out = r.mj(&["knowledge", "derive"]).ok();
    let ids = [("ID", id.as_str()), ("OTHER", other.as_str())];
    insta::assert_snapshot!(sorted(&named(&out.stdout, &ids)), @"
    knowledge derive: 0 written, 1 unchanged, 1 skipped
    skipped (promoted) .ai/repo/knowledge/candidates/[ID].md
    unchanged .ai/repo/knowledge/candidates/[OTHER].md
    ");
    assert!(!r.exists(&cand));
    assert_eq!(r.read(&dest), curated);
    insta::assert_snapshot!(named(&r.mj(&["knowledge", "candidates"]).ok().stdout, &ids), @"[OTHER]  candidate  convention Keep the API");
    // The promoted record's own file is a valid store entry.
    r.mj(&["knowledge", "check"]).ok();
    // Without --class the candidate's class is kept.
    r.mj_in(&["knowledge", "promote", &other], "Clients depend on it.\n").ok();
    assert_eq!(field(&r.read(&format!("{CURATED}/{other}.md")), "class"), Some("convention"));
}

#[test]
fn reject_marks_superseded_in_place_and_is_never_rederived() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    open(&r);
    r.mj(&["decision", "add", "Use spaces", "--why", "habit"]).ok();
    r.mj(&["decision", "add", "Use tabs", "--why", "the linter"]).ok();
    r.mj(&["decision", "add", "Use CRLF", "--why", "windows"]).ok();
    r.mj(&["knowledge", "derive"]).ok();
    let (a, original) = by_title(&r, "Use spaces");
    let (b, _) = by_title(&r, "Use tabs");
    let (c, _) = by_title(&r, "Use CRLF");
    let path = format!("{CANDIDATES}/{a}.md");
    // Refusals.
    r.mj(&["knowledge", "reject", &a, "--reason", ""]).code(2);
    r.mj(&["knowledge", "reject", &a, "--reason", "   "]).code(2);
    r.mj(&["knowledge", "reject", &a]).code(2);
    let out = r.mj(&["knowledge", "reject", &a, "--reason", "why", "--by", "s-nothing-000000000000"]).code(10);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: knowledge reject: --by s-nothing-[HEX] names no other knowledge record
    --- exit 10
    ");
    r.mj(&["knowledge", "reject", &a, "--reason", "why", "--by", &a]).code(10);
    r.mj(&["knowledge", "reject", "nope", "--reason", "why"]).code(12);
    r.mj(&["--json", "knowledge", "reject", &a, "--reason", "why"]).code(2);
    assert_eq!(r.read(&path), original);
    assert!(events(&r, "knowledge.rejected").is_empty());
    // Reject in place, superseded by b.
    let out = r.mj(&["knowledge", "reject", &a, "--reason", "the linter wants tabs", "--by", &b]).ok();
    assert_eq!(out.stdout.trim_end().lines().last().unwrap(), path);
    let text = r.read(&path);
    assert_eq!(field(&text, "status"), Some("superseded"));
    assert_eq!(field(&text, "superseded_by"), Some(b.as_str()));
    assert_eq!(field(&text, "id"), Some(a.as_str()));
    let ids = [("A", a.as_str()), ("B", b.as_str()), ("C", c.as_str())];
    insta::assert_snapshot!(named(&text, &ids), @r#"
    ---
    schema: knowledge/v1
    id: [A]
    kind: knowledge
    class: convention
    title: "Use spaces"
    description: "Decided because habit"
    status: superseded
    epistemics: decided
    date: 2026-09-03
    tags: [derived, decision]
    provenance:
      origin: extracted
      derived_from: [session:s-[ID], decision:none]
    relations: []
    superseded_by: [B]
    ---
    # Use spaces
    Decided because habit

    # Rejected
    the linter wants tabs
    "#);
    let rej = events(&r, "knowledge.rejected");
    assert_eq!(rej.len(), 1);
    assert_eq!(rej[0]["id"], a.as_str());
    assert_eq!(rej[0]["reason"], "the linter wants tabs");
    assert_eq!(rej[0]["superseded_by"], b.as_str());
    // Rejecting again → 10, promoting a superseded one → 10; the file is untouched.
    r.mj(&["knowledge", "reject", &a, "--reason", "again"]).code(10);
    r.mj_in(&["knowledge", "promote", &a], "evidence\n").code(10);
    assert_eq!(r.read(&path), text);
    // Without --by: superseded, no superseded_by.
    r.mj(&["knowledge", "reject", &c, "--reason", "no windows here"]).ok();
    let ctext = r.read(&format!("{CANDIDATES}/{c}.md"));
    assert_eq!(field(&ctext, "status"), Some("superseded"));
    insta::assert_snapshot!(named(&ctext, &ids), @r#"
    ---
    schema: knowledge/v1
    id: [C]
    kind: knowledge
    class: convention
    title: "Use CRLF"
    description: "Decided because windows"
    status: superseded
    epistemics: decided
    date: 2026-09-03
    tags: [derived, decision]
    provenance:
      origin: extracted
      derived_from: [session:s-[ID], decision:none]
    relations: []
    ---
    # Use CRLF
    Decided because windows

    # Rejected
    no windows here
    "#);
    assert!(events(&r, "knowledge.rejected")[1]["superseded_by"].is_null());
    // Derive again: skipped (superseded), the file keeps its bytes.
    let out = r.mj(&["knowledge", "derive"]).ok();
    insta::assert_snapshot!(sorted(&named(&out.stdout, &ids)), @"
    knowledge derive: 0 written, 1 unchanged, 2 skipped
    skipped (superseded) .ai/repo/knowledge/candidates/[A].md
    skipped (superseded) .ai/repo/knowledge/candidates/[C].md
    unchanged .ai/repo/knowledge/candidates/[B].md
    ");
    assert_eq!(r.read(&path), text);
    // The list shows the status.
    let list = r.mj(&["knowledge", "candidates"]).ok().stdout;
    insta::assert_snapshot!(sorted(&named(&list, &ids)), @"
    [A]  superseded convention Use spaces
    [B]  candidate  convention Use tabs
    [C]  superseded convention Use CRLF
    ");
    r.mj(&["knowledge", "check"]).ok();
    // A curated record may be named by --by.
    r.mj_in(&["knowledge", "promote", &b], "The linter config.\n").ok();
    open_again_and_reject_by_curated(&r, &b);
}

/// A later episode derives a candidate that a curated record (`by`) supersedes.
fn open_again_and_reject_by_curated(r: &Repo<'_>, by: &str) {
    r.mj(&["session", "close"]).ok();
    open(r);
    r.mj(&["decision", "add", "Use two spaces", "--why", "style"]).ok();
    r.mj(&["knowledge", "derive"]).ok();
    let (d, _) = by_title(r, "Use two spaces");
    r.mj(&["knowledge", "reject", &d, "--reason", "tabs are verified", "--by", by]).ok();
    assert_eq!(field(&r.read(&format!("{CANDIDATES}/{d}.md")), "superseded_by"), Some(by));
}

#[test]
fn bare_knowledge_is_a_usage_error() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.mj(&["knowledge"]).code(2);
    r.mj(&["knowledge", "frobnicate"]).code(2);
    r.mj(&["--json", "knowledge", "frobnicate"]).code(2);
}

#[test]
fn session_close_derives_knowledge_unless_the_policy_says_no() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    let ep = open(&r);
    r.mj(&["decision", "add", "Use tabs", "--why", "w"]).ok();
    r.mj(&["session", "close"]).ok();
    let ledger = r.ledger();
    let derived = ledger.iter().position(|l| l["event"] == "knowledge.derived").expect("close derives knowledge");
    let closed = ledger.iter().position(|l| l["event"] == "session.closed").unwrap();
    assert!(derived < closed, "knowledge.derived precedes session.closed");
    assert_eq!(ledger[derived]["session"], ep.as_str(), "stamped with the episode");
    assert_eq!(ledger[derived]["episode"], ep.as_str());
    assert_eq!(ledger[derived]["written"], 1);
    let (id, _) = by_title(&r, "Use tabs");
    assert!(id.starts_with(&format!("{ep}-")));

    // knowledge_on_end: false → close derives nothing.
    let policy = r.read(".ai/repo/policy.yaml");
    assert!(policy.lines().any(|l| l.trim() == "knowledge_on_end: true"), "{policy}");
    r.write(".ai/repo/policy.yaml", &policy.replace("knowledge_on_end: true", "knowledge_on_end: false"));
    let ep2 = open(&r);
    r.mj(&["decision", "add", "Use CRLF", "--why", "w"]).ok();
    r.mj(&["session", "close"]).ok();
    assert!(!events(&r, "knowledge.derived").iter().any(|l| l["episode"] == ep2.as_str()));
    assert_eq!(events(&r, "knowledge.derived").len(), 1);
    assert_eq!(files(&r, CANDIDATES).len(), 1, "only Use tabs");
    // Closed episodes may still be derived by name.
    r.mj(&["knowledge", "derive", "--episode", &ep2]).ok();
    let (id2, _) = by_title(&r, "Use CRLF");
    assert!(id2.starts_with(&format!("{ep2}-")));
    // No session key on a derive outside any episode.
    assert!(events(&r, "knowledge.derived").pop().unwrap().get("session").is_none());
}

#[test]
fn knowledge_check_ok_on_a_healthy_store_and_fail_on_an_id_mismatch() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let out = r.mj(&["knowledge", "check"]).ok();
    assert!(out.stdout.starts_with("OK knowledge"), "{}", out.stdout);
    let ep = open(&r);
    r.mj(&["decision", "add", "Use tabs", "--why", "w"]).ok();
    r.mj(&["knowledge", "derive"]).ok();
    let out = r.mj(&["knowledge", "check"]).ok();
    insta::assert_snapshot!(named(&out.shown(), &[("EP", &ep)]), @"
    OK knowledge-integrity .ai/repo/knowledge — every knowledge record parses and sits in its directory  [reproduce: git majordomus knowledge candidates]
    OK knowledge candidates-reviewed — 1 candidates awaiting review, cap 40  [reproduce: git majordomus knowledge candidates]
    --- stderr
    --- exit 0
    ");
    let v = findings(&r.mj(&["--json", "knowledge", "check"]).ok().stdout);
    assert!(v.iter().all(|f| f["level"] != "FAIL"), "{v:?}");
    // A copy under another name: its id no longer matches its file name.
    let (id, text) = by_title(&r, "Use tabs");
    let wrong = format!("{CANDIDATES}/{ep}-000000000000.md");
    r.write(&wrong, &text);
    let out = r.mj(&["knowledge", "check"]).code(10);
    insta::assert_snapshot!(named(&out.shown(), &[("EP", &ep), ("ID", &id)]), @"
    FAIL knowledge-integrity .ai/repo/knowledge/candidates/[EP]-[HEX].md — id does not match the file name [EP]-[HEX]  [reproduce: git majordomus knowledge check]
    OK knowledge candidates-reviewed — 1 candidates awaiting review, cap 40  [reproduce: git majordomus knowledge candidates]
    --- stderr
    --- exit 10
    ");
    let out = r.mj(&["--json", "knowledge", "check"]).code(10);
    let v = findings(&out.stdout);
    assert!(v.iter().any(|f| f["level"] == "FAIL" && f["subject"] == wrong), "{v:?}");
    // doctor says the same (knowledge-integrity).
    let out = r.mj(&["doctor"]).code(10);
    assert!(out.stdout.lines().any(|l| l.starts_with(&format!("FAIL knowledge-integrity {wrong}"))), "{}", out.stdout);
    std::fs::remove_file(r.root.join(&wrong)).unwrap();
    r.mj(&["knowledge", "check"]).ok();
    // An unparseable file, and a verified record left among the candidates, are FAILs too.
    r.write(&format!("{CANDIDATES}/garbage.md"), "not a record\n");
    r.mj(&["knowledge", "check"]).code(10);
    std::fs::remove_file(r.root.join(format!("{CANDIDATES}/garbage.md"))).unwrap();
    let verified_here = text.replace("status: candidate", "status: verified");
    r.write(&format!("{CANDIDATES}/{id}.md"), &verified_here);
    r.mj(&["knowledge", "check"]).code(10);
}

#[test]
fn doctor_stopped_writer_rule() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    // No knowledge.derived anywhere: the rule is skipped, even for an old close.
    let policy = r.read(".ai/repo/policy.yaml");
    // The rule counts stale_minutes; this test's ages are set for 48 h.
    let policy = policy.replace("stale_minutes: 5760", "stale_minutes: 2880");
    r.write(".ai/repo/policy.yaml", &policy.replace("knowledge_on_end: true", "knowledge_on_end: false"));
    let first = open(&r);
    r.mj(&["session", "close"]).ok();
    assert!(events(&r, "knowledge.derived").is_empty());
    env.set_now("2026-09-10T20:00:00Z");
    let out = r.mj(&["doctor"]).ok();
    let knowledge = |out: &crate::common::Output| -> String {
        out.stdout.lines().filter(|l| l.contains(" knowledge ")).collect::<Vec<_>>().join("\n")
    };
    insta::assert_snapshot!(knowledge(&out), @"");

    // The writer runs once (for the first episode) ...
    r.mj(&["knowledge", "derive", "--episode", &first]).ok();
    let out = r.mj(&["doctor"]).ok();
    insta::assert_snapshot!(named(&knowledge(&out), &[("FIRST", &first)]), @"OK knowledge majordomus.knowledge-observed — newest closed episode [FIRST]: knowledge writer observed  [reproduce: git majordomus history --event knowledge.derived]");
    // ... then a later episode closes without it.
    let second = open(&r);
    r.mj(&["session", "close"]).ok();
    // Younger than stale_minutes (2880): not yet a failure.
    env.set_now("2026-09-11T20:00:00Z");
    let out = r.mj(&["doctor"]).ok();
    let ids = [("FIRST", first.as_str()), ("SECOND", second.as_str())];
    insta::assert_snapshot!(named(&knowledge(&out), &ids), @"OK knowledge majordomus.knowledge-observed — newest closed episode [SECOND]: knowledge writer observed  [reproduce: git majordomus history --event knowledge.derived]");
    // Older than stale_minutes: FAIL, exit 10, naming the episode.
    env.set_now("2026-09-13T20:00:01Z");
    let out = r.mj(&["doctor"]).code(10);
    insta::assert_snapshot!(named(&knowledge(&out), &ids), @"FAIL knowledge majordomus.knowledge-observed — the newest closed episode [SECOND] (3d ago) has no knowledge.derived: the knowledge writer has stopped  [reproduce: git majordomus history --event knowledge.derived]");
    let v = findings(&r.mj(&["--json", "doctor"]).code(10).stdout);
    assert!(v.iter().any(|f| f["level"] == "FAIL" && f["subject"] == "majordomus.knowledge-observed"), "{v:?}");
    // Deriving the episode (even late, from outside it) clears the rule.
    r.mj(&["knowledge", "derive", "--episode", &second]).ok();
    let out = r.mj(&["doctor"]).ok();
    insta::assert_snapshot!(named(&knowledge(&out), &ids), @"OK knowledge majordomus.knowledge-observed — newest closed episode [SECOND]: knowledge writer observed  [reproduce: git majordomus history --event knowledge.derived]");
}

#[test]
fn a_later_decision_with_the_same_title_keeps_each_candidates_own_reason() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    open(&r);
    r.mj(&["decision", "add", "Use tabs", "--why", "first reason"]).ok();
    r.mj(&["knowledge", "derive"]).ok();
    let first = snapshot(&r);
    assert_eq!(first.len(), 1);
    assert_eq!(field(&first[0].1, "description"), Some("\"Decided because first reason\""), "{}", first[0].1);
    env.set_now("2026-09-03T20:01:00Z");
    r.mj(&["decision", "add", "Use tabs", "--why", "second reason"]).ok();
    let out = r.mj(&["knowledge", "derive"]).ok();
    // The earlier candidate keeps its bytes.
    let earlier = first[0].0.trim_end_matches(".md");
    insta::assert_snapshot!(named(&out.shown(), &[("EARLIER", earlier)]), @"
    unchanged .ai/repo/knowledge/candidates/[EARLIER].md
    written .ai/repo/knowledge/candidates/s-[ID]-[HEX].md
    knowledge derive: 1 written, 1 unchanged, 0 skipped
    --- stderr
    --- exit 0
    ");
    let all = files(&r, CANDIDATES);
    assert_eq!(all.len(), 2);
    assert_eq!(all.iter().find(|(n, _)| *n == first[0].0).unwrap().1, first[0].1);
    let descriptions: Vec<Option<&str>> = all.iter().map(|(_, t)| field(t, "description")).collect();
    assert!(descriptions.contains(&Some("\"Decided because second reason\"")), "{all:?}");
}

#[test]
fn a_byte_identical_evidence_line_yields_one_candidate() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    open(&r);
    r.mj(&["decision", "add", "Use tabs", "--why", "w"]).ok();
    let ledger = std::fs::read_to_string(r.state("ledger.jsonl")).unwrap();
    let last = ledger.lines().last().unwrap().to_string();
    std::fs::write(r.state("ledger.jsonl"), format!("{ledger}{last}\n")).unwrap();
    let out = r.mj(&["knowledge", "derive"]).ok();
    assert!(out.stdout.ends_with("knowledge derive: 1 written, 0 unchanged, 0 skipped\n"), "{}", out.stdout);
    let out = r.mj(&["knowledge", "derive"]).ok();
    assert_eq!(out.stdout.lines().count(), 2, "{}", out.stdout);
    assert!(out.stdout.ends_with("knowledge derive: 0 written, 1 unchanged, 0 skipped\n"), "{}", out.stdout);
}

#[test]
fn a_readme_in_the_knowledge_store_is_no_record() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    open(&r);
    r.mj(&["decision", "add", "Use tabs", "--why", "w"]).ok();
    r.mj(&["knowledge", "derive"]).ok();
    r.write(
        &format!("{CANDIDATES}/README.md"),
        "# Knowledge candidates\nDerived; review with git majordomus knowledge candidates.\n",
    );
    r.write(&format!("{CURATED}/README.md"), "# Curated knowledge\n");
    // knowledge check agrees with doctor (which skips README.md).
    let out = r.mj(&["knowledge", "check"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    OK knowledge-integrity .ai/repo/knowledge — every knowledge record parses and sits in its directory  [reproduce: git majordomus knowledge candidates]
    OK knowledge candidates-reviewed — 1 candidates awaiting review, cap 40  [reproduce: git majordomus knowledge candidates]
    --- stderr
    --- exit 0
    ");
    let out = r.mj(&["doctor"]).ok();
    assert!(!out.stdout.lines().any(|l| l.starts_with("FAIL ")), "{}", out.stdout);
    assert_eq!(r.mj(&["knowledge", "candidates"]).ok().stdout.lines().count(), 1);
}

#[test]
fn episode_commits_over_an_unreadable_history_are_an_io_error_not_missing_evidence() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    open(&r);
    r.mj(&["decision", "add", "Use tabs", "--why", "w"]).ok();
    let adr = r.commit_file(".ai/repo/adrs/0001-tabs.md", "# Tabs\n");
    r.commit_file("lib/x.rs", "fn x() {}\n");
    std::fs::remove_file(r.root.join(".git/objects").join(&adr[..2]).join(&adr[2..])).unwrap();
    let out = r.mj(&["knowledge", "derive"]).code(13);
    assert!(out.stderr.starts_with("error: git: "), "{}", out.stderr);
    assert!(files(&r, CANDIDATES).is_empty(), "no candidate without its evidence");
}
