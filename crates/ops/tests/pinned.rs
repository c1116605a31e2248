//! What must never change by accident (issue 25, item 3): the ids and admission verdicts of
//! records built from a fixed key and fixed inputs, and the printed and JSON names of every
//! closed vocabulary. A refactoring that renames a variant, reorders a vocabulary that sorts by
//! declaration or changes what a record hashes to fails here.
//!
//! Owns: the pinned values. Must not touch: files, git, the clock (everything is built here).
#![allow(clippy::unwrap_used)]

use majordomus_continuity::admission::{self, Diagnostic, Judge, Pins, Verdict, NO_PINS};
use majordomus_continuity::mesh::{self, Mesh};
use majordomus_continuity::record::{store_path, stored_bytes, Record, MAX_STORED_BYTES};
use majordomus_continuity::signing::{self, DeviceKey};
use majordomus_core::hex;
use serde_json::{json, Value};

const REPOSITORY: &str = "0123456789abcdef0123456789abcdef";

fn key(seed: u8, label: &str) -> DeviceKey {
    DeviceKey::from_seed([seed; 32], Some(label.into()), "2026-01-01T00:00:00Z")
}

fn raw(k: &DeviceKey) -> String {
    hex::encode(&k.public_key_raw())
}

/// A record as a JSON value, with `edit` applied, read as a [`Record`] (so a field the reader
/// would refuse fails here) and signed by `k`: (store path, stored bytes, id).
fn signed(k: &DeviceKey, edit: impl FnOnce(&mut Value)) -> (String, Vec<u8>, String) {
    let mut v = json!({
        "schema": "majordomus-continuity/v1",
        "repository": REPOSITORY,
        "device": serde_json::to_value(k.device()).unwrap(),
        "episode": "none",
        "published_at": "2026-09-03T20:00:00Z",
        "producer": "git-majordomus/0.1.0",
        "source": {"branch": "main", "working_tree": "clean", "changed_total": 0},
        "handover": {"id": "00".repeat(16), "branch": "main", "body": "# Objective\nPin the ids.\n"},
    });
    edit(&mut v);
    let record: Record = serde_json::from_value(v).unwrap();
    let e = k.sign(&record);
    (store_path(&e.id), stored_bytes(&e), e.id)
}

/// One verdict as a line: `admitted <trust> <id>`, or the verdict and its diagnostic.
fn verdict(path: &str, bytes: &[u8], j: &Judge<'_>) -> String {
    let (v, d) = admission::admit(path, "0".repeat(40).as_str(), bytes, j);
    let diag = |d: Option<Diagnostic>| {
        d.map(|d| format!("{} {} {}", d.severity.as_str(), d.code.as_str(), d.message)).unwrap()
    };
    match v {
        Verdict::Admitted(a) => format!("admitted {} {}", a.trust.as_str(), a.id),
        Verdict::TooNew => format!("too_new {}", diag(d)),
        Verdict::Refused => format!("refused {}", diag(d)),
        Verdict::Stray => format!("stray {}", diag(d)),
        Verdict::Retired => format!("retired {}", diag(d)),
    }
}

/// The 32 bytes of a record path's id.
fn id_bytes(path: &str) -> [u8; 32] {
    majordomus_git::store::record_path_id(path).unwrap()
}

fn mesh_of(policy: &str, allow: &[String], revoked: &[String]) -> Mesh {
    let text = format!(
        "schema: mesh/v1\nkind: mesh-declaration\nid: pinned\nenabled: true\ntrust:\n  policy: {policy}\n  allow: [{}]\n  revoked: [{}]\n",
        allow.join(", "),
        revoked.join(", ")
    );
    let normalise = |s: &str| signing::raw_public_key(s).map(|k| hex::encode(&k));
    mesh::parse("mesh.yaml", &text, &normalise).unwrap().unwrap()
}

