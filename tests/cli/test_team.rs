//! A team's trust, run by commands (issue 40; SPEC §A.28 "Revocation"; docs/SYNC.md "A team's
//! trust"): `continuity trust add|revoke|list` edit and read the mesh declaration through one
//! writer; a revocation syncs and pins the store commit on the remote, so that the key's
//! records up to there are `retired` (reported, not a failure) and a record it signs after the
//! pin fails `verify` and the CI step; the revoked machine is told.
//!
//! Each machine is a clone of one bare remote with its own `HOME` and `XDG_STATE_HOME`.

use std::path::Path;

use serde_json::Value;

use crate::common::json::{Status, Verify};
use crate::common::machine::{two_clones, Machine};
use crate::common::store::store_path;
use crate::common::{Output, TestEnv};

const MESH: &str = ".ai/repo/mesh/team.yaml";

fn ci_script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/ci/majordomus-ci.sh").display().to_string()
}

/// The CI step in a fresh clone `name` of `remote`.
fn run_ci(env: &TestEnv, remote: &Path, name: &str) -> Output {
    env.git_in(env.path(), &["clone", "-q", remote.to_str().unwrap(), name]);
    let root = std::fs::canonicalize(env.path().join(name)).unwrap();
    env.sh(&root, &format!("sh {} 2>&1", ci_script()), b"", &[])
}

/// `continuity trust <args>` as JSON, its exit code asserted.
#[track_caller]
fn trust(m: &Machine<'_>, args: &[&str], code: i32) -> Value {
    let mut v = vec!["trust"];
    v.extend_from_slice(args);
    m.cj(&v, code)
}

/// A commits the mesh and pushes; `others` pull it.
fn share_mesh(a: &Machine<'_>, others: &[&Machine<'_>]) {
    a.git(&["add", MESH]);
    a.git(&["commit", "-q", "-m", "mesh"]);
    a.git(&["push", "-q", "origin", "main"]);
    for o in others {
        o.git(&["pull", "-q", "--ff-only", "origin", "main"]);
    }
}

fn publish_one(m: &Machine<'_>, objective: &str) -> String {
    m.handover(true, &format!("# Objective\n{objective}\n\n# Current State\nGoing.\n\n# Next Action\nGo on.\n"));
    let id = m.publish(&[]);
    m.sync();
    id
}

