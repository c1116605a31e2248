//! Cross-machine continuity end to end: docs/REFERENCE.md#store scenarios 821–827 (and the unit-level bullet
//! after them), docs/REFERENCE.md#front-matter items 33–51, `verify`/`export` (docs/REFERENCE.md#continuity-commands).
//!
//! Every scenario runs the real binary against a real bare remote (`receive.denyNonFastForwards`
//! and `receive.fsckObjects` on, so a forced or broken push fails the test) and clones of it over a
//! path, each clone a "machine" with its own `HOME` and `XDG_STATE_HOME` (its own device key).
//! After each scenario `git fsck --strict` must be clean in every repository, and the continuity
//! steps must not have moved any branch, the index or HEAD.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::json::{self, error};
use crate::common::machine::{declare_mesh, git_try, pick, printed, store_files, strings, two_clones, Machine};
use crate::common::{TestEnv, HANDOVER};

const REF: &str = "refs/majordomus/continuity";

/// The canonical form of a record (docs/REFERENCE.md#continuity-record): keys sorted by bytes, no whitespace.
fn canonical(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                let mut out = serde_json::Map::new();
                for k in keys {
                    out.insert(k.clone(), sorted(&m[k]));
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    serde_json::to_string(&sorted(v)).unwrap()
}

fn record_id(record: &Value) -> String {
    blake3::hash(canonical(record).as_bytes()).to_hex().to_string()
}

/// `text` with each id (whole, or for a hexadecimal one its first 16, 12, 10, 8 or 7
/// characters too) replaced by `[NAME]`, so a snapshot still says which record it shows.
fn named(text: &str, ids: &[(&str, &str)]) -> String {
    let mut t = text.to_string();
    for n in [64, 16, 12, 10, 8, 7] {
        for (name, id) in ids {
            if n >= id.len() || id.chars().all(|c| c.is_ascii_hexdigit()) {
                t = t.replace(&id[..n.min(id.len())], &format!("[{name}]"));
            }
        }
    }
    t
}

/// `v` pretty-printed, each id of `ids` named as [`named`] does: a whole document to snapshot.
fn shown(v: &Value, ids: &[(&str, &str)]) -> String {
    named(&serde_json::to_string_pretty(v).unwrap(), ids)
}

fn store_path(id: &str) -> String {
    format!("records/{}/{}/{id}.json", &id[..2], &id[2..4])
}

// ---------------------------------------------------------------------------------------------
// The world: a bare remote and two machines

/// Which keys the mesh declaration trusts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mesh {
    /// No declaration at all.
    Undeclared,
    /// A's and B's keys.
    Both,
    /// Only A's key.
    OnlyA,
}

struct World<'a> {
    env: &'a TestEnv,
    remote: PathBuf,
    a: Machine<'a>,
    b: Machine<'a>,
    /// A's and B's public keys (`RW…`).
    keys: (String, String),
}

fn mesh_yaml(allow: &[&str], revoked: &[&str]) -> String {
    let list = |keys: &[&str]| {
        if keys.is_empty() {
            " []\n".to_string()
        } else {
            format!("\n{}", keys.iter().map(|k| format!("    - {k}\n")).collect::<String>())
        }
    };
    format!("schema: mesh/v1\nkind: mesh-declaration\nid: home\nenabled: true\ntrust:\n  policy: deny_unknown\n  allow:{}  revoked:{}", list(allow), list(revoked))
}

/// A bare remote; A initialises the layer, commits and pushes; B clones; both get a device key
/// (A `macbook-pro`, B `desktop`); with a trust list, A commits and pushes the mesh declaration
/// and B pulls it.
fn two_machines(env: &TestEnv, mesh: Mesh) -> World<'_> {
    let (remote, a, b, ka, kb) = two_clones(env, "desktop");
    let allow: Vec<&str> = match mesh {
        Mesh::Undeclared => vec![],
        Mesh::Both => vec![&ka, &kb],
        Mesh::OnlyA => vec![&ka],
    };
    if mesh != Mesh::Undeclared {
        declare_mesh(&a, &b, &mesh_yaml(&allow, &[]));
    }
    World { env, remote, a, b, keys: (ka, kb) }
}

impl World<'_> {
    /// B writes and publishes a handover, and both machines sync: the record's id.
    fn desktop_record(&self) -> String {
        self.b.handover(true, &body("Desktop work.", "Continue on the laptop."));
        let rb = self.b.publish(&[]);
        self.b.sync();
        self.a.sync();
        rb
    }

    /// `git fsck --strict` is clean in the remote and in both clones.
    fn fsck(&self, more: &[&Machine<'_>]) {
        for dir in
            [self.remote.as_path(), self.a.root(), self.b.root()].into_iter().chain(more.iter().map(|m| m.root()))
        {
            let out =
                self.env.command("git").current_dir(dir).args(["fsck", "--strict", "--no-progress"]).output().unwrap();
            assert!(
                out.status.success(),
                "git fsck --strict in {}: {}{}",
                dir.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                !err.contains("error") && !err.contains("warning"),
                "git fsck --strict in {}: {err}",
                dir.display()
            );
        }
    }

    fn remote_git(&self, args: &[&str]) -> String {
        self.env.git_in(&self.remote, args)
    }

    fn remote_heads(&self) -> String {
        self.remote_git(&["for-each-ref", "refs/heads"])
    }
}

/// A handover body whose three sections are distinguishable.
fn body(objective: &str, next: &str) -> String {
    format!("# Objective\n{objective}\n\n# Current State\nWork in progress.\n\n# Next Action\n{next}\n")
}

// ---------------------------------------------------------------------------------------------
// docs/REFERENCE.md#store scenario 821