fn ids_and_verdicts() -> String {
    let (laptop, desktop, stranger, revoked) = (key(1, "laptop"), key(2, "desktop"), key(3, "stranger"), key(4, "old"));
    let undeclared = Judge { repository: REPOSITORY, mesh: None, own_key: None, pins: &NO_PINS };
    let deny = mesh_of("deny_unknown", &[raw(&laptop)], &[raw(&revoked)]);
    let own = raw(&desktop);
    let declared = Judge { repository: REPOSITORY, mesh: Some(&deny), own_key: Some(&own), pins: &NO_PINS };
    let tofu = mesh_of("tofu", &[], &[]);
    let trusting = Judge { repository: REPOSITORY, mesh: Some(&tofu), own_key: None, pins: &NO_PINS };

    let (first_path, first, first_id) = signed(&laptop, |_| {});
    let (child_path, child, _) = signed(&laptop, |v| {
        v["line"] = first_id.clone().into();
        v["parent"] = first_id.clone().into();
        v["session"] = "20260903T200000Z-laptop".into();
        v["episode"] = "open".into();
        v["source"] = json!({"branch": "main", "head": "ab".repeat(20), "working_tree": "dirty",
            "changed": ["src/a.rs", "src/b.rs"], "changed_total": 3, "fingerprint": "cd".repeat(16)});
        v["task"] = json!({"id": "T-1", "title": "Pin", "profile": "default", "scope": ["src/"], "outcome": "active"});
        v["decisions"] = json!([{"title": "Keep names", "text": "- because\n"}]);
        v["questions"] = json!([{"text": "Why?", "opened": "2026-09-01"}]);
    });
    // Words outside the vocabularies: which are refused, and with what message.
    let (odd_episode_path, odd_episode, _) = signed(&laptop, |v| v["episode"] = "paused".into());
    let (odd_tree_path, odd_tree, _) = signed(&laptop, |v| v["source"]["working_tree"] = "unborn".into());
    let (odd_outcome_path, odd_outcome, _) =
        signed(&laptop, |v| v["task"] = json!({"id": "T-2", "title": "Odd", "outcome": "someday"}));
    let (_, altered, _) = signed(&laptop, |_| {});
    let altered = String::from_utf8(altered).unwrap().replace("Pin the ids.", "Pin the idz.").into_bytes();
    let forged = {
        let mut e: Value = serde_json::from_slice(&first).unwrap();
        e["public_key"] = desktop.public_key_base64().into();
        // In the stored form (docs/REFERENCE.md#continuity-record): the trailing newline included.
        let mut bytes = serde_json::to_vec_pretty(&e).unwrap();
        bytes.push(b'\n');
        bytes
    };
    let (newer_path, newer, _) = signed(&laptop, |v| v["schema"] = "majordomus-continuity/v3".into());
    let (unknown_path, unknown, _) = signed(&laptop, |v| v["schema"] = "other/v1".into());
    let (foreign_path, foreign, _) = signed(&laptop, |v| v["repository"] = "f".repeat(32).into());
    let (secret_path, secret, _) =
        signed(&laptop, |v| v["handover"]["body"] = "# Objective\nkey AKIAIOSFODNN7EXAMPLE\n".into());
    let (desktop_path, by_desktop, _) = signed(&desktop, |_| {});
    let (stranger_path, by_stranger, _) = signed(&stranger, |_| {});
    let (revoked_path, by_revoked, _) = signed(&revoked, |_| {});
    // A pin that holds the revoked key's record retires it; one that does not leaves it refused.
    let mut pins = Pins::default();
    pins.pin(&raw(&revoked), &"c".repeat(40), Some(std::iter::once(id_bytes(&revoked_path)).collect()));
    let retiring = Judge {
        pins: &pins,
        ..Judge { repository: REPOSITORY, mesh: Some(&deny), own_key: Some(&own), pins: &NO_PINS }
    };
    let mut elsewhere = Pins::default();
    elsewhere.pin(&raw(&revoked), &"c".repeat(40), Some(Default::default()));
    let pinned_elsewhere = Judge {
        pins: &elsewhere,
        ..Judge { repository: REPOSITORY, mesh: Some(&deny), own_key: Some(&own), pins: &NO_PINS }
    };
    let nowhere = store_path(&"ab".repeat(32));
    let large = vec![b' '; MAX_STORED_BYTES + 1];

    let cases: Vec<(&str, &str, &[u8], &Judge<'_>)> = vec![
        ("first", &first_path, &first, &undeclared),
        ("child", &child_path, &child, &undeclared),
        ("odd episode", &odd_episode_path, &odd_episode, &undeclared),
        ("odd working tree", &odd_tree_path, &odd_tree, &undeclared),
        ("odd task outcome", &odd_outcome_path, &odd_outcome, &undeclared),
        ("altered", &first_path, &altered, &undeclared),
        ("forged", &first_path, &forged, &undeclared),
        ("newer schema", &newer_path, &newer, &undeclared),
        ("unknown schema", &unknown_path, &unknown, &undeclared),
        ("foreign", &foreign_path, &foreign, &undeclared),
        ("secret", &secret_path, &secret, &undeclared),
        ("not json", &nowhere, b"not json", &undeclared),
        ("too large", &nowhere, &large, &undeclared),
        ("stray", "notes/readme.md", b"{}", &undeclared),
        ("allowed", &first_path, &first, &declared),
        ("this device", &desktop_path, &by_desktop, &declared),
        ("stranger", &stranger_path, &by_stranger, &declared),
        ("revoked", &revoked_path, &by_revoked, &declared),
        ("tofu", &stranger_path, &by_stranger, &trusting),
        ("retired", &revoked_path, &by_revoked, &retiring),
        ("revoked after its pin", &revoked_path, &by_revoked, &pinned_elsewhere),
    ];
    let mut out: Vec<String> =
        cases.into_iter().map(|(what, p, b, j)| format!("{what}: {}", verdict(p, b, j))).collect();
    let bad_policy = "schema: mesh/v1\nenabled: true\ntrust:\n  policy: open\n";
    out.push(format!("bad policy: {}", mesh::parse("mesh.yaml", bad_policy, &|_| None).unwrap_err()));
    out.push(format!("deny policy: {}", deny.policy.as_str()));
    out.join("\n")
}