#[test]
fn trust_add_writes_the_declaration_through_one_writer_and_refuses_what_does_not_decode() {
    let env = TestEnv::new();
    let (_, a, b, ka, kb) = two_clones(&env, "desk");
    // No declaration: 12, naming --create; nothing written.
    let out = a.c(&["trust", "add", &kb, "--label", "desk"]).code(12);
    assert!(out.stderr.contains("--create"), "{}", out.stderr);
    assert!(!a.root().join(MESH).exists());
    // --create writes a deny_unknown declaration and says how to share it.
    let v = trust(&a, &["add", &ka, "--label", "macbook-pro", "--create"], 0);
    assert_eq!((v["created"].as_bool(), v["mesh"].as_str()), (Some(true), Some(MESH)));
    let next: Vec<&str> = v["next"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert_eq!(next[0], format!("git add {MESH}"));
    assert!(next[1].starts_with("git commit -m") && next[1].ends_with(MESH), "{next:?}");
    let text = a.c(&["trust", "add", &kb, "--label", "desk"]).ok().stdout;
    assert!(text.contains("desk (key ") && text.contains(" trusted"), "{text}");
    let yaml = std::fs::read_to_string(a.root().join(MESH)).unwrap();
    assert!(yaml.contains("policy: deny_unknown") && yaml.contains(&ka) && yaml.contains(&kb), "{yaml}");
    assert!(yaml.contains("labels:") && yaml.contains(": desk"), "{yaml}");
    // A key that does not decode: 10, the declaration unchanged byte for byte.
    let cut = &kb[..kb.len() - 1];
    let out = a.c(&["trust", "add", cut, "--label", "x"]).code(10);
    assert!(out.stderr.contains("is not a device key"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(a.root().join(MESH)).unwrap(), yaml);
    // A label another trusted key holds: 10.
    let out = a.c(&["trust", "add", &"ab".repeat(32), "--label", "desk"]).code(10);
    assert!(out.stderr.contains("already names key"), "{}", out.stderr);
    // The list shows both keys, their labels and standing.
    let list = trust(&a, &["list"], 0);
    let keys = list["keys"].as_array().unwrap();
    let row = |label: &str| keys.iter().find(|k| k["label"] == label).unwrap_or_else(|| panic!("{list}")).clone();
    assert_eq!(row("macbook-pro")["trust"], "this_device");
    assert_eq!(row("desk")["trust"], "trusted");
    assert_eq!(row("desk")["key_id"].as_str().unwrap(), b.key_id());
    let text = a.c(&["trust", "list"]).ok().stdout;
    assert!(text.contains(&b.key_id()) && text.contains("desk") && text.contains("trusted"), "{text}");
}

#[test]
fn revoking_by_a_label_two_keys_share_is_refused_naming_both() {
    let env = TestEnv::new();
    // B calls itself what A is called.
    let (_, a, b, ka, kb) = two_clones(&env, "macbook-pro");
    trust(&a, &["add", &ka, "--label", "a", "--create"], 0);
    trust(&a, &["add", &kb, "--label", "b", "--create"], 0);
    share_mesh(&a, &[&b]);
    publish_one(&a, "A's work.");
    let from_b = publish_one(&b, "B's work.");
    a.sync();
    // The mesh's name for a key is shown, the record's own beside it when they differ.
    let records = a.c(&["records"]).ok().stdout;
    assert!(records.contains("b (calls itself macbook-pro)"), "{records}");
    let st: Status = a.cj(&["status"], 0);
    let v = st.resumable.iter().find(|v| v.id == from_b).expect("offered");
    assert_eq!((v.team_label.as_deref(), v.device.label.as_str()), (Some("b"), "macbook-pro"));
    let before = std::fs::read_to_string(a.root().join(MESH)).unwrap();
    let out = a.c(&["trust", "revoke", "macbook-pro"]).code(10);
    assert!(out.stderr.contains(&a.key_id()) && out.stderr.contains(&b.key_id()), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(a.root().join(MESH)).unwrap(), before);
    let out = a.c(&["trust", "revoke", "nobody"]).code(12);
    assert!(out.stderr.contains("no key is labelled"), "{}", out.stderr);
    let out = a.c(&["trust", "revoke", &kb[..kb.len() - 1]]).code(10);
    assert!(out.stderr.contains("is not a device key"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(a.root().join(MESH)).unwrap(), before);
}

#[test]
fn a_pinned_revocation_retires_the_keys_records_and_a_later_record_fails_verify_and_ci() {
    let env = TestEnv::new();
    let (remote, a, b, ka, kb) = two_clones(&env, "desk");
    trust(&a, &["add", &ka, "--label", "macbook-pro", "--create"], 0);
    trust(&a, &["add", &kb, "--label", "desk"], 0);
    share_mesh(&a, &[&b]);
    let before = publish_one(&b, "B's work before.");
    publish_one(&a, "A's work.");
    // A revokes B: the sync runs first, then the pin is the store commit on origin.
    let v = trust(&a, &["revoke", "desk"], 0);
    let pin = v["pin"].as_str().expect("pinned").to_string();
    assert_eq!(pin, a.git(&["rev-parse", "refs/majordomus/remotes/origin/continuity"]));
    share_mesh(&a, &[]);
    // B's record before the pin is retired: verify passes, and says so apart from refusals.
    let r: Verify = a.cj(&["verify"], 0);
    assert_eq!((r.admitted, r.refused, r.retired), (1, 0, 1), "{r:?}");
    assert!(r.problems.iter().any(|d| d.code == "continuity.retired" && d.path.as_deref().unwrap().contains(&before)));
    let text = a.c(&["verify"]).ok().stdout;
    assert!(text.contains("1 retired"), "{text}");
    let out = a.run(&["continuity", "verify", "--format", "github"], "").ok();
    assert!(out.stdout.contains("::notice title=majordomus continuity.retired::"), "{}", out.stdout);
    assert!(!out.stdout.contains("::error"), "{}", out.stdout);
    // The CI step passes a pinned revocation.
    let out = run_ci(&env, &remote, "ci1").ok();
    assert!(out.stdout.contains("majordomus-ci: all checks passed"), "{}", out.stdout);
    // The trust list counts the retired record.
    let list = trust(&a, &["list"], 0);
    let desk = list["keys"].as_array().unwrap().iter().find(|k| k["label"] == "desk").unwrap().clone();
    assert_eq!((desk["trust"].as_str(), desk["retired"].as_u64()), (Some("revoked"), Some(1)), "{list}");
    assert_eq!(desk["revoked_at"].as_str(), Some(pin.as_str()));

    // B, pulling the mesh, is told on every continuity command; its publish and sync refuse.
    b.git(&["pull", "-q", "--ff-only", "origin", "main"]);
    let st: Status = b.cj(&["status"], 0);
    assert_eq!(st.device_trust.as_deref(), Some("revoked"));
    let out = b.c(&["status"]).ok();
    assert!(out.stdout.contains("this device: revoked"), "{}", out.stdout);
    assert!(b.c(&["device"]).ok().stderr.contains("is revoked by .ai/repo/mesh/team.yaml"), "device says so too");
    assert!(out.stderr.contains("is revoked by .ai/repo/mesh/team.yaml"), "{}", out.stderr);
    b.handover(true, "# Objective\nAfter.\n\n# Current State\nx\n\n# Next Action\ny\n");
    for args in [&["publish"][..], &["sync"][..]] {
        let out = b.c(args).code(10);
        assert!(
            out.stderr.contains(".ai/repo/mesh/team.yaml") && out.stderr.contains("device rotate"),
            "{}",
            out.stderr
        );
    }
    // A record signed with the old key after the pin (B's checkout still trusting itself)
    // reaches origin: verify of origin's store and the CI step fail, naming it.
    b.git(&["reset", "-q", "--hard", "HEAD~1"]);
    let after = b.publish(&[]);
    b.sync();
    a.sync();
    let r: Verify = a.cj(&["verify", "--remote", "origin"], 10);
    let d = r.problems.iter().find(|d| d.path.as_deref().is_some_and(|p| p.contains(&after))).unwrap();
    assert_eq!(d.code, "continuity.revoked_key");
    assert!(d.message.contains("used after it was revoked"), "{}", d.message);
    let out = run_ci(&env, &remote, "ci2").code(1);
    assert!(out.stdout.contains("continuity.revoked_key") && out.stdout.contains("1 retired"), "{}", out.stdout);
}

#[test]
fn a_rotated_device_is_trusted_again_by_a_teammate_and_a_revoked_one_cannot_trust_itself() {
    let env = TestEnv::new();
    let (_, a, b, ka, kb) = two_clones(&env, "desk");
    trust(&a, &["add", &ka, "--label", "macbook-pro", "--create"], 0);
    trust(&a, &["add", &kb, "--label", "desk"], 0);
    share_mesh(&a, &[&b]);
    let old_id = b.key_id();
    // B rotates: a new key, the old one listed in node.json, the teammate's change printed.
    let r = b.cj::<Value>(&["device", "rotate"], 0);
    let new = r["public_key"].as_str().unwrap().to_string();
    assert_ne!(new, kb);
    assert_eq!((r["rotated"].as_str(), r["applied"].as_bool()), (Some(kb.as_str()), Some(false)));
    let next: Vec<String> = r["next"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect();
    assert_eq!(
        next,
        [
            format!("git majordomus continuity trust revoke {kb}"),
            format!("git majordomus continuity trust add {new} --label desk")
        ]
    );
    let node: Value = serde_json::from_str(&std::fs::read_to_string(b.node_json()).unwrap()).unwrap();
    assert_eq!(node["rotated"][0]["public_key"].as_str(), Some(kb.as_str()));
    assert_ne!(b.key_id(), old_id);
    // Until a teammate trusts the new key, B's records are untrusted at A.
    publish_one(&a, "A's work.");
    // A runs the printed commands.
    for n in &next {
        let words: Vec<&str> = n.split(' ').skip(2).collect();
        a.run(&words, "").ok();
    }
    share_mesh(&a, &[&b]);
    let id = publish_one(&b, "B with its new key.");
    a.sync();
    let r: Verify = a.cj(&["verify"], 0);
    assert_eq!((r.admitted, r.untrusted, r.refused), (2, 0, 0), "{r:?}");
    let list = trust(&a, &["list"], 0);
    let desk: Vec<&Value> = list["keys"].as_array().unwrap().iter().filter(|k| k["label"] == "desk").collect();
    assert_eq!(desk.len(), 2, "{list}");
    assert!(desk.iter().any(|k| k["trust"] == "trusted" && k["records"] == 1), "{list}");
    assert!(desk.iter().any(|k| k["trust"] == "revoked"), "{list}");
    assert!(a.c(&["plan", "--record", &id]).ok().stdout.contains("B with its new key."));

    // With --apply, a trusted device makes its own change; once revoked it cannot.
    let r = b.cj::<Value>(&["device", "rotate", "--apply"], 0);
    assert_eq!(r["applied"].as_bool(), Some(true), "{r}");
    let mesh = std::fs::read_to_string(b.root().join(MESH)).unwrap();
    assert!(mesh.contains(r["public_key"].as_str().unwrap()) && mesh.contains("revoked_at:"), "{mesh}");
    b.git(&["checkout", "-q", "--", MESH]);
    trust(&a, &["revoke", r["public_key"].as_str().unwrap()], 0);
    share_mesh(&a, &[&b]);
    let before = std::fs::read_to_string(b.node_json()).unwrap();
    let out = b.c(&["device", "rotate", "--apply"]).code(10);
    assert!(out.stderr.contains("cannot trust its new key itself"), "{}", out.stderr);
    assert!(out.stderr.contains("is revoked by"), "told first: {}", out.stderr);
    assert_eq!(std::fs::read_to_string(b.node_json()).unwrap(), before, "nothing rotated");
}

#[test]
fn a_newer_handover_a_plain_fetch_brought_is_named_in_status_and_the_briefing() {
    let env = TestEnv::new();
    let (_, a, b, _, _) = two_clones(&env, "desk");
    let refspec = "+refs/majordomus/continuity*:refs/majordomus/remotes/origin/continuity*";
    a.git(&["config", "--add", "remote.origin.fetch", refspec]);
    publish_one(&a, "A's older work.");
    // B publishes a newer handover for main; A only fetches, as git fetch does.
    let id = publish_one(&b, "SECRET-PLAN-OF-B");
    a.git(&["fetch", "-q", "origin"]);
    let st: Status = a.cj(&["status"], 0);
    assert_eq!(st.store.sync, "behind", "the JSON keeps its words");
    let standing = st.standing.expect("standing");
    assert_eq!((standing["not_read_here"].as_u64(), standing["not_on_remote"].as_u64()), (Some(1), Some(0)));
    assert_eq!(standing["arrived"]["id"].as_str(), Some(id.as_str()));
    let text = a.c(&["status"]).ok().stdout;
    assert!(text.contains("1 record(s) on origin not read here"), "{text}");
    assert!(text.contains(&format!("a newer handover for this branch from desk (key {})", b.key_id())), "{text}");
    assert!(text.contains("git majordomus continuity sync, then git majordomus continuity plan"), "{text}");
    assert!(!text.contains("SECRET-PLAN-OF-B"), "named, not quoted: {text}");
    let briefing = a.briefing("s-arrived");
    assert!(briefing.contains("Arrived: a newer handover for this branch from desk"), "{briefing}");
    assert!(briefing.contains(&id[..12]) && !briefing.contains("SECRET-PLAN-OF-B"), "{briefing}");
    // The command it names takes it.
    a.sync();
    assert!(a.c(&["plan", "--record", &id]).ok().stdout.contains("SECRET-PLAN-OF-B"));
    let text = a.c(&["status"]).ok().stdout;
    assert!(text.contains("in sync with origin") && !text.contains("arrived"), "{text}");
    assert!(!a.briefing("s-after").contains("Arrived:"));
    // What is here and not yet on origin, from this machine's side.
    a.handover(true, "# Objective\nLocal only.\n\n# Current State\nx\n\n# Next Action\ny\n");
    a.publish(&[]);
    let text = a.c(&["status"]).ok().stdout;
    assert!(text.contains("1 record(s) here not yet on origin"), "{text}");
}

/// The questions log of `m` (its unresolved entries' lines).
fn unresolved(m: &Machine<'_>) -> Vec<String> {
    let text = std::fs::read_to_string(m.root().join(".ai/local/state/open-questions.md")).unwrap_or_default();
    text.lines().filter(|l| l.starts_with("- [unresolved]")).map(str::to_string).collect()
}

#[test]
fn a_diverged_line_heals_by_resume_and_publish_or_by_supersede_and_both_travel() {
    let env = TestEnv::new();
    let (_, a, b, _, _) = two_clones(&env, "desk");
    // A line: R0 by A; B continues it; A continues it too, without syncing first.
    let r0 = publish_one(&a, "Start.");
    b.sync();
    b.cj::<Value>(&["resume", "--record", &r0], 0);
    b.run(&["start", "B's parser", "--scope", "src"], "").ok();
    b.run(&["question", "add", "Which parser does B keep?"], "").ok();
    let r1b = publish_one(&b, "B's continuation.");
    a.handover(true, "# Objective\nA's continuation.\n\n# Current State\nx\n\n# Next Action\ny\n");
    let r1a = a.publish(&[]);
    a.sync();
    let st: Status = a.cj(&["status"], 0);
    assert_eq!(st.lines.len(), 1, "one diverged line: {:?}", st.lines);
    assert!(st.diagnostics.iter().any(|d| d.code == "continuity.diverged"));

    // A resumes B's head and publishes: the record names both heads (v2) and the line heals.
    let r: Value = a.cj(&["resume", "--record", &r1b], 0);
    assert_eq!(r["position"]["ends"], serde_json::json!([r1a]), "{r}");
    assert_eq!(r["questions_carried"].as_u64(), Some(1), "{r}");
    a.handover(true, "# Objective\nBoth, together.\n\n# Current State\nx\n\n# Next Action\ny\n");
    let r2 = a.publish(&[]);
    let stored = a.git(&["cat-file", "blob", &format!("refs/majordomus/continuity:{}", store_path(&r2))]);
    assert!(stored.contains("\"schema\": \"majordomus-continuity/v2\""), "{stored}");
    assert!(stored.contains(&format!("\"ends\": [\n      \"{r1a}\"")), "{stored}");
    a.sync();
    let st: Status = a.cj(&["status"], 0);
    assert!(st.lines.is_empty(), "healed: {:?}", st.lines);
    assert!(!st.diagnostics.iter().any(|d| d.code == "continuity.diverged"), "{:?}", st.diagnostics);
    assert!(a.c(&["records"]).ok().stdout.contains(&format!("also ends {}", &r1a[..12])));
    // B reads the same: one head, r2, and neither old head is offered.
    b.sync();
    let st: Status = b.cj(&["status"], 0);
    assert!(st.lines.is_empty(), "{:?}", st.lines);
    let offered: Vec<&str> = st.resumable.iter().map(|v| v.id.as_str()).collect();
    assert!(!offered.contains(&r1a.as_str()) && !offered.contains(&r1b.as_str()), "{offered:?}");
    let r: Verify = b.cj(&["verify"], 0);
    assert_eq!((r.admitted, r.refused), (4, 0), "{r:?}");

    // B continues its own old head again (its position), without resuming r2: diverged again.
    b.run(&["question", "add", "Is B's cache still needed?"], "").ok();
    let r3b = publish_one(&b, "B went on alone.");
    a.sync();
    let st: Status = a.cj(&["status"], 0);
    assert_eq!(st.lines.len(), 1, "{:?}", st.lines);
    // A ends B's head without resuming it: a signed record without a handover, which travels.
    let before = unresolved(&a).len();
    let s: Value = a.cj(&["supersede", &r3b[..8]], 0);
    assert_eq!(s["superseded"]["id"].as_str(), Some(r3b.as_str()), "{s}");
    assert_eq!(s["record"]["ends_only"].as_bool(), Some(true), "{s}");
    assert!(s["questions_carried"].as_u64().unwrap() >= 1, "{s}");
    // The record that ends it is no handover to resume.
    let ender = s["record"]["id"].as_str().unwrap().to_string();
    let p: Value = a.cj(&["plan", "--record", &ender], 0);
    assert_eq!(
        (p["status"].as_str(), p["blockers"][0]["code"].as_str()),
        (Some("nothing_to_resume"), Some("ends_only")),
        "{p}"
    );
    assert!(unresolved(&a).len() > before);
    assert!(unresolved(&a).iter().any(|q| q.contains("Is B's cache still needed?")));
    let st: Status = a.cj(&["status"], 0);
    assert!(st.lines.is_empty(), "{:?}", st.lines);
    assert!(st.resumable.iter().all(|v| v.id != r3b), "the superseded head is offered nowhere");
    // Superseding what is not a head is refused.
    let out = a.c(&["supersede", &r3b[..8]]).code(10);
    assert!(out.stderr.contains("is not a head"), "{}", out.stderr);
    a.sync();
    b.sync();
    let st: Status = b.cj(&["status"], 0);
    assert!(st.lines.is_empty() && st.resumable.iter().all(|v| v.id != r3b), "{:?} {:?}", st.lines, st.resumable);
    let plan = b.c(&["plan", "--record", &r3b]).stdout;
    assert!(!plan.contains("status      ready"), "{plan}");
}

/// Issue 40's "Done when", step by step, on one bare remote: three devices and a CI clone.
#[test]
fn a_team_of_three_devices_and_ci_lives_through_join_revoke_rotate_diverge_heal_and_fetch() {
    let env = TestEnv::new();
    let (remote, a, b, ka, kb) = two_clones(&env, "desk");
    let refspec = "+refs/majordomus/continuity*:refs/majordomus/remotes/origin/continuity*";
    // The team: A and B trusted; shared.
    trust(&a, &["add", &ka, "--label", "macbook-pro", "--create"], 0);
    trust(&a, &["add", &kb, "--label", "desk"], 0);
    share_mesh(&a, &[&b]);

    // 1. A newcomer joins: `device` on C, `trust add` by A.
    let c = Machine::clone_of(&env, &remote, "c");
    let kc = c.device("c-laptop");
    trust(&a, &["add", &kc, "--label", "c-laptop"], 0);
    share_mesh(&a, &[&b, &c]);

    // 2. Records flow: C's record is trusted at A.
    let from_c = publish_one(&c, "C's first work.");
    a.sync();
    let st: Status = a.cj(&["status"], 0);
    let v = st.resumable.iter().find(|v| v.id == from_c).expect("C's record is offered");
    assert_eq!((v.trust.as_str(), v.withheld.as_deref()), ("trusted", None));
    publish_one(&b, "B's work before.");

    // 3. A revokes B: pinned; the CI step stays green.
    let v = trust(&a, &["revoke", "desk"], 0);
    assert!(v["pin"].is_string(), "{v}");
    share_mesh(&a, &[&c]);
    let out = run_ci(&env, &remote, "ci1").ok();
    assert!(out.stdout.contains("1 retired") && out.stdout.contains("all checks passed"), "{}", out.stdout);

    // 4. The revoked device is told.
    b.git(&["pull", "-q", "--ff-only", "origin", "main"]);
    assert!(b.c(&["status"]).ok().stdout.contains("this device: revoked"));
    let old_node = std::fs::read(b.node_json()).unwrap();

    // 5. B rotates; a teammate trusts the new key; B's records flow again.
    let r = b.cj::<Value>(&["device", "rotate"], 0);
    let next: Vec<String> = r["next"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect();
    a.run(&next[1].split(' ').skip(2).collect::<Vec<_>>(), "").ok();
    share_mesh(&a, &[&b, &c]);
    let from_new_b = publish_one(&b, "B with its new key.");
    a.sync();
    assert!(a.c(&["plan", "--record", &from_new_b]).ok().stdout.contains("B with its new key."));

    // 6. A record signed with the old key after the revocation fails CI.
    let thief = env.path().join("thief-state");
    std::fs::create_dir_all(thief.join("majordomus")).unwrap();
    std::fs::write(thief.join("majordomus/node.json"), &old_node).unwrap();
    let old_mesh = b.git(&["show", "HEAD~3:.ai/repo/mesh/team.yaml"]);
    b.repo.write(MESH, &format!("{old_mesh}\n"));
    let xdg = [("XDG_STATE_HOME", thief.to_str().unwrap())];
    b.run_env(&["handover", "--no-task"], "# Objective\nStolen.\n\n# Current State\nx\n\n# Next Action\ny\n", &xdg)
        .ok();
    b.run_env(&["continuity", "publish"], "", &xdg).ok();
    b.run_env(&["continuity", "sync"], "", &xdg).ok();
    b.git(&["checkout", "-q", "--", MESH]);
    let out = run_ci(&env, &remote, "ci2").code(1);
    assert!(out.stdout.contains("used after it was revoked"), "{}", out.stdout);

    // 7. Two machines diverge, and the line heals.
    let head = publish_one(&a, "A before the fork.");
    c.sync();
    c.cj::<Value>(&["resume", "--record", &head], 0);
    let c_fork = publish_one(&c, "C's fork.");
    a.handover(true, "# Objective\nA's fork.\n\n# Current State\nx\n\n# Next Action\ny\n");
    a.publish(&[]);
    a.sync();
    assert_eq!(a.cj::<Status>(&["status"], 0).lines.len(), 1, "diverged");
    a.cj::<Value>(&["resume", "--record", &c_fork], 0);
    let healed = publish_one(&a, "Both forks, together.");
    assert!(a.cj::<Status>(&["status"], 0).lines.is_empty(), "healed");

    // 8. A newer handover fetched from another device is in the next briefing.
    c.sync();
    c.cj::<Value>(&["resume", "--record", &healed], 0);
    let newer = publish_one(&c, "C's newest.");
    a.git(&["config", "--add", "remote.origin.fetch", refspec]);
    a.git(&["fetch", "-q", "origin"]);
    let briefing = a.briefing("s-team");
    assert!(briefing.contains("Arrived: a newer handover for this branch from c-laptop"), "{briefing}");
    assert!(briefing.contains(&newer[..12]), "{briefing}");
}

#[test]
fn device_says_when_it_creates_the_key_a_newcomer_sends() {
    let env = TestEnv::new();
    let (remote, _, _, _, _) = two_clones(&env, "desk");
    let c = Machine::clone_of(&env, &remote, "c");
    let out = c.c(&["device"]).ok().stdout;
    let path = c.node_json().display().to_string();
    assert!(out.contains(&format!("created     a new device key at {path} (mode 0600)")), "{out}");
    assert!(!c.c(&["device"]).ok().stdout.contains("created"), "said once");
    // In a clone that has fetched nothing, the store is not called empty on origin.
    let st = c.c(&["status"]).ok().stdout;
    assert!(st.contains("nothing fetched from origin yet"), "{st}");
}