#[test]
fn scenario_821_a_session_moves_between_machines() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    let (node_a, node_b) = (a.node(), b.node());

    // A: start, decision, handover, publish --issue '#184' (offline), sync.
    let started = a.run(&["start", "fix OAuth callback", "--scope", "lib"], "").ok().stdout;
    let task_id = started.split_whitespace().nth(1).unwrap().to_string();
    a.run(&["decision", "add", "use PKCE", "--why", "the implicit flow leaks tokens"], "").ok();
    a.run(&["question", "add", "which IdP tenants need the new callback?"], "").ok();
    a.handover(false, HANDOVER);
    let a_snap = a.snap();
    let remote_heads = w.remote_heads();
    let v = a.cj(&["publish", "--issue", "#184", "--milestone", "M3"], 0);
    let r1 = json::text(&v, "/record/id").to_string();
    assert_eq!(r1.len(), 64);
    let node_ids = [("R1", r1.as_str()), ("NODE A", node_a.as_str()), ("NODE B", node_b.as_str())];
    // Written; the first record of a line is its own line, and has no parent.
    insta::assert_snapshot!(shown(&v, &node_ids), @r##"
    {
      "record": {
        "id": "[R1]",
        "line": "[R1]",
        "device": {
          "node": "[NODE A]",
          "label": "macbook-pro"
        },
        "key_id": "[KEY ID]",
        "this_device": true,
        "trust": "this_device",
        "branch": "main",
        "head": "[HEX]",
        "working_tree": "clean",
        "changed_total": 0,
        "published_at": "2026-09-03T20:00:00Z",
        "age_minutes": 0,
        "task": "fix OAuth callback",
        "issue": "#184",
        "objective": "Fix the callback."
      },
      "written": true,
      "tip": "[HEX]",
      "handover": ".ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md",
      "dry_run": false,
      "next": [
        "git majordomus continuity sync"
      ]
    }
    "##);
    assert_eq!(w.remote_git(&["for-each-ref", REF]), "", "publish is offline");
    let s = a.sync();
    assert_eq!(s["action"], "published");
    assert_eq!([&s["fetched"], &s["published"]], [0, 1]);
    assert_eq!(s["store"]["sync"], "in_sync");
    assert_eq!(w.remote_git(&["rev-parse", REF]), a.tip().unwrap(), "the remote holds the store");
    assert_eq!(w.remote_heads(), remote_heads, "sync never moves branches on the remote");
    assert_eq!(a.snap(), a_snap);

    // B: status before any sync shows nothing resumable (status never touches the network).
    let b_snap = b.snap();
    let st = b.cj(&["status"], 0);
    assert_eq!(st["resumable"].as_array().unwrap().len(), 0);
    assert_eq!(st["store"]["sync"], "empty");
    insta::assert_snapshot!(b.c(&["status"]).ok().shown(), @"
    repository  [HEX]
    device      desktop ([HEX])
    branch      main @ [HEX]  clean
    continues   nothing yet on this branch
    store       0 record(s), 0 refused; empty here; nothing fetched from origin yet (continuity sync fetches it)
    resumable   none
    --- stderr
    --- exit 0
    ");
    // A plain fetch of the store into the remote-tracking ref: status says `behind`, and the
    // records become resumable only after `continuity sync`.
    b.git(&["fetch", "-q", "origin", &format!("+{REF}:refs/majordomus/remotes/origin/continuity")]);
    let st = b.cj(&["status"], 0);
    assert_eq!(st["store"]["sync"], "behind");
    assert_eq!(st["resumable"].as_array().unwrap().len(), 0);
    // The fetched handover is named, and the commands that take it (issue 40 item 5).
    assert!(st["standing"]["arrived"].is_object(), "{:#}", st["standing"]);
    assert_eq!(st["next"], serde_json::json!(["git majordomus continuity sync", "git majordomus continuity plan"]));
    let s = b.sync();
    assert_eq!(s["action"], "fetched");
    assert_eq!(s["fetched"], 1);
    assert_eq!(s["published"], 0);
    let res = &s["resumable"];
    assert_eq!(json::each(&s, "/resumable", "id"), [r1.as_str()]);
    assert_eq!(res[0]["device"]["label"], "macbook-pro");
    assert_eq!(res[0]["device"]["node"], node_a.as_str());
    assert_eq!(res[0]["trust"], "trusted");
    assert_eq!(res[0]["this_device"], false);
    let st = b.c(&["status"]).ok().stdout;
    insta::assert_snapshot!(named(&st, &[("R1", &r1)]), @"
    repository  [HEX]
    device      desktop ([HEX])
    branch      main @ [HEX]  clean
    continues   nothing yet on this branch
    store       1 record(s), 0 refused; in sync with origin
    last sync   ok with origin at 2026-09-03T20:00:00Z
    Resumable from another device (1)
    record      [R1]
    device      macbook-pro [trusted]
    key         [KEY ID]
    published   0 min ago
    intent      fix OAuth callback
    issue       #184
    source      main @ [HEX]  clean
    objective   Fix the callback.
    next        git majordomus continuity plan
    ");

    // B: plan is ready, exact; it writes nothing.
    let before = b.local_files();
    let plan = b.cj(&["plan"], 0);
    assert_eq!(plan["actions"][0], format!("git majordomus continuity resume --record {}", &r1[..12]));
    // The record A published, as B sees it: another device's, trusted by the mesh.
    let mut seen = v["record"].clone();
    (seen["this_device"], seen["trust"]) = (false.into(), "trusted".into());
    assert_eq!(plan["record"], seen, "{plan:#}");
    let mut rest = plan.clone();
    rest.as_object_mut().unwrap().shift_remove("record");
    insta::assert_snapshot!(shown(&rest, &node_ids), @r##"
    {
      "status": "ready",
      "candidates": [],
      "source": {
        "expected_branch": "main",
        "expected_head": "[HEX]",
        "local_branch": "main",
        "local_head": "[HEX]",
        "relation": "exact",
        "origin_dirty": false,
        "origin_changed": [],
        "origin_changed_total": 0,
        "local_dirty": false
      },
      "task": {
        "id": "t-[ID]",
        "title": "fix OAuth callback",
        "profile": "implementation",
        "scope": [
          "lib"
        ]
      },
      "milestone": "M3",
      "decisions": [
        "use PKCE"
      ],
      "objective": "Fix the callback.",
      "current_state": "Reproduced.",
      "next_action": "Write the regression test.",
      "blockers": [],
      "warnings": [],
      "actions": [
        "git majordomus continuity resume --record [R1]",
        "git majordomus start 'fix OAuth callback' --scope lib --profile implementation"
      ],
      "restores": [
        "handover",
        "intent",
        "issue",
        "decisions",
        "next_action",
        "lineage",
        "provenance"
      ],
      "recomputes": [
        "worktree",
        "repository_id",
        "episode",
        "working_context",
        "local_source_state"
      ]
    }
    "##);
    let text = b.c(&["plan"]).ok().stdout;
    insta::assert_snapshot!(named(&text, &[("R1", &r1)]), @"
    Resume      ready
    record      [R1]
    device      macbook-pro [trusted]
    key         [KEY ID]
    published   0 min ago
    intent      fix OAuth callback
    issue       #184
    source      main @ [HEX]  clean
    objective   Fix the callback.
    Source
      expected    main @ [HEX]
      local       main @ [HEX]
      relation    exact
    Next action
      Write the regression test.
    Restores    handover, intent, issue, decisions, next_action, lineage, provenance
    Recomputes  worktree, repository_id, episode, working_context, local_source_state
    run git majordomus continuity resume --record [R1]
    run git majordomus start 'fix OAuth callback' --scope lib --profile implementation
    ");
    assert_eq!(b.local_files(), before, "plan writes nothing");

    // B: resume.
    let r = b.cj(&["resume"], 0);
    // The plan it followed, without the resume action; the handover it wrote; what it carried.
    let mut followed = plan.clone();
    followed["actions"] = serde_json::json!(strings(&plan["actions"])[1..]);
    assert_eq!(r["plan"], followed, "{r:#}");
    let outcome = pick(&r, &["resumed", "handover", "decisions_carried", "questions_carried", "position"]);
    insta::assert_snapshot!(shown(&outcome, &node_ids), @r#"
    {
      "resumed": true,
      "handover": ".ai/local/state/handovers/20260903T200000Z--continuity--main--[HEX]--[R1].md",
      "decisions_carried": 1,
      "questions_carried": 1,
      "position": {
        "line": "[R1]",
        "record": "[R1]",
        "via": "resumed",
        "at": "2026-09-03T20:00:00Z"
      }
    }
    "#);
    let handover = json::text(&r, "/handover").to_string();
    // docs/REFERENCE.md#front-matter item 48: <stamp>--continuity--<branchkey>--<head7>--<id16>.md holding continuity_record.
    let head7 = &a.git(&["rev-parse", "HEAD"])[..7];
    assert_eq!(
        handover,
        format!(".ai/local/state/handovers/20260903T200000Z--continuity--main--{head7}--{}.md", &r1[..16])
    );
    let text = b.repo.read(&handover);
    let ids = [("R1", r1.as_str()), ("NODE A", node_a.as_str()), ("TASK", task_id.as_str())];
    insta::assert_snapshot!(named(&text, &ids), @r##"
    ---
    schema_version: 1
    created_at: 2026-09-03T20:00:00Z
    task_id: [TASK]
    profile: none
    owner: "continuity:[NODE A]"
    repository_id: [TMP]/b/.git
    worktree: [TMP]/b
    branch: main
    head: [HEX]
    working_tree: clean
    changed_files: []
    changed_total: 0
    origin: authored
    session: none
    continuity_record: [R1]
    continuity_device: [NODE A]
    continuity_label: "macbook-pro"
    continuity_key_id: [KEY ID]
    continuity_created_at: 2026-09-03T20:00:00Z
    issue: "#184"
    milestone: "M3"
    ---

    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.
    "##);
    let resolved = b.run(&["handover", "--resolve"], "").ok().stdout;
    insta::assert_snapshot!(named(&resolved, &ids), @"
    Handover: .ai/local/state/handovers/20260903T200000Z--continuity--main--[HEX]--[R1].md
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:00:00Z (0m ago), resumed here 2026-09-03T20:00:00Z
    Task: [TASK]
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    Arrived: from macbook-pro (key [KEY ID]), continuity record [R1]
    ---
    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.
    ");
    let log = b.repo.read(".ai/local/state/decisions.md");
    insta::assert_snapshot!(named(&log, &ids), @r#"
    # Decisions

    Append-only: `git majordomus decision add "<title>" --why "<why>"` adds an entry; entries are
    never edited. A later decision names the one it replaces with `--supersedes`.

    <!--
    ## 2026-09-03 — Use the ledger position as the same-second tiebreak
    Task: t-[ID]
    Head: [HEX]
    Why: created_at has one-second precision; the ledger is written in command order
    Rejected: file-name order (random suffixes)
    Evidence: -
    Supersedes: -
    -->

    ## 2026-09-03 — use PKCE
    Task: [TASK]
    Head: [HEX]
    Why: the implicit flow leaks tokens
    Rejected: -
    Evidence: -
    Supersedes: -
    Carried: continuity [R1] from macbook-pro
    "#);
    // Blockers travel.
    let questions = b.repo.read(".ai/local/state/open-questions.md");
    insta::assert_snapshot!(named(&questions, &ids), @"
    # Open questions

    Every `[unresolved]` entry refuses `git majordomus finish --outcome completed` in this checkout.
    Add with `git majordomus question add`, answer with `git majordomus question resolve`.

    <!--
    - [unresolved] t-[ID] — Which callback URL does staging use? (2026-09-03)
    - [resolved 2026-09-04] t-[ID] — Which callback URL does staging use? (2026-09-03) — the one in deploy/staging.env
    -->
    - [unresolved] [TASK] — which IdP tenants need the new callback? (2026-09-03)
    ");
    // No A path anywhere in B's state.
    let a_root = a.root().display().to_string();
    for (path, bytes) in b.local_files() {
        let text = String::from_utf8_lossy(&bytes);
        for p in [a_root.as_str(), a.home.to_str().unwrap(), a.xdg.to_str().unwrap()] {
            assert!(!text.contains(p), "{path} mentions A's path {p}");
        }
    }

    // docs/REFERENCE.md#front-matter item 48: resuming again writes nothing new. Implicitly there is nothing left to
    // resume (the position equals the record, so it is no longer offered)...
    let again = b.cj(&["resume"], 10);
    assert_eq!(again["resumed"], false);
    assert_eq!(again["plan"]["status"], "nothing_to_resume");
    assert_eq!(b.arrived().len(), 1);
    // ...and naming it again returns the same handover, carries nothing, warns already_resumed.
    let again = b.cj(&["resume", "--record", &r1[..12]], 0);
    assert_eq!(again["resumed"], true);
    assert_eq!(again["handover"], handover.as_str());
    assert_eq!(again["decisions_carried"], 0);
    assert_eq!(again["plan"]["lineage"], "equal");
    insta::assert_compact_debug_snapshot!(json::each(&again, "/plan/warnings", "code"), @r#"["already_resumed"]"#);
    assert_eq!(b.arrived().len(), 1);
    assert_eq!(b.repo.read(".ai/local/state/decisions.md").matches("— use PKCE\n").count(), 1);
    assert_eq!(b.repo.read(".ai/local/state/open-questions.md").matches("which IdP tenants").count(), 1);

    // docs/REFERENCE.md#front-matter item 49: the arrived handover is not B's to publish.
    let out = b.c(&["publish", "--handover", handover.rsplit('/').next().unwrap()]).code(10);
    insta::assert_snapshot!(named(&out.shown(), &ids), @"
    --- stderr
    error: `20260903T200000Z--continuity--main--[HEX]--[R1].md` arrived from another machine; it is not this machine's to publish
    hint: Write this machine's own with `git majordomus handover`
    --- exit 10
    ");
    // The newest-handover picker skips arrived ones.
    let out = b.c(&["publish"]).code(10);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: no handover record under .ai/local/state/handovers/ to publish
    hint: write one with `git majordomus handover` (# Objective, # Current State, # Next Action on stdin)
    --- exit 10
    ");

    // docs/REFERENCE.md#front-matter item 50: B publishes; parent and line are A's record, issue and milestone inherited.
    b.handover(true, &body("Fix the callback.", "Run the regression test on the desktop."));
    let v = b.cj(&["publish"], 0);
    let r2 = json::text(&v, "/record/id").to_string();
    assert_eq!(v["record"]["parent"], r1);
    assert_eq!(v["record"]["line"], r1);
    assert_eq!(v["record"]["issue"], "#184");
    assert!(b
        .c(&["publish"])
        .ok()
        .stdout
        .starts_with(&format!("Unchanged   {} already holds this handover\n", &r2[..12])));
    let blob = b.store_files(REF).into_iter().find(|(p, _)| *p == store_path(&r2)).unwrap().1;
    let env2: Value = serde_json::from_str(&blob).unwrap();
    assert_eq!(env2["record"]["handover"]["milestone"], "M3");
    assert_eq!(env2["record"]["parent"], r1.as_str());
    let s = b.sync();
    assert_eq!(s["action"], "published");
    assert_eq!(s["published"], 1);
    assert_eq!(b.snap(), b_snap, "continuity commands moved nothing on B");

    // A: sync sees the line as remote_newer; records: 2 records, 1 line, head = B's.
    let s = a.sync();
    assert_eq!(s["action"], "fetched");
    assert_eq!(s["fetched"], 1);
    assert_eq!(s["lines"].as_array().unwrap().len(), 1);
    assert_eq!(s["lines"][0]["line"], r1.as_str());
    assert_eq!(s["lines"][0]["relation"], "remote_newer");
    let recs = a.cj(&["records"], 0);
    assert_eq!(recs["records"].as_array().unwrap().len(), 2);
    assert_eq!(recs["lines"].as_array().unwrap().len(), 1);
    assert_eq!(recs["lines"][0]["state"], "linear");
    assert_eq!(recs["lines"][0]["records"], 2);
    assert_eq!(recs["lines"][0]["heads"], serde_json::json!([r2.clone()]));
    let text = a.c(&["records"]).ok().stdout;
    // Records of the same second are listed in id order, random here: sorted by name.
    let mut lines: Vec<String> = named(&text, &[("R1", &r1), ("R2", &r2)]).lines().map(str::to_string).collect();
    lines[1..].sort();
    insta::assert_snapshot!(lines.join("\n"), @"
    2 record(s)
    [R1]  line [R1]  parent -  macbook-pro  main  2026-09-03T20:00:00Z
    [R2]  line [R1]  parent [R1]  desktop  main  2026-09-03T20:00:00Z
    ");
    // A's plan offers B's record with lineage `newer`.
    let plan = a.cj(&["plan"], 0);
    assert_eq!(plan["status"], "ready", "{plan:#}");
    assert_eq!(plan["record"]["id"], r2.as_str());
    assert_eq!(plan["record"]["device"]["node"], node_b.as_str());
    assert_eq!(plan["lineage"], "newer");
    // A third sync has nothing to do.
    let s = a.sync();
    assert_eq!(serde_json::json!([s["action"], s["fetched"], s["published"]]), serde_json::json!(["none", 0, 0]));
    assert!(s["lines"].as_array().unwrap().iter().all(|l| l["relation"] == "equal"), "{s:#}");
    assert_eq!(s["store"]["sync"], "in_sync");
    let text = a.c(&["sync"]).ok().stdout;
    insta::assert_snapshot!(named(&text, &[("R1", &r1), ("R2", &r2)]), @"
    Sync        none with origin
    moved       0 fetched, 0 published
    store       in_sync
    line        [R1]  equal
    Resumable from another device (1)
    record      [R2]
    device      desktop [trusted]
    key         [KEY ID]
    published   0 min ago
    issue       #184
    source      main @ [HEX]  clean
    objective   Fix the callback.
    next        git majordomus continuity plan
    ");
    assert_eq!(a.snap(), a_snap, "continuity commands moved nothing on A");
    assert_eq!(w.remote_heads(), remote_heads);

    // The stored records carry no machine path, home prefix, pid, server file or socket.
    let files = w.a.store_files(REF);
    assert_eq!(files.len(), 2);
    for (path, text) in files.iter().chain(store_files(&env, &w.remote, REF).iter()) {
        assert_eq!(path, &store_path(path.rsplit('/').next().unwrap().trim_end_matches(".json")));
        for bad in
            [env.path().to_str().unwrap(), "/home/", "/Users/", "/root/", "/tmp/", "\"pid\"", "server.json", ".sock"]
        {
            assert!(!text.contains(bad), "{path} contains {bad:?}:\n{text}");
        }
        // docs/REFERENCE.md#front-matter item 37: the id is BLAKE3 over the canonical record; the envelope order is fixed.
        let v: Value = serde_json::from_str(text).unwrap();
        assert_eq!(v["id"].as_str().unwrap(), record_id(&v["record"]), "{path}");
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["id", "public_key", "signature", "record"]);
        assert_eq!(v["record"]["schema"], "majordomus-continuity/v1");
        assert!(text.starts_with("{\n  \"id\": "), "pretty-printed with two spaces");
    }
    w.fsck(&[]);
}

// ---------------------------------------------------------------------------------------------
// docs/REFERENCE.md#store scenario 822, docs/REFERENCE.md#front-matter items 46–47

#[test]
fn scenario_822_dirty_handover_and_the_source_relations() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    a.git(&["switch", "-q", "-c", "feature/x"]);
    a.repo.commit_file("lib/a", "committed\n");
    a.git(&["push", "-q", "-u", "origin", "feature/x"]);
    a.repo.write("lib/a", "uncommitted change\n");
    a.repo.write("lib/new", "untracked\n");
    a.handover(true, &body("Finish feature x.", "Commit lib/new."));
    let a_snap = a.snap();
    let v = a.cj(&["publish"], 0);
    let r1 = json::text(&v, "/record/id").to_string();
    assert_eq!(v["record"]["working_tree"], "dirty");
    assert_eq!(v["record"]["changed_total"], 2);
    assert_eq!(v["record"]["branch"], "feature/x");
    let stored: Value = serde_json::from_str(&a.store_files(REF)[0].1).unwrap();
    assert_eq!(stored["record"]["source"]["changed"], serde_json::json!(["lib/a", "lib/new"]));
    assert_eq!(stored["record"]["source"]["fingerprint"].as_str().unwrap().len(), 32);
    a.sync();
    assert_eq!(a.snap(), a_snap);

    b.git(&["fetch", "-q", "origin"]);
    b.git(&["switch", "-q", "feature/x"]);
    let b_snap = b.snap();
    b.sync();
    let plan = b.cj(&["plan"], 0);
    insta::assert_snapshot!(shown(&pick(&plan, &["status", "source", "warnings"]), &[]), @r#"
    {
      "status": "ready_with_warnings",
      "source": {
        "expected_branch": "feature/x",
        "expected_head": "[HEX]",
        "local_branch": "feature/x",
        "local_head": "[HEX]",
        "relation": "exact",
        "origin_dirty": true,
        "origin_changed": [
          "lib/a",
          "lib/new"
        ],
        "origin_changed_total": 2,
        "local_dirty": false
      },
      "warnings": [
        {
          "code": "source_incomplete",
          "message": "the origin had 2 uncommitted file(s) that are not in its commit; they do not travel"
        }
      ]
    }
    "#);
    let text = b.c(&["plan"]).ok().stdout;
    insta::assert_snapshot!(named(&text, &[("R1", &r1)]), @"
    Resume      ready_with_warnings
    record      [R1]
    device      macbook-pro [trusted]
    key         [KEY ID]
    published   0 min ago
    source      feature/x @ [HEX]  dirty (2 uncommitted)
    objective   Finish feature x.
    Source
      expected    feature/x @ [HEX]
      local       feature/x @ [HEX]
      relation    exact
      origin dirty: 2 uncommitted file(s) not in its commit
    Next action
      Commit lib/new.
    Restores    handover, intent, issue, decisions, next_action, lineage, provenance
    Recomputes  worktree, repository_id, episode, working_context, local_source_state
    WARN    source_incomplete: the origin had 2 uncommitted file(s) that are not in its commit; they do not travel
    run git majordomus continuity resume --record [R1]
    ");
    let r = b.cj(&["resume"], 0);
    let h = b.repo.read(json::text(&r, "/handover"));
    insta::assert_snapshot!(named(&h, &[("R1", &r1)]), @r#"
    ---
    schema_version: 1
    created_at: 2026-09-03T20:00:00Z
    task_id: none
    profile: none
    owner: "continuity:[HEX]"
    repository_id: [TMP]/b/.git
    worktree: [TMP]/b
    branch: feature/x
    head: [HEX]
    working_tree: dirty
    changed_files:
      - lib/a
      - lib/new
    changed_total: 2
    citations:
      - "lib/a@[HEX]"
    origin: authored
    session: none
    continuity_record: [R1]
    continuity_device: [HEX]
    continuity_label: "macbook-pro"
    continuity_key_id: [KEY ID]
    continuity_created_at: 2026-09-03T20:00:00Z
    ---

    # Objective
    Finish feature x.

    # Current State
    Work in progress.

    # Next Action
    Commit lib/new.
    "#);
    assert_eq!(b.repo.read("lib/a"), "committed\n", "uncommitted content never travels");
    assert!(!b.repo.exists("lib/new"));
    assert_eq!(b.snap(), b_snap);

    // docs/REFERENCE.md#front-matter item 47: the identical uncommitted change here → no source_incomplete, no local_dirty.
    b.repo.write("lib/a", "uncommitted change\n");
    b.repo.write("lib/new", "untracked\n");
    let plan = b.cj(&["plan", "--record", &r1], 0);
    assert_eq!(plan["source"]["same_uncommitted_work"], true, "{plan:#}");
    assert!(
        !json::each(&plan, "/warnings", "code").iter().any(|c| c == "source_incomplete" || c == "local_dirty"),
        "{plan:#}"
    );
    b.repo.write("lib/new", "something else\n");
    let plan = b.cj(&["plan", "--record", &r1], 0);
    assert_eq!(plan["source"]["same_uncommitted_work"], false);
    insta::assert_compact_debug_snapshot!(json::each(&plan, "/warnings", "code"), @r#"["already_resumed", "source_incomplete", "local_dirty", "files_differ"]"#);
    b.git(&["checkout", "-q", "--", "lib/a"]);
    std::fs::remove_file(b.root().join("lib/new")).unwrap();

    // An unpushed commit: its head is missing here.
    a.git(&["add", "lib/a", "lib/new"]);
    a.git(&["commit", "-q", "-m", "finish x"]);
    a.handover(true, &body("Finish feature x.", "Open the pull request."));
    let r2 = a.publish(&[]);
    a.sync();
    b.sync();
    let b_snap = b.snap();
    let plan = b.cj(&["plan"], 10);
    assert_eq!(plan["status"], "requires_source_update", "{plan:#}");
    assert_eq!(plan["record"]["id"], r2.as_str());
    assert_eq!(plan["source"]["relation"], "head_missing");
    assert_eq!(json::each(&plan, "/blockers", "code"), ["head_missing"]);
    assert_eq!(plan["actions"][0], "git fetch origin");
    insta::assert_snapshot!(named(&b.c(&["plan"]).code(10).shown(), &[("R1", &r1), ("R2", &r2)]), @"
    Resume      requires_source_update
    record      [R2]
    device      macbook-pro [trusted]
    key         [KEY ID]
    published   0 min ago
    source      feature/x @ [HEX]  clean
    objective   Finish feature x.
    Source
      expected    feature/x @ [HEX]
      local       feature/x @ [HEX]
      relation    head_missing
    Next action
      Open the pull request.
    Restores    handover, intent, issue, decisions, next_action, lineage, provenance
    Recomputes  worktree, repository_id, episode, working_context, local_source_state
    BLOCKER head_missing: the record's head [HEX] is not a commit in this clone: it was not pushed, or not fetched
    run git fetch origin
    --- stderr
    --- exit 10
    ");
    let arrived = b.arrived();
    let r = b.cj(&["resume"], 10);
    assert_eq!(r["resumed"], false);
    assert_eq!(r["plan"]["status"], "requires_source_update");
    assert!(r["handover"].is_null());
    assert!(b.c(&["resume"]).code(10).stdout.starts_with("Resume blocked  requires_source_update\n"));
    assert_eq!(b.arrived(), arrived, "a declined resume writes nothing");
    assert_eq!(b.snap(), b_snap);

    // Pushed and fetched, not pulled: local_behind.
    a.git(&["push", "-q", "origin", "feature/x"]);
    b.git(&["fetch", "-q", "origin"]);
    let b_snap = b.snap();
    let plan = b.cj(&["plan"], 10);
    assert_eq!(plan["source"]["relation"], "local_behind", "{plan:#}");
    assert_eq!(json::each(&plan, "/blockers", "code"), ["local_behind"]);
    insta::assert_snapshot!(named(&strings(&plan["actions"]).join("\n"), &[("R2", &r2)]), @"git pull --ff-only origin feature/x");
    assert_eq!(b.snap(), b_snap);

    // On main: branch_differs.
    b.git(&["switch", "-q", "main"]);
    let b_snap = b.snap();
    let plan = b.cj(&["plan"], 10);
    assert_eq!(plan["status"], "requires_source_update");
    assert_eq!(plan["source"]["relation"], "branch_differs", "{plan:#}");
    assert_eq!(json::each(&plan, "/blockers", "code"), ["branch_differs"]);
    insta::assert_snapshot!(named(&strings(&plan["actions"]).join("\n"), &[("R2", &r2)]), @"git switch feature/x");
    assert_eq!(b.snap(), b_snap);

    // After the pull: exact, ready; the resume continues B's position.
    b.git(&["switch", "-q", "feature/x"]);
    b.git(&["pull", "-q", "--ff-only", "origin", "feature/x"]);
    let b_snap = b.snap();
    let plan = b.cj(&["plan"], 0);
    assert_eq!(plan["source"]["relation"], "exact", "{plan:#}");
    assert_eq!(plan["status"], "ready");
    assert_eq!(plan["lineage"], "newer");
    let r = b.cj(&["resume"], 0);
    assert_eq!(r["resumed"], true);
    assert_eq!(b.arrived().len(), 2);

    // docs/REFERENCE.md#front-matter item 46: local extra commits → warning local_ahead, still resumable.
    b.repo.commit_file("lib/b", "more\n");
    let b_snap2 = b.snap();
    let plan = b.cj(&["plan", "--record", &r2], 0);
    assert_eq!(plan["source"]["relation"], "local_ahead");
    assert_eq!(plan["status"], "ready_with_warnings");
    insta::assert_compact_debug_snapshot!(json::each(&plan, "/warnings", "code"), @r#"["already_resumed", "local_ahead"]"#);
    assert_eq!(b.snap(), b_snap2);
    assert_ne!(b_snap, b_snap2);
    w.fsck(&[]);
}

// ---------------------------------------------------------------------------------------------
// docs/REFERENCE.md#store scenario 823, docs/REFERENCE.md#front-matter item 44

#[test]
fn scenario_823_continued_twice_diverges_and_is_never_picked_by_time() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    let (a_snap, b_snap) = (a.snap(), b.snap());
    a.handover(true, &body("Ship the release.", "Tag it."));
    let r1 = a.publish(&[]);
    a.sync();
    b.sync();
    env.set_now("2026-09-03T20:10:00Z");
    b.cj(&["resume"], 0);
    b.handover(true, &body("Ship the release.", "Write the changelog on the desktop."));
    let r2 = b.publish(&[]);
    b.sync();
    // A (not synced) continues R1 too, later in time.
    env.set_now("2026-09-03T20:20:00Z");
    a.handover(true, &body("Ship the release.", "Write the changelog on the laptop."));
    let v = a.cj(&["publish"], 0);
    let r3 = json::text(&v, "/record/id").to_string();
    assert_eq!(v["record"]["parent"], r1.as_str());
    let s = a.sync();
    assert_eq!(s["action"], "exchanged", "{s:#}");
    assert_eq!(s["lines"].as_array().unwrap().len(), 1);
    assert_eq!(s["lines"][0]["relation"], "diverged");
    let mut heads = vec![r2.clone(), r3.clone()];
    heads.sort();
    assert_eq!(s["lines"][0]["heads"], serde_json::json!(heads));
    insta::assert_compact_debug_snapshot!(json::each(&s, "/diagnostics", "code"), @r#"["continuity.diverged"]"#);
    let recs = a.cj(&["records"], 0);
    assert_eq!(recs["records"].as_array().unwrap().len(), 3, "all three records are kept");
    assert_eq!(recs["lines"][0]["state"], "diverged");
    insta::assert_compact_debug_snapshot!(json::each(&recs, "/diagnostics", "code"), @r#"["continuity.diverged"]"#);
    let st = a.cj(&["status"], 0);
    assert_eq!(st["lines"][0]["state"], "diverged");
    assert_eq!(st["lines"][0]["heads"].as_array().unwrap().len(), 2);
    let text = a.c(&["status"]).ok().stdout;
    // The heads are listed in id order, random here.
    let text = named(&text, &[("R1", &r1), ("R2", &r2), ("R3", &r3)]).replace("[R3], [R2]", "[R2], [R3]");
    insta::assert_snapshot!(text, @"
    repository  [HEX]
    device      macbook-pro ([HEX])
    branch      main @ [HEX]  clean
    continues   [R3] (published here)
    store       3 record(s), 0 refused; in sync with origin
    last sync   ok with origin at 2026-09-03T20:20:00Z
    line        [R1] DIVERGED: 2 heads
    Resumable from another device (1)
    record      [R2]
    device      desktop [trusted]
    key         [KEY ID]
    published   10 min ago
    source      main @ [HEX]  clean
    objective   Ship the release.
    WARNING continuity.diverged: line [R1] has diverged: 2 heads [R2], [R3]
    next        git majordomus continuity plan
    ");

    // B: the implicit plan is a conflict (it never picks by time), resume declines.
    b.sync();
    let plan = b.cj(&["plan"], 10);
    assert_eq!(plan["status"], "conflict", "{plan:#}");
    assert_eq!(plan["record"]["id"], r3.as_str());
    insta::assert_compact_debug_snapshot!(json::each(&plan, "/blockers", "code"), @r#"["line_diverged", "would_diverge"]"#);
    let arrived = b.arrived();
    let r = b.cj(&["resume"], 10);
    assert_eq!(r["resumed"], false);
    assert_eq!(b.arrived(), arrived, "a declined resume writes no handover");
    // Naming R3 explicitly: ready_with_warnings with both warnings.
    let plan = b.cj(&["plan", "--record", &r3[..12]], 0);
    assert_eq!(plan["status"], "ready_with_warnings", "{plan:#}");
    insta::assert_compact_debug_snapshot!(json::each(&plan, "/warnings", "code"), @r#"["line_diverged", "would_diverge"]"#);
    assert!(plan["blockers"].as_array().unwrap().is_empty());
    assert_eq!((a.snap(), b.snap()), (a_snap, b_snap));
    w.fsck(&[]);
}

// ---------------------------------------------------------------------------------------------
// docs/REFERENCE.md#store scenario 824, docs/REFERENCE.md#front-matter item 45

#[test]
fn scenario_824_separate_work_on_two_branches_is_two_linear_lines() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    let a_snap = a.snap();
    a.handover(true, &body("Work on main.", "Keep going on main."));
    let ra = a.publish(&["--issue", "#1"]);
    a.sync();
    b.git(&["switch", "-q", "-c", "feature/y"]);
    b.repo.commit_file("lib/y", "y\n");
    b.git(&["push", "-q", "-u", "origin", "feature/y"]);
    let b_snap = b.snap();
    b.handover(true, &body("Work on feature y.", "Keep going on y."));
    let rb = b.publish(&["--issue", "#2"]);
    b.sync();
    let s = a.sync();
    assert_eq!(s["fetched"], 1);
    let res = &s["resumable"];
    assert_eq!(json::each(&s, "/resumable", "id"), [rb.as_str()]);
    assert_eq!(res[0]["issue"], "#2");
    assert_eq!(res[0]["branch"], "feature/y");
    let recs = a.cj(&["records"], 0);
    assert_eq!(recs["lines"].as_array().unwrap().len(), 2);
    assert!(recs["lines"].as_array().unwrap().iter().all(|l| l["state"] == "linear"), "{recs:#}");
    insta::assert_compact_debug_snapshot!(json::each(&recs, "/diagnostics", "code"), @"[]");
    insta::assert_compact_debug_snapshot!(json::each(&a.cj(&["status"], 0), "/diagnostics", "code"), @"[]");

    b.sync();
    let plan = b.cj(&["plan", "--record", &ra], 10);
    assert_eq!(plan["status"], "requires_source_update", "{plan:#}");
    assert_eq!(json::each(&plan, "/blockers", "code"), ["branch_differs"], "exactly one blocker");
    assert_eq!(plan["source"]["relation"], "branch_differs");
    insta::assert_snapshot!(named(&strings(&plan["actions"]).join("\n"), &[("RA", &ra), ("RB", &rb)]), @"git switch main");
    // The implicit plan on feature/y offers A's record too (no offer on this branch).
    let plan = b.cj(&["plan"], 10);
    assert_eq!(plan["record"]["id"], ra.as_str());
    assert_eq!(json::each(&plan, "/blockers", "code"), ["branch_differs"]);
    assert_eq!((a.snap(), b.snap()), (a_snap, b_snap));
    w.fsck(&[]);
}

// ---------------------------------------------------------------------------------------------
// docs/REFERENCE.md#store scenario 825, docs/REFERENCE.md#front-matter items 41, 43 and the unit-level "unreachable remote then plan"

#[test]
fn scenario_825_offline_first() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let a = &w.a;
    let a_snap = a.snap();
    let moved = env.path().join("remote.moved");
    std::fs::rename(&w.remote, &moved).unwrap();
    a.handover(true, &body("Work offline.", "Sync when back online."));
    let r1 = a.publish(&[]);
    let tip = a.tip().unwrap();
    let s = a.cj(&["sync"], 10);
    assert_eq!(s["action"], "unreachable");
    assert_eq!(s["published"], 0);
    assert_eq!(s["fetched"], 0);
    insta::assert_compact_debug_snapshot!(json::each(&s, "/diagnostics", "code"), @r#"["continuity.remote_unreachable"]"#);
    let text = a.c(&["sync"]).code(10).shown();
    insta::assert_snapshot!(named(&text, &[("R1", &r1)]), @"
    Sync        unreachable with origin
    moved       0 fetched, 0 published
    store       never_synced
    WARNING continuity.remote_unreachable: origin could not be reached (fatal: '[TMP]/remote.git' does not appear to be a git repository); the local store is unchanged and its records stay pending
    --- stderr
    --- exit 10
    ");
    assert_eq!(a.tip().unwrap(), tip, "the local store is unchanged");
    // Status needs no network: it still answers with the remote gone.
    let st = a.cj(&["status"], 0);
    assert_eq!(st["store"]["records"], 1);
    assert!(matches!(st["store"]["sync"].as_str(), Some("never_synced" | "pending")), "{st:#}");
    assert_eq!(st["last_sync"]["outcome"], "unreachable");
    assert_eq!(st["last_sync"]["remote"], "origin");
    insta::assert_compact_debug_snapshot!(strings(&st["next"]), @r#"["git majordomus continuity sync"]"#);
    insta::assert_snapshot!(named(&a.c(&["status"]).ok().shown(), &[("R1", &r1)]), @"
    repository  [HEX]
    device      macbook-pro ([HEX])
    branch      main @ [HEX]  clean
    continues   [R1] (published here)
    store       1 record(s), 0 refused; never synced with origin
    last sync   unreachable with origin at 2026-09-03T20:00:00Z
    resumable   none
    next        git majordomus continuity sync
    --- stderr
    --- exit 0
    ");
    // Unit-level: a plan after an unreachable sync → only warning nothing_published, no actions.
    let plan = a.cj(&["plan"], 0);
    assert_eq!(plan["status"], "nothing_to_resume");
    assert_eq!(json::each(&plan, "/warnings", "code"), ["nothing_published"]);
    assert!(
        plan["blockers"].as_array().unwrap().is_empty() && plan["actions"].as_array().unwrap().is_empty(),
        "{plan:#}"
    );

    // The remote is back: the pending record is published.
    std::fs::rename(&moved, &w.remote).unwrap();
    let s = a.sync();
    assert_eq!(s["published"], 1);
    assert_eq!(s["store"]["sync"], "in_sync");
    assert_eq!(a.cj(&["status"], 0)["last_sync"]["outcome"], "ok");
    assert_eq!(a.snap(), a_snap);

    // A fresh clone: status without the network shows nothing, sync finds the record.
    let c = Machine::clone_of(&env, &w.remote, "c");
    let st = c.cj(&["status"], 0);
    assert_eq!(st["store"]["sync"], "empty");
    assert!(st["resumable"].as_array().unwrap().is_empty());
    insta::assert_compact_debug_snapshot!(json::each(&st, "/diagnostics", "code"), @r#"["continuity.no_device_identity"]"#);
    assert!(!c.node_json().exists(), "a read never creates a device key");
    let s = c.sync();
    assert_eq!(s["fetched"], 1);
    assert_eq!(json::each(&s, "/resumable", "id"), vec![r1]);
    w.fsck(&[&c]);
}

#[test]
fn items_41_to_43_sync_without_remote_bad_remote_names_and_status_offline() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    // No remote at all.
    let lone = Machine::at(&env, "lone", env.ready_repo("lone").root.clone());
    lone.handover(true, HANDOVER);
    lone.publish(&[]);
    let snap = lone.snap();
    let s = lone.cj(&["sync"], 0);
    assert_eq!(s["action"], "no_remote");
    assert!(s["remote"].is_null());
    let d = &s["diagnostics"][0];
    assert_eq!([&d["severity"], &d["code"]], ["info", "continuity.no_remote"]);
    assert_eq!(lone.cj(&["status"], 0)["store"]["sync"], "no_remote");
    insta::assert_snapshot!(lone.c(&["sync"]).ok().shown(), @"
    Sync        no_remote with no remote
    moved       0 fetched, 0 published
    store       no_remote
    INFO    continuity.no_remote: no remote is configured; nothing was synced
    --- stderr
    --- exit 0
    ");
    let mut said = String::new();
    for bad in ["a:b", "../x", "..", "-x", "a b"] {
        let opt = format!("--remote={bad}");
        said += &lone.c(&["sync", &opt]).code(10).shown();
        lone.c(&["verify", &opt]).code(10);
    }
    insta::assert_snapshot!(said, @r#"
    --- stderr
    error: "a:b" is not a remote name
    hint: git remote -v lists them
    --- exit 10
    --- stderr
    error: "../x" is not a remote name
    hint: git remote -v lists them
    --- exit 10
    --- stderr
    error: ".." is not a remote name
    hint: git remote -v lists them
    --- exit 10
    --- stderr
    error: "-x" is not a remote name
    hint: git remote -v lists them
    --- exit 10
    --- stderr
    error: "a b" is not a remote name
    hint: git remote -v lists them
    --- exit 10
    "#);
    let out = lone.run(&["--json", "continuity", "sync", "--remote", "a:b"], "").code(10);
    assert!(out.stdout.is_empty(), "{}", out.all());
    assert_eq!(error(&out.stderr)["exit"], 10);
    assert_eq!(lone.snap(), snap);

    // A clone whose remote does not exist any more: status never touches the network.
    let w = two_machines(&env, Mesh::Undeclared);
    w.a.handover(true, HANDOVER);
    w.a.publish(&[]);
    w.a.sync();
    let gone = env.path().join("does-not-exist.git");
    w.b.git(&["remote", "set-url", "origin", gone.to_str().unwrap()]);
    let st = w.b.cj(&["status"], 0);
    assert_eq!(st["store"]["sync"], "empty", "records only on the remote are not seen without a sync");
    assert!(st["resumable"].as_array().unwrap().is_empty());
    let tip_before = w.b.tip();
    let s = w.b.cj(&["sync"], 10);
    assert_eq!(s["action"], "unreachable");
    assert_eq!(w.b.tip(), tip_before);
    w.fsck(&[&lone]);
}

// ---------------------------------------------------------------------------------------------
// docs/REFERENCE.md#store scenario 826, docs/REFERENCE.md#front-matter item 36

#[test]
fn scenario_826_secrets_and_machine_paths_are_refused_not_redacted() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let a = &w.a;
    let a_snap = a.snap();
    let env_secret = "s3cr3t-deploy-value-42";
    let ghp = format!("{}{}", ["gh", "p_"].concat(), "x1Y2".repeat(9));
    let pem = format!("-----BEGIN {} PRIVATE KEY-----", "OPENSSH");
    let home_path = "/home/alice/work/app/notes.txt";
    let cases: [(&str, &str, &str); 4] = [
        ("deploy with MY_DEPLOY_TOKEN", env_secret, "continuity.secret"),
        ("the token", &ghp, "continuity.secret"),
        ("the key", &pem, "continuity.secret"),
        ("the notes", home_path, "continuity.nonportable_field"),
    ];
    let secret_env = [("MY_DEPLOY_TOKEN", env_secret)];
    let mut said = String::new();
    for (what, value, code) in cases {
        said += &format!("=== {what} ({code})\n");
        let name = a.handover(
            true,
            &format!("# Objective\nShip {what}.\n\n# Current State\nSee {value} here.\n\n# Next Action\nDeploy.\n"),
        );
        for json in [false, true] {
            let mut args = vec!["continuity", "publish", "--handover", &name];
            if json {
                args.insert(0, "--json");
            }
            let out = a.run_env(&args, "", &secret_env).code(10);
            let all = out.all();
            assert!(!all.contains(value), "{what}: the value is echoed: {all}");
            if json {
                let v = printed(&args, &out.stdout);
                assert_eq!(v["written"], false);
                said += &format!("--- JSON refused\n{}\n--- stderr\n{}", v["refused"], out.stderr);
            } else {
                said += &out.shown();
            }
        }
        // The dry run refuses too, and does not echo the value (text or JSON).
        let out = a.run_env(&["continuity", "publish", "--dry-run", "--handover", &name], "", &secret_env).code(10);
        assert!(!out.all().contains(value), "{what}: {}", out.all());
        said += &format!("--- dry run\n{}", out.shown());
        let out =
            a.run_env(&["--json", "continuity", "publish", "--dry-run", "--handover", &name], "", &secret_env).code(10);
        assert!(!out.all().contains(value), "{what}: {}", out.all());
        let v = printed(&["continuity", "publish"], &out.stdout);
        assert_eq!(v["dry_run"], true);
        said += &format!("--- dry run, JSON refused\n{}\n--- stderr\n{}", v["refused"], out.stderr);
        assert_eq!(a.tip(), None, "{what}: the store ref is never created");
        assert!(!a.state("continuity.json").exists());
    }
    insta::assert_snapshot!(said, @r#"
    === deploy with MY_DEPLOY_TOKEN (continuity.secret)
    the handover is not published, because it would carry what must not leave this machine:
      continuity.secret /handover/body: the value of environment variable MY_DEPLOY_TOKEN
    fix: remove those values from the handover (or the task title), write a new handover, and publish again
    --- stderr
    --- exit 10
    --- JSON refused
    [{"code":"continuity.secret","pointer":"/handover/body","reason":"the value of environment variable MY_DEPLOY_TOKEN"}]
    --- stderr
    --- dry run
    the handover is not published, because it would carry what must not leave this machine:
      continuity.secret /handover/body: the value of environment variable MY_DEPLOY_TOKEN
    fix: remove those values from the handover (or the task title), write a new handover, and publish again
    --- stderr
    --- exit 10
    --- dry run, JSON refused
    [{"code":"continuity.secret","pointer":"/handover/body","reason":"the value of environment variable MY_DEPLOY_TOKEN"}]
    --- stderr
    === the token (continuity.secret)
    the handover is not published, because it would carry what must not leave this machine:
      continuity.secret /handover/body: a GitHub token
    fix: remove those values from the handover (or the task title), write a new handover, and publish again
    --- stderr
    --- exit 10
    --- JSON refused
    [{"code":"continuity.secret","pointer":"/handover/body","reason":"a GitHub token"}]
    --- stderr
    --- dry run
    the handover is not published, because it would carry what must not leave this machine:
      continuity.secret /handover/body: a GitHub token
    fix: remove those values from the handover (or the task title), write a new handover, and publish again
    --- stderr
    --- exit 10
    --- dry run, JSON refused
    [{"code":"continuity.secret","pointer":"/handover/body","reason":"a GitHub token"}]
    --- stderr
    === the key (continuity.secret)
    the handover is not published, because it would carry what must not leave this machine:
      continuity.secret /handover/body: a PEM private key
    fix: remove those values from the handover (or the task title), write a new handover, and publish again
    --- stderr
    --- exit 10
    --- JSON refused
    [{"code":"continuity.secret","pointer":"/handover/body","reason":"a PEM private key"}]
    --- stderr
    --- dry run
    the handover is not published, because it would carry what must not leave this machine:
      continuity.secret /handover/body: a PEM private key
    fix: remove those values from the handover (or the task title), write a new handover, and publish again
    --- stderr
    --- exit 10
    --- dry run, JSON refused
    [{"code":"continuity.secret","pointer":"/handover/body","reason":"a PEM private key"}]
    --- stderr
    === the notes (continuity.nonportable_field)
    the handover is not published, because it would carry what must not leave this machine:
      continuity.nonportable_field /handover/body: an absolute home path
    fix: remove those values from the handover (or the task title), write a new handover, and publish again
    --- stderr
    --- exit 10
    --- JSON refused
    [{"code":"continuity.nonportable_field","pointer":"/handover/body","reason":"an absolute home path"}]
    --- stderr
    --- dry run
    the handover is not published, because it would carry what must not leave this machine:
      continuity.nonportable_field /handover/body: an absolute home path
    fix: remove those values from the handover (or the task title), write a new handover, and publish again
    --- stderr
    --- exit 10
    --- dry run, JSON refused
    [{"code":"continuity.nonportable_field","pointer":"/handover/body","reason":"an absolute home path"}]
    --- stderr
    "#);
    // A clean publication (the secret still in the environment) stores none of the values.
    a.handover(true, &body("Ship it.", "Deploy."));
    let out = a.run_env(&["continuity", "publish"], "", &secret_env).ok();
    assert!(out.stdout.starts_with("Published   "), "{}", out.stdout);
    let files = a.store_files(REF);
    assert_eq!(files.len(), 1);
    for v in [env_secret, ghp.as_str(), pem.as_str(), "/home/alice"] {
        assert!(!files[0].1.contains(v));
    }
    assert_eq!(a.snap(), a_snap);
    w.fsck(&[]);
}

// ---------------------------------------------------------------------------------------------
// docs/REFERENCE.md#store scenario 827, docs/REFERENCE.md#front-matter items 37–40 and revocation

#[test]
fn scenario_827_an_altered_blob_is_refused_as_id_mismatch() {
    let env = TestEnv::new();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    a.handover(true, &body("Fix the callback.", "Write the test."));
    let r1 = a.publish(&[]);
    a.sync();
    let b_snap = b.snap();
    b.sync();
    assert_eq!(b.cj(&["records"], 0)["records"].as_array().unwrap().len(), 1);
    // Alter one byte of the blob, under the same name, in a new commit on B's ref.
    let (path, text) = b.store_files(REF).pop().unwrap();
    assert_eq!(path, store_path(&r1));
    let altered = text.replace("Write the test.", "Write the tesT.");
    assert_ne!(altered, text);
    b.store_put(&path, &altered);
    let recs = b.cj(&["records"], 0);
    assert_eq!(recs["records"].as_array().unwrap().len(), 0, "{recs:#}");
    let d: Vec<_> =
        recs["diagnostics"].as_array().unwrap().iter().filter(|d| d["code"] == "continuity.id_mismatch").collect();
    assert_eq!(d.len(), 1, "{recs:#}");
    assert_eq!(d[0]["path"].as_str(), Some(path.as_str()));
    assert_eq!(d[0]["severity"], "error");
    assert!(b.c(&["records"]).ok().stdout.starts_with("0 record(s)\nERROR   continuity.id_mismatch "));
    let plan = b.cj(&["plan", "--record", &r1[..10]], 0);
    assert_eq!(plan["status"], "nothing_to_resume", "{plan:#}");
    assert_eq!(json::each(&plan, "/blockers", "code"), ["continuity.id_mismatch"]);
    assert_eq!(b.cj(&["plan"], 0)["status"], "nothing_to_resume");
    let st = b.cj(&["status"], 0);
    assert_eq!([&st["store"]["records"], &st["store"]["refused"]], [0, 1]);
    b.cj(&["verify"], 10);
    // Deleting the read model changes no answer.
    let _ = std::fs::remove_dir_all(b.root().join(".git/majordomus/readmodel"));
    assert_eq!(b.cj(&["records"], 0)["records"].as_array().unwrap().len(), 0);
    assert_eq!(b.cj(&["resume"], 10)["resumed"], false);
    assert!(b.arrived().is_empty());
    assert_eq!(b.snap(), b_snap);
    w.fsck(&[]);
}

/// A v9 record as a later executable of machine A would store it: A's record with its schema
/// raised and a field this executable does not know, signed by A's device key (a newer schema
/// is kept only when its envelope verifies under a key the store does not refuse:
/// docs/REFERENCE.md#admission).
fn v9_record(a: &Machine<'_>) -> (String, String) {
    let (_, text) = a.store_files(REF).pop().unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let mut record = v["record"].clone();
    record["schema"] = "majordomus-continuity/v9".into();
    record["future_field"] = "from a later executable".into();
    let key = majordomus::continuity::signing::load(&a.node_json()).unwrap().unwrap();
    let e = key.sign_value(sorted_value(&record));
    assert_eq!(e.id, record_id(&record), "docs/REFERENCE.md#front-matter item 37: id = BLAKE3(canonical(record))");
    (store_path(&e.id), String::from_utf8(majordomus::continuity::record::stored_bytes(&e)).unwrap())
}

fn sorted_value(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), sorted_value(&m[k]))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted_value).collect()),
        other => other.clone(),
    }
}

#[test]
fn scenario_827_a_too_new_record_is_kept_across_syncs() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    a.handover(true, &body("Fix the callback.", "Write the test."));
    a.publish(&[]);
    let (v9_path, v9) = v9_record(a);
    a.store_put(&v9_path, &v9);
    let check = |m: &Machine<'_>| {
        let st = m.cj(&["status"], 0);
        assert_eq!([&st["store"]["records"], &st["store"]["refused"]], [1, 1], "{st:#}");
        let codes = ["continuity.schema_too_new", "continuity.upgrade_required"];
        assert_eq!(json::each(&st, "/diagnostics", "code"), codes, "{st:#}");
        let recs = m.cj(&["records"], 0);
        assert_eq!(recs["records"].as_array().unwrap().len(), 1);
        assert_eq!(json::each(&recs, "/diagnostics", "code"), codes, "{recs:#}");
        let ver = m.cj(&["verify"], 0);
        assert_eq!(ver["too_new"], 1, "{ver:#}");
        insta::allow_duplicates! {
            insta::assert_snapshot!(m.c(&["verify"]).ok().shown(), @"
            WARNING continuity.schema_too_new records/[..]/[..]/[HEX].json: majordomus-continuity/v9 is newer than this executable reads; kept, not read
            verified 2 record(s): 1 admitted, 0 refused, 0 untrusted (1 too new, kept)
            --- stderr
            --- exit 0
            ");
        }
        assert!(m.store_files(REF).iter().any(|(p, _)| *p == v9_path), "the v9 record is kept in the tree");
    };
    check(a);
    let s = a.sync();
    assert_eq!(s["published"], 1);
    assert!(store_files(&env, &w.remote, REF).iter().any(|(p, _)| *p == v9_path));
    b.sync();
    check(b);
    // Across further syncs in both directions.
    b.handover(true, &body("Fix the callback.", "More."));
    b.publish(&[]);
    b.sync();
    a.sync();
    for m in [a, b] {
        assert!(m.store_files(REF).iter().any(|(p, _)| *p == v9_path));
        assert_eq!(m.cj(&["status"], 0)["store"]["refused"], 1);
    }
    assert!(store_files(&env, &w.remote, REF).iter().any(|(p, _)| *p == v9_path));
    w.fsck(&[]);
}

/// Attack D3: files that claim a newer schema without a signature that verifies (none at all,
/// or another record's) are stray on the machine that reads them: not counted, not merged into
/// its store, so never pushed again from there.
#[test]
fn scenario_827_a_too_new_record_without_its_signature_is_stray_and_not_merged() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    a.handover(true, &body("Fix the callback.", "Write the test."));
    a.publish(&[]);
    let (_, signed) = v9_record(a);
    let mut v: Value = serde_json::from_str(&signed).unwrap();
    let (_, other) = a.store_files(REF).into_iter().find(|(p, _)| p.starts_with("records/")).unwrap();
    let other: Value = serde_json::from_str(&other).unwrap();
    // Another record's signature; then none at all.
    v["signature"] = other["signature"].clone();
    let borrowed = serde_json::to_string_pretty(&v).unwrap() + "\n";
    v["signature"] = "".into();
    let unsigned = serde_json::to_string_pretty(&v).unwrap() + "\n";
    let id = v["id"].as_str().unwrap().to_string();
    let path = store_path(&id);
    let mut said = String::new();
    for (what, text) in [("another record's signature", &borrowed), ("no signature", &unsigned)] {
        a.store_put(&path, text);
        let st = a.cj(&["status"], 0);
        assert_eq!([&st["store"]["records"], &st["store"]["refused"]], [1, 0], "{what}: {st:#}");
        assert_eq!(json::each(&st, "/diagnostics", "code"), ["continuity.stray_file"], "{what}: {st:#}");
        let recs = a.cj(&["records"], 0);
        let stray =
            recs["diagnostics"].as_array().unwrap().iter().find(|d| d["path"].as_str() == Some(path.as_str())).unwrap();
        assert_eq!(stray["code"], "continuity.stray_file", "{what}: {recs:#}");
        said += &format!("{what}: {}\n", json::text(stray, "/message"));
        let ver = a.cj(&["verify"], 0);
        assert_eq!(ver["too_new"], 0, "{what}: {ver:#}");
        // Pushed by the machine that planted it, it is not taken in by another.
        a.sync();
        assert!(store_files(&env, &w.remote, REF).iter().any(|(p, _)| *p == path), "{what}");
        b.sync();
        assert!(!b.store_files(REF).iter().any(|(p, _)| *p == path), "{what}: merged into B's store");
        assert_eq!(b.cj(&["status"], 0)["store"]["refused"], 0, "{what}");
    }
    insta::assert_snapshot!(said, @"
    another record's signature: claims majordomus-continuity/v9, but its signature does not verify (signature does not verify over the record); not merged
    no signature: claims majordomus-continuity/v9, but its signature does not verify (signature is not a minisign (ED) signature); not merged
    ");
    w.fsck(&[]);
}

#[test]
fn scenario_827_a_fork_record_is_never_merged() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Undeclared);
    let a = &w.a;
    a.handover(true, &body("Fix the callback.", "Write the test."));
    a.publish(&[]);
    a.sync();
    // A fork: same layer, another root commit, its own store and remote.
    let fork_remote = env.path().join("fork.git");
    env.git_in(env.path(), &["init", "--bare", "-q", "-b", "main", fork_remote.to_str().unwrap()]);
    env.git_in(&fork_remote, &["config", "receive.denyNonFastForwards", "true"]);
    let f = Machine::clone_of(&env, &fork_remote, "f");
    f.run(&["init"], "").ok();
    f.repo.write("README.md", "a fork\n");
    f.git(&["add", "-A"]);
    f.git(&["commit", "-q", "-m", "fork root"]);
    f.git(&["push", "-q", "-u", "origin", "main"]);
    f.handover(true, &body("Fork work.", "Fork next."));
    let rf = f.publish(&[]);
    f.sync();
    let a_snap = a.snap();
    a.git(&["remote", "add", "fork", fork_remote.to_str().unwrap()]);
    let s = a.cj(&["sync", "--remote", "fork"], 0);
    insta::assert_snapshot!(serde_json::to_string_pretty(&s["diagnostics"]).unwrap(), @r#"
    [
      {
        "severity": "error",
        "code": "continuity.foreign_repository",
        "path": "records/[..]/[..]/[HEX].json",
        "message": "it belongs to another repository (a fork shares a name, not a root history)"
      }
    ]
    "#);
    assert!(!a.store_files(REF).iter().any(|(p, _)| p.contains(&rf)), "the fork record is absent from the tree");
    assert_eq!(s["fetched"], 0);
    let st = a.cj(&["status"], 0);
    assert!(st["resumable"].as_array().unwrap().is_empty());
    assert_eq!([&st["store"]["records"], &st["store"]["refused"]], [1, 0], "{st:#}");
    assert_eq!(a.cj(&["records"], 0)["records"].as_array().unwrap().len(), 1);
    assert_eq!(a.snap(), a_snap);
    w.fsck(&[&f]);
    env.git_in(&fork_remote, &["fsck", "--strict"]);
}

#[test]
fn scenario_827_item_40_untrusted_signer_is_refused_and_undeclared_only_warned() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::OnlyA);
    let (a, b) = (&w.a, &w.b);
    b.handover(true, &body("Desktop work.", "Continue on the laptop."));
    let rb = b.publish(&[]);
    b.sync();
    let a_snap = a.snap();
    a.sync();
    let plan = a.cj(&["plan"], 10);
    assert_eq!(plan["status"], "refused", "{plan:#}");
    assert_eq!(plan["record"]["id"], rb.as_str());
    assert_eq!(plan["record"]["trust"], "untrusted");
    assert_eq!(json::each(&plan, "/blockers", "code"), ["origin_untrusted"]);
    insta::assert_snapshot!(json::text(&plan, "/blockers/0/message"), @"record [HEX] is signed by key [KEY ID] (device label desktop), which is untrusted here: its content is withheld, not quoted; add its public key to `trust.allow` of the mesh declaration under .ai/repo/mesh/ to resume its records");
    insta::assert_snapshot!(named(&a.c(&["plan"]).code(10).shown(), &[("RB", &rb)]), @"
    Resume      refused
    record      [RB]
    device      desktop [untrusted]
    key         [KEY ID]
    published   0 min ago
    withheld: untrusted — its task, objective and next action are not quoted: the key that signed it is not trusted here
    BLOCKER origin_untrusted: record [RB] is signed by key [KEY ID] (device label desktop), which is untrusted here: its content is withheld, not quoted; add its public key to `trust.allow` of the mesh declaration under .ai/repo/mesh/ to resume its records
    --- stderr
    --- exit 10
    ");
    let r = a.cj(&["resume"], 10);
    assert_eq!(r["resumed"], false);
    assert!(a.arrived().is_empty(), "resume writes no handover");
    assert!(
        !a.repo.exists(".ai/local/state/decisions.md")
            || !a.repo.read(".ai/local/state/decisions.md").contains("Carried:")
    );
    let ver = a.cj(&["verify"], 10);
    assert_eq!(ver["untrusted"], 1);
    insta::assert_snapshot!(named(&a.c(&["verify"]).code(10).shown(), &[("RB", &rb)]), @"
    ERROR   continuity.untrusted records/[..]/[..]/[RB].json: signed by desktop ([HEX]), whose key is not in trust.allow
    verified 1 record(s): 1 admitted, 0 refused, 1 untrusted
    --- stderr
    --- exit 10
    ");
    assert_eq!(a.snap(), a_snap);

    w.fsck(&[]);

    // No mesh declaration at all → warning origin_undeclared only.
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Undeclared);
    let (a, b) = (&w.a, &w.b);
    b.handover(true, &body("Desktop work.", "Continue on the laptop."));
    let rb = b.publish(&[]);
    b.sync();
    a.sync();
    let plan = a.cj(&["plan"], 0);
    assert_eq!(plan["record"]["id"], rb.as_str());
    assert_eq!(plan["record"]["trust"], "undeclared");
    assert_eq!(plan["status"], "ready_with_warnings");
    assert_eq!(json::each(&plan, "/warnings", "code"), ["origin_undeclared"], "{plan:#}");
    assert!(plan["blockers"].as_array().unwrap().is_empty());
    insta::assert_snapshot!(named(&a.c(&["status"]).ok().shown(), &[("RB", &rb)]), @"
    repository  [HEX]
    device      macbook-pro ([HEX])
    branch      main @ [HEX]  clean
    continues   nothing yet on this branch
    store       1 record(s), 0 refused; in sync with origin
    last sync   ok with origin at 2026-09-03T20:00:00Z
    Resumable from another device (1)
    record      [RB]
    device      desktop [undeclared]
    key         [KEY ID]
    published   0 min ago
    source      main @ [HEX]  clean
    objective   Desktop work.
    next        git majordomus continuity plan
    --- stderr
    --- exit 0
    ");
    a.cj(&["verify"], 0);
    w.fsck(&[]);
}

#[test]
fn a_revoked_key_is_refused_on_every_read_even_after_admission() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let (a, (ka, kb)) = (&w.a, &w.keys);
    let rb = w.desktop_record();
    assert_eq!(a.cj(&["records"], 0)["records"].as_array().unwrap().len(), 1);
    a.cj(&["verify"], 0);
    // Revoke B's key (the record was admitted before and sits in the admission cache).
    a.repo.write(".ai/repo/mesh/home.yaml", &mesh_yaml(&[ka], &[kb]));
    let a_snap = a.snap();
    let recs = a.cj(&["records"], 0);
    assert_eq!(recs["records"].as_array().unwrap().len(), 0, "{recs:#}");
    insta::assert_compact_debug_snapshot!(json::each(&recs, "/diagnostics", "code"), @r#"["continuity.revoked_key"]"#);
    let st = a.cj(&["status"], 0);
    assert!(st["resumable"].as_array().unwrap().is_empty());
    assert_eq!(st["store"]["refused"], 1);
    let plan = a.cj(&["plan", "--record", &rb[..8]], 0);
    assert_eq!(plan["status"], "nothing_to_resume", "{plan:#}");
    assert_eq!(json::each(&plan, "/blockers", "code"), ["continuity.revoked_key"]);
    assert_eq!(a.cj(&["plan"], 0)["status"], "nothing_to_resume");
    let r = a.cj(&["resume", "--record", &rb[..8]], 10);
    assert_eq!(r["resumed"], false);
    assert!(a.arrived().is_empty());
    let ver = a.cj(&["verify"], 10);
    assert_eq!(ver["refused"], 1, "{ver:#}");
    insta::assert_compact_debug_snapshot!(json::each(&ver, "/problems", "code"), @r#"["continuity.revoked_key"]"#);
    assert_eq!(a.snap(), a_snap);
    w.fsck(&[]);
}

/// A record whose parent the store holds but refused (its signer revoked since) is told so:
/// the parent is refused, not missing (the old message, "a sync may fetch it", was wrong).
#[test]
fn a_parent_held_but_refused_is_named_as_refused_not_missing() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let (a, (ka, kb)) = (&w.a, &w.keys);
    let rb = w.desktop_record();
    assert_eq!(a.cj(&["resume", "--record", &rb[..12]], 0)["resumed"], true);
    a.handover(true, &body("Laptop work.", "Ship it."));
    let ra = a.publish(&[]);
    a.repo.write(".ai/repo/mesh/home.yaml", &mesh_yaml(&[ka], &[kb]));
    let st = a.cj(&["status"], 0);
    let dangling: Vec<&str> = st["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "continuity.dangling_parent")
        .filter_map(|d| d["message"].as_str())
        .collect();
    let want = format!(
        "record {} continues {}, which this store holds but refused (continuity.revoked_key)",
        &ra[..12],
        &rb[..12]
    );
    assert_eq!(dangling, [want.as_str()], "{st:#}");
    let text = a.c(&["status"]).ok().stdout;
    insta::assert_snapshot!(named(&text, &[("RA", &ra), ("RB", &rb)]), @"
    repository  [HEX]
    device      macbook-pro ([HEX])
    branch      main @ [HEX]  clean
    continues   [RA] (published here)
    store       1 record(s), 1 refused; 1 record(s) here not yet on origin
    last sync   ok with origin at 2026-09-03T20:00:00Z
    resumable   none
    ERROR   continuity.revoked_key records/[..]/[..]/[RB].json: signed by a revoked key (device desktop, key [KEY ID])
    WARNING continuity.dangling_parent records/[..]/[..]/[RA].json: record [RA] continues [RB], which this store holds but refused (continuity.revoked_key)
    next        git majordomus continuity sync
    ");
    w.fsck(&[]);
}

// ---------------------------------------------------------------------------------------------
// docs/REFERENCE.md#front-matter items 33–35

#[test]
fn item_33_publish_without_a_handover_refuses_and_creates_nothing() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let m = Machine::at(&env, "m", env.ready_repo("m").root.clone());
    let snap = m.snap();
    let out = m.c(&["publish"]).code(10);
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    error: no handover record under .ai/local/state/handovers/ to publish
    hint: write one with `git majordomus handover` (# Objective, # Current State, # Next Action on stdin)
    --- exit 10
    ");
    assert!(!m.node_json().exists(), "no device key");
    assert!(!m.xdg.join("majordomus").exists());
    assert!(!m.home.join(".local").exists());
    assert_eq!(m.tip(), None);
    assert!(!m.state("continuity.json").exists());
    let out = m.run(&["--json", "continuity", "publish"], "").code(10);
    assert!(out.stdout.is_empty(), "{}", out.all());
    assert_eq!(error(&out.stderr)["exit"], 10);
    // A named file that is not a handover record: refused.
    let mut said = String::new();
    for bad in ["../x.md", "x.txt", ".hidden.md", "nope.md"] {
        said += &m.c(&["publish", "--handover", bad]).code(10).shown();
    }
    insta::assert_snapshot!(said, @"
    --- stderr
    error: `../x.md` is not the file name of a handover record under .ai/local/state/handovers/
    hint: git majordomus handover --list shows the records
    --- exit 10
    --- stderr
    error: `x.txt` is not the file name of a handover record under .ai/local/state/handovers/
    hint: git majordomus handover --list shows the records
    --- exit 10
    --- stderr
    error: `.hidden.md` is not the file name of a handover record under .ai/local/state/handovers/
    hint: git majordomus handover --list shows the records
    --- exit 10
    --- stderr
    error: no handover record `nope.md` under .ai/local/state/handovers/
    hint: git majordomus handover --list shows the records
    --- exit 10
    ");
    assert!(!m.node_json().exists(), "a refused publication creates no key");
    // The dry run is the receipt: it writes nothing, not even a key.
    m.handover(true, HANDOVER);
    let out = m.c(&["publish", "--dry-run"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    Dry run: nothing was signed or stored. This would leave the machine:
    /schema (24 bytes): majordomus-continuity/v1
    /repository (32 bytes): [HEX]
    /device/node (20 bytes): (created on publish)
    /device/label (20 bytes): (created on publish)
    /episode (4 bytes): none
    /published_at (20 bytes): 2026-09-03T20:00:00Z
    /producer (20 bytes): git-majordomus/[VERSION]
    /source/branch (4 bytes): main
    /source/head (40 bytes): [HEX]
    /source/working_tree (5 bytes): clean
    /source/changed_total (1 bytes): 0
    /handover/id (32 bytes): [HEX]
    /handover/branch (4 bytes): main
    /handover/head (40 bytes): [HEX]
    /handover/created_at (20 bytes): 2026-09-03T20:00:00Z
    /handover/name (52 bytes): 20260903T200000Z--main--[HEX]--[HEX].md
    /handover/body (101 bytes):
    # Objective
    Fix the callback.

    # Current State
    Reproduced.

    # Next Action
    Write the regression test.

    --- stderr
    --- exit 0
    ");
    assert!(!m.node_json().exists() && m.tip().is_none() && !m.state("continuity.json").exists());
    // status never creates a key either.
    let st = m.cj(&["status"], 0);
    assert!(st["device"].is_null());
    insta::assert_compact_debug_snapshot!(json::each(&st, "/diagnostics", "code"), @r#"["continuity.no_device_identity"]"#);
    assert!(!m.node_json().exists());
    // publish creates the key (0600).
    m.publish(&[]);
    assert!(m.node_json().exists());
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(m.node_json()).unwrap().permissions().mode() & 0o777, 0o600);
    let key: Value = serde_json::from_str(&std::fs::read_to_string(m.node_json()).unwrap()).unwrap();
    assert_eq!(key["schema"], "majordomus-device/v1");
    // A malformed key file is an error, never replaced.
    std::fs::write(m.node_json(), "not json\n").unwrap();
    m.c(&["device"]).code(13);
    m.c(&["publish"]).code(13);
    assert_eq!(std::fs::read_to_string(m.node_json()).unwrap(), "not json\n");
    // So is an unreadable continuity.json (docs/REFERENCE.md#local-state).
    std::fs::write(m.state("continuity.json"), "{\"schema\": \"other/v1\"}\n").unwrap();
    m.c(&["status"]).code(13);
    assert_eq!(m.repo.read(".ai/local/state/continuity.json"), "{\"schema\": \"other/v1\"}\n");
    assert_eq!(m.snap(), snap);
}

#[test]
fn items_34_35_republishing_is_unchanged_and_publish_touches_only_its_ref_and_state() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let a = &w.a;
    a.handover(true, HANDOVER);
    let refs_before = a.git(&["for-each-ref"]);
    let snap = a.snap();
    let files_before: Vec<String> = a.local_files().into_iter().map(|(p, _)| p).collect();
    let r1 = a.publish(&[]);
    let tip = a.tip().unwrap();
    // docs/REFERENCE.md#front-matter item 35: only refs/majordomus/continuity and continuity.json change.
    let refs_after = a.git(&["for-each-ref"]);
    let added: Vec<&str> = refs_after.lines().filter(|l| !refs_before.lines().any(|b| b == *l)).collect();
    assert_eq!(added.len(), 1, "{refs_after}");
    assert!(added[0].ends_with(&format!("commit\t{REF}")));
    assert!(refs_before.lines().all(|l| refs_after.lines().any(|x| x == l)));
    let files_after: Vec<String> = a.local_files().into_iter().map(|(p, _)| p).collect();
    let new: Vec<&String> = files_after.iter().filter(|p| !files_before.contains(p)).collect();
    assert_eq!(new, [".ai/local/state/continuity.json"]);
    assert_eq!(a.snap(), snap);
    let msg = a.git(&["log", "-1", "--format=%s", REF]);
    assert_eq!(msg, format!("majordomus continuity: {} from macbook-pro", &r1[..12]));
    let local: Value = serde_json::from_str(&a.repo.read(".ai/local/state/continuity.json")).unwrap();
    assert_eq!(local["schema"], "majordomus-continuity-local/v1");
    assert_eq!(local["branches"]["main"]["record"], r1.as_str());
    assert_eq!(local["branches"]["main"]["via"], "published");
    // docs/REFERENCE.md#front-matter item 34: the same handover at the same source → written: false, no new commit.
    let v = a.cj(&["publish"], 0);
    assert_eq!(v["written"], false);
    assert_eq!(v["record"]["id"], r1.as_str());
    let out = a.c(&["publish"]).ok();
    insta::assert_snapshot!(named(&out.shown(), &[("R1", &r1)]), @"
    Unchanged   [R1] already holds this handover
    handover    .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    record      [R1]
    device      macbook-pro (this device)
    published   0 min ago
    source      main @ [HEX]  clean
    objective   Fix the callback.
    line        [R1] (new)
    next        git majordomus continuity sync
    --- stderr
    --- exit 0
    ");
    assert_eq!(a.tip().unwrap(), tip, "no new commit on the ref");
    assert_eq!(a.store_files(REF).len(), 1);
    // The source changed (a dirty tree): a new record continues the first.
    a.repo.write("lib/wip.rs", "wip\n");
    let v = a.cj(&["publish"], 0);
    assert_eq!(v["written"], true);
    assert_eq!(v["record"]["parent"], r1.as_str());
    assert_eq!(a.store_files(REF).len(), 2);
    std::fs::remove_file(a.root().join("lib/wip.rs")).unwrap();
    assert_eq!(a.snap(), snap);
    // Sync never moves a branch on the remote.
    let heads = w.remote_heads();
    a.sync();
    assert_eq!(w.remote_heads(), heads);
    assert_eq!(a.snap(), snap);
    w.fsck(&[]);
}

// ---------------------------------------------------------------------------------------------
// docs/REFERENCE.md#front-matter item 51, verify, export, stray files

#[test]
fn item_51_record_prefixes_choose_and_unknown() {
    let env = TestEnv::new();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    a.handover(true, &body("One.", "One next."));
    let r1 = a.publish(&[]);
    a.sync();
    b.git(&["switch", "-q", "-c", "other"]);
    b.handover(true, &body("Two.", "Two next."));
    let r2 = b.publish(&[]);
    b.sync();
    a.sync();
    let snap = a.snap();
    let plan = a.cj(&["plan", "--record", ""], 10);
    assert_eq!(plan["status"], "choose_record", "{plan:#}");
    let mut got = json::each(&plan, "/candidates", "id");
    got.sort();
    let mut want = vec![r1.clone(), r2.clone()];
    want.sort();
    assert_eq!(got, want);
    assert!(plan["record"].is_null());
    let unknown = (0..16u8)
        .map(|n| format!("{n:x}"))
        .find(|p| !r1.starts_with(p.as_str()) && !r2.starts_with(p.as_str()))
        .unwrap()
        + "0000";
    let plan = a.cj(&["plan", "--record", &unknown], 0);
    assert_eq!(plan["status"], "nothing_to_resume");
    assert_eq!(json::each(&plan, "/blockers", "code"), ["record_unknown"]);
    assert_eq!(plan["actions"], serde_json::json!(["git majordomus continuity sync"]));
    let r = a.cj(&["resume", "--record", ""], 10);
    assert_eq!(r["resumed"], false);
    assert_eq!(a.snap(), snap);
    w.fsck(&[]);
}

#[test]
fn verify_and_export_for_the_stock_minisign_tool() {
    let env = TestEnv::new();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    a.handover(true, HANDOVER);
    let r1 = a.publish(&[]);
    a.sync();
    b.sync();
    let snap = b.snap();
    let v = b.cj(&["verify"], 0);
    assert_eq!([&v["verified"], &v["admitted"], &v["refused"], &v["untrusted"]], [1, 1, 0, 0]);
    assert_eq!(b.c(&["verify"]).ok().stdout, "verified 1 record(s): 1 admitted, 0 refused, 0 untrusted\n");
    let v = b.cj(&["verify", "--remote", "origin"], 0);
    assert_eq!(v["verified"], 2);
    // export: the three files, verified by the stock minisign.
    let dir = env.path().join("export");
    let out = b.c(&["export", &r1[..8], "--dir", dir.to_str().unwrap()]).ok();
    assert_eq!(out.stdout.lines().count(), 3, "{}", out.stdout);
    let msg = dir.join(format!("{r1}.msg"));
    let pubf = dir.join(format!("{r1}.pub"));
    assert!(dir.join(format!("{r1}.msg.minisig")).exists());
    let m = std::fs::read(&msg).unwrap();
    assert!(m.starts_with(b"majordomus-continuity-record/v1\n{\""));
    let stored: Value = serde_json::from_str(&b.store_files(REF)[0].1).unwrap();
    assert_eq!(&m[b"majordomus-continuity-record/v1\n".len()..], canonical(&stored["record"]).as_bytes());
    let sig = std::fs::read_to_string(dir.join(format!("{r1}.msg.minisig"))).unwrap();
    assert_eq!(sig, stored["signature"].as_str().unwrap());
    assert!(sig.starts_with("untrusted comment: signature from git-majordomus\n"));
    assert_eq!(
        sig.lines().nth(2),
        Some(format!("trusted comment: majordomus-continuity id:{r1} node:{}", a.node()).as_str()),
        "{sig}"
    );
    if crate::common::have(crate::common::Tool::Minisign) {
        let mv = std::process::Command::new("minisign").arg("-Vm").arg(&msg).arg("-p").arg(&pubf).output().unwrap();
        let said = format!("{}{}", String::from_utf8_lossy(&mv.stdout), String::from_utf8_lossy(&mv.stderr));
        assert!(mv.status.success(), "minisign: {said}");
        assert!(said.contains("Signature and comment signature verified"), "{said}");
        // Tampering with the message makes the stock tool refuse.
        let mut bad = m.clone();
        let last = bad.len() - 2;
        bad[last] ^= 1;
        std::fs::write(&msg, bad).unwrap();
        let mv = std::process::Command::new("minisign").arg("-Vm").arg(&msg).arg("-p").arg(&pubf).output().unwrap();
        assert!(!mv.status.success());
    }
    // Bad prefixes.
    b.c(&["export", "abc", "--dir", dir.to_str().unwrap()]).code(2);
    b.c(&["export", "ABCD", "--dir", dir.to_str().unwrap()]).code(2);
    let unknown = if r1.starts_with("0000") { "1111" } else { "0000" };
    b.c(&["export", unknown, "--dir", dir.to_str().unwrap()]).code(12);
    // docs/REFERENCE.md#device-key: the public key file.
    let pk = b.c(&["device", "--public-key-file"]).ok().stdout;
    assert!(pk.starts_with("untrusted comment: ") && pk.lines().nth(1).unwrap().starts_with("RW"), "{pk}");
    assert_eq!(b.snap(), snap);
    w.fsck(&[]);
}

#[test]
fn a_stray_file_in_the_store_is_reported_and_ignored() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    a.handover(true, HANDOVER);
    a.publish(&[]);
    a.store_put("records/stray.json", "{}\n");
    let snap = a.snap();
    let text = a.c(&["records"]).ok().shown();
    insta::assert_snapshot!(text, @"
    1 record(s)
    [HEX]  line [HEX]  parent -  macbook-pro  main  2026-09-03T20:00:00Z
    WARNING continuity.stray_file records/stray.json: not a record of the store; it is ignored
    --- stderr
    --- exit 0
    ");
    let recs = a.cj(&["records"], 0);
    insta::assert_compact_debug_snapshot!(json::each(&recs, "/diagnostics", "code"), @r#"["continuity.stray_file"]"#);
    insta::assert_snapshot!(a.c(&["status"]).ok().shown(), @"
    repository  [HEX]
    device      macbook-pro ([HEX])
    branch      main @ [HEX]  clean
    continues   [HEX] (published here)
    store       1 record(s), 0 refused; never synced with origin
    resumable   none
    WARNING continuity.stray_file records/stray.json: not a record of the store; it is ignored
    next        git majordomus continuity sync
    --- stderr
    --- exit 0
    ");
    let st = a.cj(&["status"], 0);
    assert_eq!([&st["store"]["records"], &st["store"]["refused"]], [1, 0]);
    a.cj(&["verify"], 0);
    // It is pushed with the store, but a fetching store leaves it out of its tree.
    a.sync();
    let s = b.sync();
    insta::assert_compact_debug_snapshot!(json::each(&s, "/diagnostics", "code"), @r#"["continuity.stray_file"]"#);
    assert!(!b.store_files(REF).iter().any(|(p, _)| p == "records/stray.json"));
    assert_eq!(b.cj(&["records"], 0)["records"].as_array().unwrap().len(), 1);
    assert_eq!(a.snap(), snap);
    w.fsck(&[]);
}

#[test]
fn two_enabled_mesh_declarations_refuse_every_continuity_command() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let a = &w.a;
    a.repo.write(".ai/repo/mesh/second.yaml", &mesh_yaml(&[], &[]));
    let mut said = String::new();
    for sub in [&["status"][..], &["records"], &["plan"], &["sync"], &["publish"], &["verify"]] {
        said += &format!("=== {sub:?}\n{}", a.c(sub).code(10).shown());
    }
    insta::assert_snapshot!(said, @r#"
    === ["status"]
    --- stderr
    hint: this clone has no continuity records yet (git clone does not bring refs/majordomus/continuity): run git majordomus continuity sync, and git majordomus hooks install --fetch-refspec so that git fetch brings them
    error: more than one enabled mesh declaration: .ai/repo/mesh/home.yaml, .ai/repo/mesh/second.yaml
    hint: keep exactly one with enabled: true
    --- exit 10
    === ["records"]
    --- stderr
    error: more than one enabled mesh declaration: .ai/repo/mesh/home.yaml, .ai/repo/mesh/second.yaml
    hint: keep exactly one with enabled: true
    --- exit 10
    === ["plan"]
    --- stderr
    error: more than one enabled mesh declaration: .ai/repo/mesh/home.yaml, .ai/repo/mesh/second.yaml
    hint: keep exactly one with enabled: true
    --- exit 10
    === ["sync"]
    --- stderr
    error: more than one enabled mesh declaration: .ai/repo/mesh/home.yaml, .ai/repo/mesh/second.yaml
    hint: keep exactly one with enabled: true
    --- exit 10
    === ["publish"]
    --- stderr
    error: more than one enabled mesh declaration: .ai/repo/mesh/home.yaml, .ai/repo/mesh/second.yaml
    hint: keep exactly one with enabled: true
    --- exit 10
    === ["verify"]
    --- stderr
    error: more than one enabled mesh declaration: .ai/repo/mesh/home.yaml, .ai/repo/mesh/second.yaml
    hint: keep exactly one with enabled: true
    --- exit 10
    "#);
    w.fsck(&[]);
}

// ---------------------------------------------------------------------------------------------
// docs/REFERENCE.md#sync step 4: a refused push and an unreachable push are partial syncs

#[test]
fn a_refused_or_unreachable_push_is_a_partial_sync() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let a = &w.a;
    let snap = a.snap();
    // The remote declines every continuity ref update (a pre-receive hook).
    let hook = w.remote.join("hooks/pre-receive");
    std::fs::write(&hook, "#!/bin/sh\nwhile read old new name; do case \"$name\" in refs/majordomus/*) echo \"no continuity here\" >&2; exit 1;; esac; done\nexit 0\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    a.handover(true, HANDOVER);
    a.publish(&[]);
    let s = a.cj(&["sync"], 10);
    assert_eq!(s["published"], 0, "{s:#}");
    assert_eq!(s["action"], "none", "{s:#}");
    insta::assert_compact_debug_snapshot!(json::each(&s, "/diagnostics", "code"), @r#"["continuity.push_rejected"]"#);
    let st = a.cj(&["status"], 0);
    assert_eq!(st["last_sync"]["outcome"], "partial");
    assert_eq!(st["store"]["sync"], "never_synced");
    assert_eq!(w.remote_git(&["for-each-ref", REF]), "");
    std::fs::remove_file(&hook).unwrap();
    // The push URL goes nowhere while fetching works: the push exits 128.
    let gone = env.path().join("nowhere.git");
    a.git(&["remote", "set-url", "--push", "origin", gone.to_str().unwrap()]);
    let s = a.cj(&["sync"], 0);
    assert_eq!(s["published"], 0, "{s:#}");
    insta::assert_compact_debug_snapshot!(json::each(&s, "/diagnostics", "code"), @r#"["continuity.remote_unreachable"]"#);
    assert_eq!(a.cj(&["status"], 0)["last_sync"]["outcome"], "partial");
    // Back to normal: the pending record is published.
    a.git(&["config", "--unset", "remote.origin.pushurl"]);
    let s = a.sync();
    assert_eq!(s["published"], 1);
    assert_eq!(s["store"]["sync"], "in_sync");
    assert_eq!(a.snap(), snap);
    w.fsck(&[]);
}

// ---------------------------------------------------------------------------------------------
// docs/REFERENCE.md#plans: an episode still open at the origin is advisory, and only for an hour

#[test]
fn an_open_episode_at_the_origin_is_an_advisory_warning_for_an_hour() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    let sid = a.run(&["session", "start"], "").ok().stdout.split_whitespace().nth(1).unwrap().to_string();
    a.handover(true, HANDOVER);
    let v = a.cj(&["publish"], 0);
    let r1 = json::text(&v, "/record/id").to_string();
    assert_eq!(v["record"]["session"], sid.as_str());
    let stored: Value = serde_json::from_str(&a.store_files(REF)[0].1).unwrap();
    assert_eq!(stored["record"]["episode"], "open");
    a.sync();
    b.sync();
    let snap = b.snap();
    env.set_now("2026-09-03T20:59:00Z");
    let plan = b.cj(&["plan"], 0);
    assert_eq!(plan["status"], "ready_with_warnings");
    assert_eq!(json::each(&plan, "/warnings", "code"), ["origin_may_be_active"]);
    assert_eq!(plan["record"]["age_minutes"], 59);
    env.set_now("2026-09-03T21:00:00Z");
    let plan = b.cj(&["plan"], 0);
    assert_eq!(plan["status"], "ready", "{plan:#}");
    insta::assert_snapshot!(named(&b.c(&["plan"]).ok().shown(), &[("R1", &r1), ("SESSION", &sid)]), @"
    Resume      ready
    record      [R1]
    device      macbook-pro [trusted]
    key         [KEY ID]
    published   1 h ago
    source      main @ [HEX]  clean
    objective   Fix the callback.
    Source
      expected    main @ [HEX]
      local       main @ [HEX]
      relation    exact
    Next action
      Write the regression test.
    Restores    handover, intent, issue, decisions, next_action, lineage, provenance
    Recomputes  worktree, repository_id, episode, working_context, local_source_state
    run git majordomus continuity resume --record [R1]
    --- stderr
    --- exit 0
    ");
    env.set_now("2026-09-06T21:00:00Z");
    insta::assert_snapshot!(named(&b.c(&["status"]).ok().shown(), &[("R1", &r1), ("SESSION", &sid)]), @"
    repository  [HEX]
    device      desktop ([HEX])
    branch      main @ [HEX]  clean
    continues   nothing yet on this branch
    store       1 record(s), 0 refused; in sync with origin
    last sync   ok with origin at 2026-09-03T20:00:00Z
    Resumable from another device (1)
    record      [R1]
    device      macbook-pro [trusted]
    key         [KEY ID]
    published   3 d ago
    source      main @ [HEX]  clean
    objective   Fix the callback.
    next        git majordomus continuity plan
    --- stderr
    --- exit 0
    ");
    b.cj(&["resume", "--record", &r1], 0);
    assert_eq!(b.snap(), snap);
    w.fsck(&[]);
}

// ---------------------------------------------------------------------------------------------
// The read model (docs/REFERENCE.md#read-model): a cache, never a second source of truth

impl Machine<'_> {
    /// The read-model file of the local store.
    fn cache(&self) -> PathBuf {
        self.root().join(".git/majordomus/readmodel/refs%majordomus%continuity.bin")
    }

    /// Replaces `from` with `to` (same length) in the local store's read-model file, its
    /// checksums made to match (as a program that writes the format would), unless `damage`.
    fn edit_cache_as(&self, from: &str, to: &str, damage: bool) {
        assert_eq!(from.len(), to.len());
        let bytes = std::fs::read(self.cache()).unwrap();
        let at = bytes
            .windows(from.len())
            .position(|w| w == from.as_bytes())
            .unwrap_or_else(|| panic!("{from} not in the cache"));
        let mut out = bytes.clone();
        out[at..at + to.len()].copy_from_slice(to.as_bytes());
        if !damage {
            out = majordomus::continuity::readmodel::reseal(&out).expect("a read-model file");
        }
        std::fs::write(self.cache(), out).unwrap();
    }

    fn edit_cache(&self, from: &str, to: &str) {
        self.edit_cache_as(from, to, false)
    }

    /// Every read answer that goes through the read model, as JSON.
    fn reads(&self) -> Vec<Value> {
        let plan = self.run(&["--json", "continuity", "plan"], "");
        let plan = printed(&["continuity", "plan"], &plan.stdout);
        vec![self.cj(&["status", "--all"], 0), self.cj(&["records"], 0), plan]
    }

    /// The same answers read warm (through the cache as it stands) and cold (no cache); the
    /// warm cache is put back afterwards, so later reads go on updating it incrementally.
    #[track_caller]
    fn assert_warm_equals_cold(&self) {
        let warm = self.reads();
        assert_eq!(self.cache().exists(), self.tip().is_some(), "a read of a store writes its read model");
        let dir = self.root().join(".git/majordomus/readmodel");
        if !dir.exists() {
            return;
        }
        let aside = self.root().join(".git/majordomus/readmodel.aside");
        std::fs::rename(&dir, &aside).unwrap();
        let cold = self.reads();
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::rename(&aside, &dir).unwrap();
        assert_eq!(warm, cold, "{}: an incremental read differs from a cold one", self.name);
    }
}

fn objective_of_first_resumable(st: &Value) -> String {
    json::text(st, "/resumable/0/objective").to_string()
}

#[test]
fn read_model_of_another_format_or_rules_is_ignored_and_deleting_it_changes_no_answer() {
    let env = TestEnv::new();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    a.handover(true, &body("Fix the callback.", "Write the test."));
    a.publish(&[]);
    a.sync();
    b.sync();
    let first = b.cj(&["status"], 0);
    assert_eq!(objective_of_first_resumable(&first), "Fix the callback.");
    let text = String::from_utf8_lossy(&std::fs::read(b.cache()).unwrap()).to_string();
    let header = text.lines().next().unwrap().to_string();
    assert!(header.starts_with("majordomus-readmodel/5 "), "{header}");
    assert!(!text.contains("Write the test."), "the read model keeps no bodies");
    // The cache is what a warm read answers from (so the checks below mean something) ...
    b.edit_cache("Fix the callback.", "Fix the kallback.");
    assert_eq!(objective_of_first_resumable(&b.cj(&["status"], 0)), "Fix the kallback.");
    // ... but one written in another format is ignored and rebuilt,
    // (checksums are this format's: another format's file is not sealed by this one)
    b.edit_cache_as("majordomus-readmodel/5 ", "majordomus-readmodel/1 ", true);
    assert_eq!(objective_of_first_resumable(&b.cj(&["status"], 0)), "Fix the callback.");
    // and so is one written under other rules (another version, other admission tables).
    b.edit_cache("Fix the callback.", "Fix the kallback.");
    let rules = header.split(' ').nth(1).unwrap();
    let other = format!("{}{}", if rules.starts_with('0') { '1' } else { '0' }, &rules[1..]);
    b.edit_cache(rules, &other);
    assert_eq!(objective_of_first_resumable(&b.cj(&["status"], 0)), "Fix the callback.");
    // A damaged file is ignored too, and said to be (once).
    std::fs::write(b.cache(), &text.as_bytes()[..text.len() / 2]).unwrap();
    let damaged = b.run(&["--json", "continuity", "status"], "").ok();
    assert_eq!(printed(&["continuity", "status"], &damaged.stdout), first);
    let damage_line = "warning: read model .git/majordomus/readmodel/refs%majordomus%continuity.bin: damaged (checksum mismatch); rebuilt from the store\n";
    assert_eq!(damaged.stderr, damage_line);
    assert_eq!(b.c(&["status"]).ok().stderr, "", "rebuilt");
    // A damaged record part is found when the record is shown: the file is removed with one
    // line, and the next read rebuilds it.
    b.edit_cache_as("Fix the callback.", "Fix the kallback.", true);
    let shown = b.run(&["--json", "continuity", "status"], "").ok();
    assert_eq!(
        shown.stderr,
        "warning: read model of refs/majordomus/continuity: a damaged entry (checksum mismatch); removed, it is rebuilt on the next read — run the command again\n"
    );
    assert!(!b.cache().exists());
    assert_eq!(b.cj(&["status"], 0), first);
    assert!(b.cache().exists());
    // Deleting it changes no answer.
    std::fs::remove_dir_all(b.root().join(".git/majordomus/readmodel")).unwrap();
    assert_eq!(b.cj(&["status"], 0), first);
    b.assert_warm_equals_cold();
    w.fsck(&[]);
}

#[test]
fn verify_refuses_a_tampered_blob_even_when_a_stale_read_model_vouches_for_its_path() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    a.handover(true, &body("Fix the callback.", "Write the test."));
    let r1 = a.publish(&[]);
    a.sync();
    b.sync();
    assert_eq!(b.cj(&["records"], 0)["records"].as_array().unwrap().len(), 1);
    let old_tip = b.tip().unwrap();
    let (path, text) = b.store_files(REF).pop().unwrap();
    assert_eq!(path, store_path(&r1));
    b.store_put(&path, &text.replace("Write the test.", "Write the tesT."));
    let new_tip = b.tip().unwrap();
    // The read model now claims the new tip holds the old, admitted blob at that path.
    b.edit_cache(&old_tip, &new_tip);
    assert_eq!(b.cj(&["records"], 0)["records"].as_array().unwrap().len(), 1, "reads trust their own cache");
    let v = b.cj(&["verify"], 10);
    assert_eq!([&v["admitted"], &v["refused"]], [0, 1], "{v:#}");
    assert_eq!(json::each(&v, "/problems", "code"), ["continuity.id_mismatch"]);
    insta::assert_snapshot!(named(&b.c(&["verify"]).code(10).shown(), &[("R1", &r1)]), @"
    ERROR   continuity.id_mismatch records/[..]/[..]/[R1].json: its content does not match its id and path; it was altered
    verified 1 record(s): 0 admitted, 1 refused, 0 untrusted
    --- stderr
    --- exit 10
    ");
    // Without the stale cache every read agrees with verify.
    std::fs::remove_dir_all(b.root().join(".git/majordomus/readmodel")).unwrap();
    assert_eq!(b.cj(&["records"], 0)["records"].as_array().unwrap().len(), 0);
    w.fsck(&[]);
}

#[test]
fn resume_admits_the_chosen_record_again_from_its_blob_whatever_the_read_model_says() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    a.handover(true, &body("Fix the callback.", "Write the test."));
    let r1 = a.publish(&[]);
    a.sync();
    b.sync();
    let old_tip = b.tip().unwrap();
    let (path, text) = b.store_files(REF).pop().unwrap();
    b.store_put(&path, &text.replace("Write the test.", "Run the script."));
    // The read model claims the new tip holds the old, admitted blob at that path: the plan
    // trusts it ...
    b.edit_cache(&old_tip, &b.tip().unwrap());
    let plan = b.cj(&["plan", "--record", &r1[..12]], 0);
    assert_eq!(plan["status"], "ready", "{plan:#}");
    // ... the write does not.
    let snap = b.snap();
    let out = b.c(&["resume", "--record", &r1[..12]]).code(10);
    insta::assert_snapshot!(named(&out.shown(), &[("R1", &r1)]), @"
    --- stderr
    error: continuity resume: record [R1] is not admitted when read again from its blob
    hint: run `git majordomus continuity verify` to see why; nothing was written
    --- exit 10
    ");
    assert!(b.arrived().is_empty());
    assert_eq!(b.snap(), snap);
    w.fsck(&[]);
}

#[test]
fn incremental_reads_equal_cold_reads_after_sync_a_forced_remote_ref_and_gc() {
    let env = TestEnv::new();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    a.handover(true, &body("First.", "One."));
    let r1 = a.publish(&[]);
    a.handover(true, &body("Second.", "Two."));
    a.publish(&[]);
    a.sync();
    b.sync();
    b.assert_warm_equals_cold();
    // Both sides continue; each sync reads the other's new records incrementally.
    b.cj(&["resume", "--record", &r1[..12]], 0);
    b.handover(true, &body("Third, from b.", "Three."));
    b.publish(&[]);
    a.handover(true, &body("Fourth, from a.", "Four."));
    a.publish(&[]);
    a.cj(&["status"], 0);
    b.cj(&["status"], 0);
    b.sync();
    a.sync();
    a.assert_warm_equals_cold();
    b.sync();
    b.assert_warm_equals_cold();
    // The remote's ref is forced back to an older store: the remote-tracking ref moves backwards.
    let remote_tip = env.git_in(&w.remote, &["rev-parse", REF]);
    let older = env.git_in(&w.remote, &["rev-parse", &format!("{remote_tip}~1")]);
    env.git_in(&w.remote, &["update-ref", REF, &older]);
    a.handover(true, &body("Fifth.", "Five."));
    a.publish(&[]);
    a.sync();
    a.assert_warm_equals_cold();
    b.cj(&["status"], 0);
    b.sync();
    b.assert_warm_equals_cold();
    // A rewritten local ref whose cached tip is then pruned by gc: the read starts over.
    a.cj(&["status"], 0);
    let tip = a.tip().unwrap();
    let tree = a.git(&["rev-parse", &format!("{tip}^{{tree}}")]);
    let lone = a.git(&["commit-tree", &tree, "-m", "test: the same store, history rewritten"]);
    a.git(&["update-ref", REF, &lone]);
    a.git(&["update-ref", "-d", "refs/majordomus/remotes/origin/continuity"]);
    a.git(&["reflog", "expire", "--expire=now", "--all"]);
    a.git(&["gc", "-q", "--prune=now"]);
    let (ok, _) = git_try(&env, a.root(), &["cat-file", "-e", &tip]);
    assert!(!ok, "the cached tip was pruned");
    a.assert_warm_equals_cold();
    a.handover(true, &body("Sixth.", "Six."));
    a.publish(&[]);
    a.assert_warm_equals_cold();
    w.fsck(&[]);
}

#[test]
fn status_shows_the_newest_twenty_resumable_records_and_the_totals() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    for i in 0..23 {
        env.set_now(&format!("2026-09-03T10:{i:02}:00Z"));
        a.handover(true, &body(&format!("Work item {i}."), "Go on."));
        // Each record on its own line: no position, so each publication starts a line.
        let _ = std::fs::remove_file(a.state("continuity.json"));
        a.publish(&[]);
    }
    a.sync();
    b.sync();
    let st = b.cj(&["status"], 0);
    assert_eq!(st["resumable_total"], 23, "{st:#}");
    assert_eq!(st["lines_total"], 23);
    assert_eq!(st["resumable"].as_array().unwrap().len(), 20);
    assert_eq!(objective_of_first_resumable(&st), "Work item 22.", "newest first");
    assert_eq!(st["lines"].as_array().unwrap().len(), 0, "only diverged lines are listed");
    let all = b.cj(&["status", "--all"], 0);
    assert_eq!(all["resumable"].as_array().unwrap().len(), 23);
    assert_eq!(all["lines"].as_array().unwrap().len(), 23);
    let text = b.c(&["status"]).ok().stdout;
    // The newest record and the oldest of the twenty shown, then the totals.
    let lines: Vec<&str> = text.lines().collect();
    insta::assert_snapshot!([&lines[..13], &["..."], &lines[lines.len() - 8..]].concat().join("\n"), @"
    repository  [HEX]
    device      desktop ([HEX])
    branch      main @ [HEX]  clean
    continues   nothing yet on this branch
    store       23 record(s), 0 refused; in sync with origin
    last sync   ok with origin at 2026-09-03T10:22:00Z
    Resumable from another device (23)
    record      [HEX]
    device      macbook-pro [trusted]
    key         [KEY ID]
    published   0 min ago
    source      main @ [HEX]  clean
    objective   Work item 22.
    ...
    record      [HEX]
    device      macbook-pro [trusted]
    key         [KEY ID]
    published   19 min ago
    source      main @ [HEX]  clean
    objective   Work item 3.
    more        3 older (git majordomus continuity status --all)
    next        git majordomus continuity plan
    ");
    let local: Value = serde_json::from_str(&std::fs::read_to_string(b.state("continuity.json")).unwrap()).unwrap();
    assert_eq!(local["offers"].as_array().unwrap().len(), 20);
    assert_eq!(local["offers_total"], 23);
    let recs = b.cj(&["records", "--limit", "5"], 0);
    assert_eq!(recs["records"].as_array().unwrap().len(), 5);
    assert_eq!(recs["records_total"], 23);
    let every = b.cj(&["records"], 0);
    assert_eq!(json::each(&recs, "/records", "id"), json::each(&every, "/records", "id")[..5]);
    assert!(b.c(&["records", "--limit", "2"]).ok().stdout.starts_with("2 of 23 record(s)\n"));
    w.fsck(&[]);
}

/// Random sequences of publish, sync and resume on two clones (a fixed-seed generator, so a
/// failure replays): after every step, the machine's incremental reads equal cold ones.
#[test]
fn property_incremental_reads_equal_cold_reads_over_random_publish_sync_resume() {
    for seed in [7u64, 1_234_567] {
        let env = TestEnv::new();
        let w = two_machines(&env, Mesh::Both);
        let mut state = seed;
        let mut next = |n: u64| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % n
        };
        for step in 0..10 {
            let m = if next(2) == 0 { &w.a } else { &w.b };
            match next(4) {
                0 | 1 => {
                    m.handover(true, &body(&format!("Step {step} on {}.", m.name), "Go on."));
                    m.publish(&[]);
                }
                2 => {
                    m.sync();
                }
                _ => {
                    let plan = m.run(&["--json", "continuity", "plan", "--record", ""], "");
                    let plan = printed(&["continuity", "plan"], &plan.stdout);
                    let mut candidates = json::each(&plan, "/candidates", "id");
                    candidates.extend(plan["record"]["id"].as_str().map(str::to_string));
                    if let Some(id) = candidates.get(next(candidates.len().max(1) as u64) as usize) {
                        let _ = m.run(&["continuity", "resume", "--record", id], "");
                    }
                }
            }
            m.assert_warm_equals_cold();
        }
        w.fsck(&[]);
    }
}

// ---------------------------------------------------------------------------------------------
// Issue 22: rewrites across machines (docs/REFERENCE.md#rewrites with docs/REFERENCE.md#continuity-commands, docs/REFERENCE.md#sync, docs/REFERENCE.md#plans)

/// The first seven characters of a commit id.
fn h7(c: &str) -> &str {
    &c[..7]
}

/// A world whose remote takes forced pushes, A on a new branch `feat` with one commit `lib/a`
/// pushed, a handover and a record published and synced there; B has fetched the branch,
/// checked it out and synced. Returns the world, the commit and the record id.
fn published_on_feat(env: &TestEnv) -> (World<'_>, String, String) {
    let w = two_machines(env, Mesh::Both);
    w.remote_git(&["config", "receive.denyNonFastForwards", "false"]);
    let (a, b) = (&w.a, &w.b);
    a.git(&["switch", "-q", "-c", "feat"]);
    let x = a.repo.commit_file("lib/a", "feature\n");
    a.git(&["push", "-q", "-u", "origin", "feat"]);
    a.handover(true, &body("Finish feat.", "Write the tests."));
    let r1 = a.publish(&[]);
    a.sync();
    b.git(&["fetch", "-q", "origin"]);
    b.git(&["switch", "-q", "-c", "feat", "origin/feat"]);
    b.sync();
    let plan = b.cj(&["plan"], 0);
    assert_eq!(plan["source"]["relation"], "exact", "{plan:#}");
    assert!(plan["source"].get("rewrite").is_none(), "{plan:#}");
    (w, x, r1)
}

/// B fetches the code and moves its `feat` to the new `origin/feat`.
fn follow_feat(b: &Machine<'_>) {
    b.git(&["fetch", "-q", "origin"]);
    b.git(&["reset", "-q", "--hard", "origin/feat"]);
}

/// `git patch-id --stable` of a commit's own change, as git computes it.
fn patch_id(m: &Machine<'_>, commit: &str) -> String {
    let out = m.env.sh(m.root(), &format!("git diff-tree -p --root {commit} | git patch-id --stable"), b"", &[]).ok();
    out.stdout.split_whitespace().next().unwrap().to_string()
}

#[test]
fn issue_22_a_rebased_and_force_pushed_head_is_exact_by_patch_id_on_the_other_machine() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (w, x, r1) = published_on_feat(&env);
    let (a, b) = (&w.a, &w.b);

    // A: upstream moves on; feat is rebased onto it and force-pushed.
    a.git(&["switch", "-q", "main"]);
    a.repo.commit_file("docs/upstream", "upstream\n");
    a.git(&["push", "-q", "origin", "main"]);
    a.git(&["switch", "-q", "feat"]);
    a.git(&["rebase", "-q", "main"]);
    let x2 = a.repo.head();
    assert_ne!(x, x2);
    a.git(&["push", "-q", "-f", "origin", "feat"]);

    // B: fetches the code, syncs continuity, follows the branch.
    b.sync();
    follow_feat(b);
    let b_snap = b.snap();
    let plan = b.cj(&["plan"], 0);
    assert_eq!(plan["record"]["id"].as_str(), Some(r1.as_str()));
    assert_eq!(plan["source"]["relation"], "exact", "{plan:#}");
    assert_eq!(plan["source"]["expected_head"].as_str(), Some(x.as_str()), "the recorded head stays as written");
    let rw = json::at(&plan, "/source/rewrite");
    assert_eq!([&rw["from"], &rw["to"]], [x.as_str(), x2.as_str()]);
    assert_eq!(rw["by"], "unknown", "the origin's reflog is not here: content is the only proof");
    assert_eq!(rw["proof"]["kind"], "patch-id");
    assert_eq!(rw["proof"]["value"], patch_id(b, &x));
    assert_eq!(plan["status"], "ready", "{plan:#}");
    let text = b.c(&["plan"]).ok().stdout;
    let ids =
        [("R1", r1.as_str()), ("X", x.as_str()), ("X2", x2.as_str()), ("PATCH ID", json::text(rw, "/proof/value"))];
    insta::assert_snapshot!(named(&text, &ids), @"
    Resume      ready
    record      [R1]
    device      macbook-pro [trusted]
    key         [KEY ID]
    published   0 min ago
    source      feat @ [X]  clean
    objective   Finish feat.
    Source
      expected    feat @ [X]
      local       feat @ [X2]
      relation    exact
      rewritten   [X] -> [X2] (patch-id: [PATCH ID])
    Next action
      Write the tests.
    Restores    handover, intent, issue, decisions, next_action, lineage, provenance
    Recomputes  worktree, repository_id, episode, working_context, local_source_state
    run git majordomus continuity resume --record [R1]
    ");

    // A commit after the rewritten head: local_ahead, judged on the rewrite.
    b.repo.commit_file("lib/b", "more\n");
    let plan = b.cj(&["plan"], 0);
    assert_eq!(plan["source"]["relation"], "local_ahead", "{plan:#}");
    assert_eq!(plan["source"]["rewrite"]["to"], x2.as_str());
    assert_eq!(json::each(&plan, "/warnings", "code"), ["local_ahead"]);
    insta::assert_snapshot!(named(json::text(&plan, "/warnings/0/message"), &ids), @"this checkout's head [HEX] has commits after [X2], which holds the record's head [X] rewritten (patch-id)");
    let r = b.cj(&["resume"], 0);
    assert_eq!(r["resumed"], true, "{r:#}");
    assert_eq!(b.snap().head, b.repo.head());
    assert_ne!(b.snap(), b_snap);
    w.fsck(&[]);
}

#[test]
fn issue_22_a_reworded_head_is_exact_by_tree_and_other_content_stays_diverged() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (w, x, r1) = published_on_feat(&env);
    let (a, b) = (&w.a, &w.b);
    let tree = b.git(&["rev-parse", &format!("{x}^{{tree}}")]);

    // Reworded only: the same tree.
    a.git(&["commit", "-q", "--amend", "-m", "feat: reworded"]);
    let x1 = a.repo.head();
    a.git(&["push", "-q", "-f", "origin", "feat"]);
    follow_feat(b);
    let plan = b.cj(&["plan", "--record", &r1], 0);
    assert_eq!(plan["source"]["relation"], "exact", "{plan:#}");
    let rw = json::at(&plan, "/source/rewrite");
    assert_eq!([&rw["to"], &rw["proof"]["kind"], &rw["proof"]["value"]], [x1.as_str(), "tree", tree.as_str()]);

    // Other content under the record's own message: no proof, diverged.
    a.repo.write("lib/a", "something else entirely\n");
    a.git(&["commit", "-q", "-a", "--amend", "-m", "change lib/a"]);
    let x2 = a.repo.head();
    assert_eq!(a.git(&["log", "-1", "--format=%s", &x]), a.git(&["log", "-1", "--format=%s", &x2]));
    a.git(&["push", "-q", "-f", "origin", "feat"]);
    follow_feat(b);
    let b_snap = b.snap();
    let plan = b.cj(&["plan", "--record", &r1], 10);
    assert_eq!(plan["status"], "conflict", "{plan:#}");
    assert_eq!(plan["source"]["relation"], "diverged");
    assert!(plan["source"]["rewrite"].is_null(), "messages are never proof: {plan:#}");
    assert_eq!(json::each(&plan, "/blockers", "code"), ["source_diverged"]);
    let ids = [("R1", r1.as_str()), ("X", x.as_str()), ("X1", x1.as_str()), ("X2", x2.as_str())];
    insta::assert_snapshot!(named(&b.c(&["plan", "--record", &r1]).code(10).shown(), &ids), @"
    Resume      conflict
    record      [R1]
    device      macbook-pro [trusted]
    key         [KEY ID]
    published   0 min ago
    source      feat @ [X]  clean
    objective   Finish feat.
    Source
      expected    feat @ [X]
      local       feat @ [X2]
      relation    diverged
    Next action
      Write the tests.
    Restores    handover, intent, issue, decisions, next_action, lineage, provenance
    Recomputes  worktree, repository_id, episode, working_context, local_source_state
    BLOCKER source_diverged: the record's head [X] and this checkout's head [X2] have diverged; reconcile them with git first
    --- stderr
    --- exit 10
    ");
    let r = b.cj(&["resume", "--record", &r1], 10);
    assert_eq!(r["resumed"], false);
    assert_eq!(b.snap(), b_snap);
    w.fsck(&[]);
}

#[test]
fn issue_22_a_head_this_clone_cannot_read_stays_head_missing_until_it_is_fetched() {
    let env = TestEnv::new();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    a.git(&["switch", "-q", "-c", "feat"]);
    let x = a.repo.commit_file("lib/a", "feature\n");
    a.handover(true, &body("Finish feat.", "Write the tests."));
    let r1 = a.publish(&[]);
    a.sync();
    // Only the reworded commit (the same tree) reaches the remote.
    a.git(&["commit", "-q", "--amend", "-m", "feat: reworded"]);
    let x1 = a.repo.head();
    a.git(&["push", "-q", "-u", "origin", "feat"]);
    b.git(&["fetch", "-q", "origin"]);
    b.git(&["switch", "-q", "-c", "feat", "origin/feat"]);
    b.sync();
    let plan = b.cj(&["plan"], 10);
    assert_eq!(plan["record"]["id"].as_str(), Some(r1.as_str()));
    assert_eq!(plan["source"]["relation"], "head_missing", "a proof uses only objects present here: {plan:#}");
    assert!(plan["source"]["rewrite"].is_null());
    assert_eq!(json::each(&plan, "/blockers", "code"), ["head_missing"]);

    // Once the recorded commit can be read here, its tree proves the rewrite.
    a.git(&["push", "-q", "origin", &format!("{x}:refs/heads/backup")]);
    b.git(&["fetch", "-q", "origin"]);
    let plan = b.cj(&["plan"], 0);
    assert_eq!(plan["source"]["relation"], "exact", "{plan:#}");
    let rw = json::at(&plan, "/source/rewrite");
    assert_eq!([&rw["from"], &rw["to"], &rw["proof"]["kind"]], [x.as_str(), x1.as_str(), "tree"]);
    w.fsck(&[]);
}

#[test]
fn issue_22_a_squash_merged_record_landed_in_main_and_is_not_resumed_there() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let (a, b) = (&w.a, &w.b);
    a.git(&["switch", "-q", "-c", "feat"]);
    a.repo.commit_file("lib/a", "one\n");
    let x2 = a.repo.commit_file("lib/b", "two\n");
    a.git(&["push", "-q", "-u", "origin", "feat"]);
    a.handover(true, &body("Finish feat.", "Open the pull request."));
    let r1 = a.publish(&[]);
    a.sync();

    // B: main moves on, then feat is squash-merged into it (as a forge's squash merge does).
    b.git(&["fetch", "-q", "origin"]);
    b.sync();
    b.git(&["branch", "-q", "feat", "origin/feat"]);
    b.repo.commit_file("docs/other", "other work\n");
    b.git(&["merge", "-q", "--squash", "feat"]);
    b.git(&["commit", "-q", "-m", "feat (#1)"]);
    let s = b.repo.head();
    let b_snap = b.snap();
    let landed = format!("landed in main as {} (squash-merge — range-patch-id)", h7(&s));

    for args in [&["plan", "--record", &r1[..12]][..], &["plan"][..]] {
        let plan = b.cj(args, 0);
        assert_eq!(plan["status"], "nothing_to_resume", "{plan:#}");
        assert_eq!(plan["source"]["relation"], "branch_differs");
        assert_eq!(json::each(&plan, "/blockers", "code"), ["landed"], "{plan:#}");
        assert_eq!(plan["blockers"][0]["message"], format!("this record's work {landed}: nothing to resume"));
        assert_eq!(plan["actions"], serde_json::json!([]), "{plan:#}");
        let l = json::at(&plan, "/record/landed");
        assert_eq!([&l["branch"], &l["commit"], &l["by"]], ["main", s.as_str(), "squash-merge"]);
        assert_eq!(l["proof"]["kind"], "range-patch-id");
    }
    let ids = [("R1", r1.as_str()), ("S", s.as_str()), ("X2", x2.as_str())];
    let text = b.c(&["plan", "--record", &r1]).ok().stdout;
    insta::assert_snapshot!(named(&text, &ids), @"
    Resume      nothing_to_resume
    record      [R1]
    device      macbook-pro [trusted]
    key         [KEY ID]
    published   0 min ago
    source      feat @ [X2]  clean
    work        landed in main as [S] (squash-merge — range-patch-id)
    objective   Finish feat.
    Source
      expected    feat @ [X2]
      local       main @ [S]
      relation    branch_differs
    Next action
      Open the pull request.
    Restores    handover, intent, issue, decisions, next_action, lineage, provenance
    Recomputes  worktree, repository_id, episode, working_context, local_source_state
    BLOCKER landed: this record's work landed in main as [S] (squash-merge — range-patch-id): nothing to resume
    ");
    let r = b.cj(&["resume", "--record", &r1], 10);
    assert_eq!(r["resumed"], false, "{r:#}");
    assert!(r.get("handover").is_none(), "{r:#}");
    assert_eq!(r["plan"]["status"], "nothing_to_resume");
    assert!(b.c(&["resume"]).code(10).stdout.starts_with("Resume blocked  nothing_to_resume\n"));
    assert!(b.arrived().is_empty());

    // status and records say where it landed.
    let st = b.cj(&["status"], 0);
    let l = json::at(&st, "/resumable/0/landed");
    assert_eq!([&l["branch"], &l["commit"]], ["main", s.as_str()]);
    let text = b.c(&["status"]).ok().stdout;
    insta::assert_snapshot!(named(&text, &ids), @"
    repository  [HEX]
    device      desktop ([HEX])
    branch      main @ [S]  clean
    continues   nothing yet on this branch
    store       1 record(s), 0 refused; in sync with origin
    last sync   ok with origin at 2026-09-03T20:00:00Z
    Resumable from another device (1)
    record      [R1]
    device      macbook-pro [trusted]
    key         [KEY ID]
    published   0 min ago
    source      feat @ [X2]  clean
    work        landed in main as [S] (squash-merge — range-patch-id)
    objective   Finish feat.
    next        git majordomus continuity plan
    ");
    let rs = b.cj(&["records"], 0);
    let rec = rs["records"].as_array().unwrap().iter().find(|v| v["id"] == r1).unwrap();
    assert_eq!(rec["landed"]["commit"], s.as_str());
    let text = b.c(&["records"]).ok().stdout;
    let line = text.lines().find(|l| l.starts_with(&r1[..12])).unwrap();
    assert!(line.ends_with(&format!("  {landed}")), "{text}");
    assert_eq!(b.snap(), b_snap);

    // On feat itself nothing landed: the record is resumed as usual.
    b.git(&["switch", "-q", "feat"]);
    let plan = b.cj(&["plan"], 0);
    assert_eq!([&plan["status"], &plan["source"]["relation"]], ["ready", "exact"], "{plan:#}");
    assert!(plan["record"]["landed"].is_null());
    assert_eq!(plan["source"]["expected_head"].as_str(), Some(x2.as_str()));
    let st = b.cj(&["status"], 0);
    assert!(st["resumable"][0]["landed"].is_null());
    w.fsck(&[]);
}

#[test]
fn issue_22_publish_warns_when_the_handovers_commit_is_on_no_remote_branch() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Both);
    let a = &w.a;
    let unpushed = "is on no remote branch: push it, or the other machine cannot resume";
    a.git(&["switch", "-q", "-c", "feat"]);
    let x = a.repo.commit_file("lib/a", "feature\n");
    a.handover(true, &body("Finish feat.", "Push it."));
    let warning = format!("warning: the handover's commit {} {unpushed}\n", h7(&x));
    let dry = a.run(&["continuity", "publish", "--dry-run"], "").ok();
    assert_eq!(dry.stderr, warning);
    let out = a.run(&["--json", "continuity", "publish"], "").ok();
    assert_eq!(out.stderr, warning);
    insta::assert_snapshot!(named(&warning, &[("X", &x)]), @"warning: the handover's commit [X] is on no remote branch: push it, or the other machine cannot resume");
    let v = printed(&["continuity", "publish"], &out.stdout);
    assert_eq!(v["written"], true, "a warning, not a refusal");

    // Pushed: republishing (unchanged) says nothing.
    a.git(&["push", "-q", "-u", "origin", "feat"]);
    let out = a.run(&["continuity", "publish"], "").ok();
    assert!(out.stdout.starts_with("Unchanged   "), "{}", out.stdout);
    assert_eq!(out.stderr, "");

    // A commit under a pushed one is on the remote branch too.
    a.repo.commit_file("lib/b", "more\n");
    a.git(&["push", "-q", "origin", "feat"]);
    let out = a.run(&["continuity", "publish", "--dry-run"], "").ok();
    assert_eq!(out.stderr, "");

    // A clone without any remote cannot sync either: it keeps quiet.
    let m = Machine::at(&env, "lonely", env.ready_repo("lonely").root.clone());
    m.device("lonely");
    m.repo.commit_file("lib/a", "x\n");
    m.handover(true, &body("Alone.", "Add a remote."));
    let out = m.run(&["continuity", "publish"], "").ok();
    assert_eq!(out.stderr, "");
    w.fsck(&[]);
}

// ---------------------------------------------------------------------------------------------
// Issue 24 item 6: a bare repository (a server-side hook, a CI mirror) verifies and lists

/// `continuity verify` and `records` read a bare repository: the store there, judged against
/// the mesh declaration committed on its HEAD (no working tree, no layer on disk); the other
/// commands still need a checkout and say which ones do not.
#[test]
fn verify_and_records_read_a_bare_repository_with_its_committed_mesh() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::OnlyA);
    let (a, b) = (&w.a, &w.b);
    a.handover(true, &body("Laptop work.", "Go on."));
    let ra = a.publish(&[]);
    a.sync();
    b.handover(true, &body("Desktop work.", "Go on."));
    let rb = b.publish(&[]);
    b.sync();
    let mut both = vec![ra.clone(), rb.clone()];
    both.sort();
    // The server side: no device key, no layer on disk, the mesh only in HEAD's tree.
    let bare = |args: &[&str]| env.run(&w.remote, args, None, &[("XDG_STATE_HOME", "/nonexistent")]);
    assert!(!w.remote.join(".ai").exists());
    let out = bare(&["--json", "continuity", "verify"]).code(10);
    let ver = printed(&["continuity", "verify"], &out.stdout);
    assert_eq!([&ver["verified"], &ver["admitted"], &ver["refused"], &ver["untrusted"]], [2, 2, 0, 1], "{ver:#}");
    assert_eq!(ver["problems"].as_array().unwrap().len(), 1);
    assert!(ver["problems"][0]["path"].as_str().is_some_and(|p| p.ends_with(&format!("{rb}.json"))), "{ver:#}");
    let ids = [("RA", ra.as_str()), ("RB", rb.as_str())];
    insta::assert_snapshot!(named(&bare(&["continuity", "verify"]).code(10).shown(), &ids), @"
    ERROR   continuity.untrusted records/[..]/[..]/[RB].json: signed by desktop ([HEX]), whose key is not in trust.allow
    verified 2 record(s): 2 admitted, 0 refused, 1 untrusted
    --- stderr
    --- exit 10
    ");
    let recs = printed(&["continuity", "records"], &bare(&["--json", "continuity", "records"]).ok().stdout);
    assert_eq!(recs["records_total"], 2);
    let mut ids = json::each(&recs, "/records", "id");
    ids.sort();
    assert_eq!(ids, both);
    // The same lines as a checkout that synced.
    a.sync();
    let here = a.cj(&["records"], 0);
    assert_eq!(recs["lines"].as_array().unwrap().len(), here["lines"].as_array().unwrap().len());
    assert_eq!(json::each(&recs, "/records", "id"), json::each(&here, "/records", "id"));
    let text = bare(&["continuity", "records"]).ok().stdout;
    assert!(text.starts_with("2 record(s)\n"), "{text}");
    // `--repo` with a relative path to the bare repository reads the same.
    let name = w.remote.file_name().unwrap().to_str().unwrap();
    let rel = format!("../{name}");
    let sub = w.remote.parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&sub).unwrap();
    let by_rel = env.run(&sub, &["--repo", &rel, "continuity", "records"], None, &[("XDG_STATE_HOME", "/nonexistent")]);
    assert_eq!(by_rel.ok().stdout, text);
    // Without a mesh on HEAD every signer is undeclared: nothing is untrusted.
    let plain = env.path().join("plain.git");
    env.git_in(env.path(), &["clone", "-q", "--bare", w.remote.to_str().unwrap(), plain.to_str().unwrap()]);
    env.git_in(
        &plain,
        &["fetch", "-q", w.remote.to_str().unwrap(), "+refs/majordomus/continuity:refs/majordomus/continuity"],
    );
    let first = env.git_in(&plain, &["rev-list", "--max-parents=0", "main"]);
    env.git_in(&plain, &["update-ref", "refs/heads/main", &first]);
    let ver = printed(
        &["continuity", "verify"],
        &env.run(&plain, &["--json", "continuity", "verify"], None, &[]).ok().stdout,
    );
    assert_eq!([&ver["admitted"], &ver["untrusted"]], [2, 0], "{ver:#}");
    // Every other command needs a working tree: a usage error naming the two that do not.
    let mut said = String::new();
    for args in [&["continuity", "status"][..], &["state"], &["continuity", "sync"]] {
        said += &format!("=== {args:?}\n{}", bare(args).code(2).shown());
    }
    insta::assert_snapshot!(said, @r#"
    === ["continuity", "status"]
    --- stderr
    error: [TMP]/remote.git is a bare repository; continuity records need a working tree
    hint: run it in a checkout with a working tree; continuity verify and continuity records also read a bare repository
    --- exit 2
    === ["state"]
    --- stderr
    error: [TMP]/remote.git is a bare repository; continuity records need a working tree
    hint: run it in a checkout with a working tree; continuity verify and continuity records also read a bare repository
    --- exit 2
    === ["continuity", "sync"]
    --- stderr
    error: [TMP]/remote.git is a bare repository; continuity records need a working tree
    hint: run it in a checkout with a working tree; continuity verify and continuity records also read a bare repository
    --- exit 2
    "#);
    w.fsck(&[]);
}

/// Issue 43 item 3: citations travel in the signed record (v2) and `continuity plan` checks
/// their blob ids against the reading checkout, also when the record's head is not there.
#[test]
fn a_record_carries_its_citations_and_the_plan_says_which_cited_files_differ_here() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let w = two_machines(&env, Mesh::Undeclared);
    let (a, b) = (&w.a, &w.b);
    b.handover(true, &body("Desktop work.", "Finish the greeting in `README.md`."));
    let rb = b.publish(&[]);
    b.sync();
    a.sync();
    let stored = a.store_files(REF).into_iter().find(|(p, _)| p.contains(&rb)).unwrap().1;
    let stored: Value = serde_json::from_str(&stored).unwrap();
    assert_eq!(stored["record"]["schema"], "majordomus-continuity/v2");
    insta::assert_snapshot!(serde_json::to_string_pretty(&stored["record"]["handover"]["citations"]).unwrap(), @r#"
    [
      "README.md@[HEX]"
    ]
    "#);
    // The same file on both machines: nothing differs.
    let plan: Value = a.cj(&["plan"], 0);
    insta::assert_snapshot!(serde_json::to_string_pretty(&plan["warnings"]).unwrap(), @r#"
    [
      {
        "code": "origin_undeclared",
        "message": "no mesh declaration under .ai/repo/mesh/ says which devices to trust; desktop's signature (key [KEY ID]) is valid but its key is not checked against a trust list"
      }
    ]
    "#);
    // The laptop's README.md changes: the plan names it before anything is resumed.
    a.repo.write("README.md", "hello from the laptop\n");
    a.git(&["commit", "-q", "-am", "laptop greeting"]);
    let plan: Value = a.cj(&["plan"], 0);
    let differ = plan["warnings"].as_array().unwrap().iter().find(|n| n["code"] == "files_differ").cloned();
    assert_eq!(
        differ.map(|n| n["message"].as_str().unwrap().to_string()),
        Some("1 of the 1 file(s) the handover cites differ here: `README.md`".to_string()),
        "{plan}"
    );
    // Resumed, the handover's citation is labelled against this checkout.
    a.c(&["resume"]).ok();
    let resolved = a.run(&["handover", "--resolve"], "").ok().stdout;
    insta::assert_snapshot!(named(&resolved, &[("RB", &rb)]), @"
    Handover: .ai/local/state/handovers/20260903T200000Z--continuity--main--[HEX]--[RB].md
    Match: same_worktree_same_branch
    Git state: advanced
    Created: 2026-09-03T20:00:00Z (0m ago), resumed here 2026-09-03T20:00:00Z
    Task: none
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    Arrived: from desktop (key [KEY ID]), continuity record [RB]
    Citations: 1 cited, 0 unchanged
      `README.md` changed in 1 commit(s) since this handover, newest [HEX] by Test Author
    ---
    # Objective
    Desktop work.

    # Current State
    Work in progress.

    # Next Action
    Finish the greeting in `README.md`.
    ");
}