const IDS_AND_VERDICTS: &str = r#"first: admitted undeclared b277f81e658c3aa8bedec2b86d8205099e8fac045d1f3610a34042b38118a09d
child: admitted undeclared ad710770bd0a0209b5aefc0f24ab8ed24f62c818f30caefd663803773e4c7c4e
odd episode: refused error continuity.record_malformed /episode: expected open or none
odd working tree: refused error continuity.record_malformed /source/working_tree: expected clean or dirty
odd task outcome: admitted undeclared a93aeb928bb56e52609bc61c5945bf13c35f21e36f928a9f70b0be05e586ef66
altered: refused error continuity.id_mismatch its content does not match its id and path; it was altered
forged: refused error continuity.bad_signature the signature does not verify (the node id of public_key does not match record.device.node)
newer schema: too_new warning continuity.schema_too_new majordomus-continuity/v3 is newer than this executable reads; kept, not read
unknown schema: refused error continuity.schema_unknown unknown schema "other/v1"
foreign: refused error continuity.foreign_repository it belongs to another repository (a fork shares a name, not a root history)
secret: refused error continuity.secret /handover/body: an AWS access key id
not json: refused error continuity.record_malformed not a JSON object
too large: refused error continuity.record_too_large 163841 bytes, cap 163840
stray: stray warning continuity.stray_file not a record of the store; it is ignored
allowed: admitted trusted b277f81e658c3aa8bedec2b86d8205099e8fac045d1f3610a34042b38118a09d
this device: admitted this_device 45f7acbebeb5a62294464e8ef12e305edb8f2cb7f78311c2a9d2c49844746153
stranger: admitted untrusted 17505ab64250f27fd865cfed5b4c3d658902cb8dee992653eab22c5c4a7af4eb
revoked: refused error continuity.revoked_key signed by a revoked key (device old, key 08EF63EA6F2DF516)
tofu: admitted trusted 17505ab64250f27fd865cfed5b4c3d658902cb8dee992653eab22c5c4a7af4eb
retired: retired info continuity.retired signed by device old (key 08EF63EA6F2DF516) before its revocation (pinned at store commit cccccccccccc); retired: kept, not admitted
revoked after its pin: refused error continuity.revoked_key signed by a revoked key (device old, key 08EF63EA6F2DF516); its revocation is pinned at store commit cccccccccccc, which does not hold this record: the key was used after it was revoked
bad policy: mesh.yaml: trust.policy "open" is not deny_unknown, allowlist or tofu
deny policy: deny_unknown"#;

/// `<type>: <printed names>`, then `json:` and `sorted:` lines where the type serialises and
/// orders.
macro_rules! pin_names {
    ($out:ident, $t:ty, $all:expr) => {
        let all: Vec<$t> = $all.iter().cloned().collect();
        $out.push(format!("{}: {}", stringify!($t), all.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(" ")));
    };
}
macro_rules! pin_json {
    ($out:ident, $t:ty, $all:expr) => {
        pin_names!($out, $t, $all);
        let all: Vec<$t> = $all.iter().cloned().collect();
        $out.push(format!("  json: {}", serde_json::to_string(&all).unwrap()));
    };
}
macro_rules! pin_sorted {
    ($out:ident, $t:ty, $all:expr) => {
        pin_json!($out, $t, $all);
        let mut all: Vec<$t> = $all.iter().cloned().collect();
        all.sort();
        $out.push(format!("  sorted: {}", all.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(" ")));
    };
}

fn vocabularies() -> String {
    use majordomus_continuity::admission::{Code, Severity};
    use majordomus_continuity::lineage::{LineState, Relation, StoreRelation};
    use majordomus_continuity::local::{SyncOutcome, Via};
    use majordomus_continuity::mesh::{MeshPolicy, Trust};
    use majordomus_continuity::plan::{PlanCode, PlanStatus, SourceRelation};
    use majordomus_core::model::events::Event;
    use majordomus_core::model::finding::{Category, Level};
    use majordomus_core::model::labels::{Divergence, FreshnessLabel, ProofKind, RewriteBy, WorkingTree};
    use majordomus_core::model::providers::HookEvent;
    use majordomus_core::model::record::{Origin, Skip};
    use majordomus_core::model::task::Outcome;
    use majordomus_git::store::MergeAction;
    // The use cases' own (their files move between folders: only these paths follow them).
    use majordomus_ops::commands::continuity::sync::SyncAction;
    use majordomus_ops::commands::install::Scope;
    use majordomus_ops::commands::start::ResumedFrom;
    use majordomus_ops::queries::lifecycle::Standing;
    use majordomus_ops::queries::search::Kind;
    use majordomus_ops::services::context::SectionId;
    use majordomus_ops::services::resolve::Match;

    let mut out = Vec::new();
    pin_json!(out, HookEvent, HookEvent::ALL);
    pin_json!(out, Origin, Origin::ALL);
    pin_json!(out, Skip, Skip::ALL);
    pin_json!(out, Event, Event::ALL);
    pin_json!(out, WorkingTree, WorkingTree::ALL);
    pin_json!(out, Divergence, Divergence::ALL);
    pin_sorted!(out, RewriteBy, RewriteBy::ALL);
    pin_sorted!(out, ProofKind, ProofKind::ALL);
    pin_json!(out, FreshnessLabel, FreshnessLabel::ALL);
    pin_json!(out, Outcome, Outcome::ALL);
    pin_sorted!(out, Level, Level::ALL);
    pin_json!(out, Category, Category::ALL);
    pin_names!(out, MergeAction, [MergeAction::None, MergeAction::FastForward, MergeAction::Merged]);
    pin_json!(out, Trust, Trust::ALL);
    pin_sorted!(out, Relation, Relation::ALL);
    pin_json!(out, LineState, LineState::ALL);
    pin_sorted!(out, StoreRelation, StoreRelation::ALL);
    pin_json!(out, PlanStatus, PlanStatus::ALL);
    pin_json!(out, SourceRelation, SourceRelation::ALL);
    pin_sorted!(out, PlanCode, PlanCode::ALL);
    pin_sorted!(out, Severity, Severity::ALL);
    pin_sorted!(out, Code, Code::ALL);
    pin_sorted!(out, Match, Match::ALL);
    pin_sorted!(out, Kind, Kind::ALL);
    pin_json!(out, ResumedFrom, ResumedFrom::ALL);
    pin_json!(
        out,
        SectionId,
        [
            SectionId::Git,
            SectionId::Task,
            SectionId::Profile,
            SectionId::Questions,
            SectionId::Documents,
            SectionId::Decisions,
            SectionId::Reasoning,
            SectionId::Checkpoint,
            SectionId::Handover,
            SectionId::Files,
            SectionId::History,
            SectionId::Prompt
        ]
    );
    pin_json!(out, Scope, Scope::ALL);
    pin_json!(out, SyncAction, SyncAction::ALL);
    pin_json!(out, SyncOutcome, SyncOutcome::ALL);
    pin_json!(out, MeshPolicy, MeshPolicy::ALL);
    pin_json!(out, Via, Via::ALL);
    pin_json!(out, Standing, Standing::ALL);
    out.join("\n")
}

const VOCABULARIES: &str = r#"HookEvent: start compact end
  json: ["start","compact","end"]
Origin: authored derived
  json: ["authored","derived"]
Skip: no front matter malformed front matter unknown schema_version missing required fields
  json: ["no front matter","malformed front matter","unknown schema_version","missing required fields"]
Event: task.started task.checkpoint task.handed_over task.finished task.resumed decision.recorded question.opened question.resolved session.started session.closed ledger.rotated provider.event.received provider.event.failed knowledge.derived knowledge.promoted knowledge.rejected worktree.adopted
  json: ["task.started","task.checkpoint","task.handed_over","task.finished","task.resumed","decision.recorded","question.opened","question.resolved","session.started","session.closed","ledger.rotated","provider.event.received","provider.event.failed","knowledge.derived","knowledge.promoted","knowledge.rejected","worktree.adopted"]
WorkingTree: clean dirty
  json: ["clean","dirty"]
Divergence: exact advanced diverged different_context unknown
  json: ["exact","advanced","diverged","different_context","unknown"]
RewriteBy: amend rebase squash cherry-pick squash-merge unknown
  json: ["amend","rebase","squash","cherry-pick","squash-merge","unknown"]
  sorted: amend cherry-pick rebase squash squash-merge unknown
ProofKind: reflog post-rewrite tree patch-id range-patch-id
  json: ["reflog","post-rewrite","tree","patch-id","range-patch-id"]
  sorted: patch-id post-rewrite range-patch-id reflog tree
FreshnessLabel: fresh aging stale unknown invalid
  json: ["fresh","aging","stale","unknown","invalid"]
Outcome: active completed partial blocked no_match failed handed_over
  json: ["active","completed","partial","blocked","no_match","failed","handed_over"]
Level: OK INFO WARN FAIL DRIFT REFUSE
  json: ["OK","INFO","WARN","FAIL","DRIFT","REFUSE"]
  sorted: OK INFO WARN FAIL DRIFT REFUSE
Category: blockers budget checkpoint contract decisions handover knowledge knowledge-integrity ledger policy profile questions records retention scope sessions state task verification
  json: ["blockers","budget","checkpoint","contract","decisions","handover","knowledge","knowledge-integrity","ledger","policy","profile","questions","records","retention","scope","sessions","state","task","verification"]
MergeAction: none fast_forward merged
Trust: this_device trusted untrusted undeclared revoked
  json: ["this_device","trusted","untrusted","undeclared","revoked"]
Relation: equal newer older diverged independent
  json: ["equal","newer","older","diverged","independent"]
  sorted: equal newer older diverged independent
LineState: linear diverged
  json: ["linear","diverged"]
StoreRelation: equal remote_newer local_newer diverged local_only remote_only
  json: ["equal","remote_newer","local_newer","diverged","local_only","remote_only"]
  sorted: equal remote_newer local_newer diverged local_only remote_only
PlanStatus: ready ready_with_warnings requires_source_update conflict choose_record nothing_to_resume refused
  json: ["ready","ready_with_warnings","requires_source_update","conflict","choose_record","nothing_to_resume","refused"]
SourceRelation: unknown head_missing branch_differs exact local_ahead local_behind diverged
  json: ["unknown","head_missing","branch_differs","exact","local_ahead","local_behind","diverged"]
PlanCode: record_unknown nothing_published several_resumable origin_untrusted origin_undeclared line_diverged lineage_incomplete already_resumed would_diverge origin_may_be_active local_ahead local_behind source_diverged head_missing branch_differs source_unknown source_incomplete local_dirty landed ends_only files_differ
  json: ["record_unknown","nothing_published","several_resumable","origin_untrusted","origin_undeclared","line_diverged","lineage_incomplete","already_resumed","would_diverge","origin_may_be_active","local_ahead","local_behind","source_diverged","head_missing","branch_differs","source_unknown","source_incomplete","local_dirty","landed","ends_only","files_differ"]
  sorted: already_resumed branch_differs ends_only files_differ head_missing landed line_diverged lineage_incomplete local_ahead local_behind local_dirty nothing_published origin_may_be_active origin_undeclared origin_untrusted record_unknown several_resumable source_diverged source_incomplete source_unknown would_diverge
Severity: error warning info
  json: ["error","warning","info"]
  sorted: error warning info
Code: continuity.record_malformed continuity.id_mismatch continuity.dangling_parent continuity.broken_lineage continuity.bad_signature continuity.untrusted continuity.stray_file continuity.diverged continuity.upgrade_required continuity.secret continuity.schema_unknown continuity.schema_too_new continuity.revoked_key continuity.remote_unreachable continuity.record_too_large continuity.push_rejected continuity.push_refused continuity.nonportable_field continuity.no_remote continuity.no_device_identity continuity.foreign_repository continuity.collision continuity.retired
  json: ["continuity.record_malformed","continuity.id_mismatch","continuity.dangling_parent","continuity.broken_lineage","continuity.bad_signature","continuity.untrusted","continuity.stray_file","continuity.diverged","continuity.upgrade_required","continuity.secret","continuity.schema_unknown","continuity.schema_too_new","continuity.revoked_key","continuity.remote_unreachable","continuity.record_too_large","continuity.push_rejected","continuity.push_refused","continuity.nonportable_field","continuity.no_remote","continuity.no_device_identity","continuity.foreign_repository","continuity.collision","continuity.retired"]
  sorted: continuity.bad_signature continuity.broken_lineage continuity.collision continuity.dangling_parent continuity.diverged continuity.foreign_repository continuity.id_mismatch continuity.no_device_identity continuity.no_remote continuity.nonportable_field continuity.push_refused continuity.push_rejected continuity.record_malformed continuity.record_too_large continuity.remote_unreachable continuity.retired continuity.revoked_key continuity.schema_too_new continuity.schema_unknown continuity.secret continuity.stray_file continuity.untrusted continuity.upgrade_required
Match: same_worktree_same_branch same_branch
  json: ["same_worktree_same_branch","same_branch"]
  sorted: same_worktree_same_branch same_branch
Kind: handover checkpoint decision question prompt history
  json: ["handover","checkpoint","decision","question","prompt","history"]
  sorted: handover checkpoint decision question prompt history
ResumedFrom: current archive
  json: ["current","archive"]
SectionId: git task profile questions documents decisions reasoning checkpoint handover files history prompt
  json: ["git","task","profile","questions","documents","decisions","reasoning","checkpoint","handover","files","history","prompt"]
Scope: project local user
  json: ["project","local","user"]
SyncAction: exchanged fetched published none no_remote unreachable
  json: ["exchanged","fetched","published","none","no_remote","unreachable"]
SyncOutcome: ok partial unreachable
  json: ["ok","partial","unreachable"]
MeshPolicy: deny_unknown allowlist tofu
  json: ["deny_unknown","allowlist","tofu"]
Via: published resumed
  json: ["published","resumed"]
Standing: current open foreign stranded
  json: ["current","open","foreign","stranded"]"#;

/// `.ai/local/state/continuity.json` as this tool writes it: read and written back unchanged.
const LOCAL_STATE: &str = r#"{
  "schema": "majordomus-continuity-local/v1",
  "branches": {
    "DETACHED": {
      "line": "b277f81e658c3aa8bedec2b86d8205099e8fac045d1f3610a34042b38118a09d",
      "record": "ad710770bd0a0209b5aefc0f24ab8ed24f62c818f30caefd663803773e4c7c4e",
      "via": "resumed",
      "at": "2026-09-03T21:00:00Z"
    },
    "main": {
      "line": "b277f81e658c3aa8bedec2b86d8205099e8fac045d1f3610a34042b38118a09d",
      "record": "b277f81e658c3aa8bedec2b86d8205099e8fac045d1f3610a34042b38118a09d",
      "via": "published",
      "at": "2026-09-03T20:00:00Z"
    }
  },
  "offers": [],
  "last_sync": {
    "remote": "origin",
    "at": "2026-09-03T22:00:00Z",
    "outcome": "partial",
    "detail": "push rejected"
  },
  "other_syncs": {
    "fork": {
      "remote": "fork",
      "at": "2026-09-03T22:00:00Z",
      "outcome": "unreachable"
    },
    "lab": {
      "remote": "lab",
      "at": "2026-09-03T22:00:00Z",
      "outcome": "ok"
    }
  }
}
"#;

#[test]
fn record_ids_verdicts_and_vocabularies_are_pinned() {
    assert_eq!(ids_and_verdicts(), IDS_AND_VERDICTS);
    assert_eq!(vocabularies(), VOCABULARIES);
    let local = majordomus_continuity::local::LocalState::parse(LOCAL_STATE).unwrap();
    assert_eq!(String::from_utf8(local.to_bytes()).unwrap(), LOCAL_STATE);
}
