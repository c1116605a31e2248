//! Text renderings of the continuity reports (docs/REFERENCE.md#continuity-commands): 12-column prefixes.
//! Must not touch: git, `ctx`, the store, the terminal; a withheld record's text.

use crate::continuity::admission::Diagnostic;
use crate::continuity::plan::ResumePlan;
use crate::continuity::view::RecordView;
use crate::model::labels::RewriteBy;
use crate::ops::commands::continuity::device::{DeviceReport, RotateReport, VerifyReport};
use crate::ops::commands::continuity::publish::{PublishReport, SupersedeReport};
use crate::ops::commands::continuity::resume::ResumeReport;
use crate::ops::commands::continuity::snapshot::SnapshotReport;
use crate::ops::commands::continuity::sync::SyncReport;
use crate::ops::commands::continuity::trust::TrustChange;
use crate::ops::queries::continuity::StatusReport;
use crate::ops::queries::trust::TrustList;
use crate::text::{short, short_id};

/// One `key value` line: the key in a 12-column prefix, and at least one space after a key that
/// fills it (`other remote`).
fn p(s: &mut String, key: &str, value: impl AsRef<str>) {
    s.push_str(&format!("{key:<11} {}\n", value.as_ref()));
}

/// `N min ago` / `N h ago` / `N d ago`.
pub fn age(minutes: Option<i64>) -> String {
    match minutes {
        None => "unknown age".into(),
        Some(m) if m < 60 => format!("{m} min ago"),
        Some(m) if m < 48 * 60 => format!("{} h ago", m / 60),
        Some(m) => format!("{} d ago", m / (24 * 60)),
    }
}

/// A record's device as shown: the mesh's label for its key when the mesh gives one, with the
/// label the record gives itself beside it when the two differ.
fn shown_label(v: &RecordView) -> String {
    match &v.team_label {
        Some(t) if *t != v.device.label => format!("{t} (calls itself {})", v.device.label),
        Some(t) => t.clone(),
        None => v.device.label.clone(),
    }
}

/// A record block. Another device's record names its signer's key id under the label (a
/// label is what a device calls itself); a withheld record (`untrusted`, `revoked`) shows
/// only its id, device, key id, age and verdict (issue 39).
pub fn record_block(s: &mut String, v: &RecordView) {
    p(s, "record", short_id(&v.id));
    let label = shown_label(v);
    if v.this_device {
        p(s, "device", format!("{label} (this device)"));
    } else {
        p(s, "device", format!("{label} [{}]", v.trust.as_str()));
        p(s, "key", &v.key_id);
    }
    p(s, "published", age(v.age_minutes));
    if v.ends_only {
        p(
            s,
            "ends",
            format!("{} (no handover: it only ends that head)", v.parent.as_deref().map(short_id).unwrap_or("?")),
        );
    }
    for e in &v.ends {
        p(s, "also ends", short_id(e));
    }
    if let Some(trust) = v.withheld {
        s.push_str(&withheld_line(trust));
        return;
    }
    if let Some(t) = &v.task {
        p(s, "intent", t);
    }
    if let Some(i) = &v.issue {
        p(s, "issue", i);
    }
    let dirty = if v.changed_total > 0 { format!(" ({} uncommitted)", v.changed_total) } else { String::new() };
    p(
        s,
        "source",
        format!(
            "{} @ {}  {}{dirty}",
            v.branch.as_deref().unwrap_or("DETACHED"),
            v.head.as_deref().map(short_id).unwrap_or("NONE"),
            v.working_tree
        ),
    );
    if let Some(l) = &v.landed {
        p(s, "work", l.describe());
    }
    if let Some(o) = v.objective.as_deref().filter(|o| !o.is_empty()) {
        p(s, "objective", o);
    }
}

/// `withheld: <trust> — ...`: what a withheld record or plan says instead of its content.
fn withheld_line(trust: crate::continuity::mesh::Trust) -> String {
    format!("withheld: {trust} — its task, objective and next action are not quoted: the key that signed it is not trusted here\n")
}

/// Diagnostic lines: `<SEVERITY padded 7> <code> <path>: <message>`.
pub fn diagnostics(s: &mut String, d: &[Diagnostic]) {
    for x in d {
        let sev = x.severity.as_str().to_uppercase();
        // One line each: a path or a message quoting a store file keeps its line feeds escaped.
        let message = crate::text::escape_line(&x.message);
        match x.path.as_deref().map(crate::text::escape_line) {
            Some(path) => s.push_str(&format!("{sev:<7} {} {path}: {message}\n", x.code)),
            None => s.push_str(&format!("{sev:<7} {}: {message}\n", x.code)),
        }
    }
}

fn resumable(s: &mut String, list: &[RecordView], total: usize) {
    if list.is_empty() && total == 0 {
        p(s, "resumable", "none");
        return;
    }
    s.push_str(&format!("Resumable from another device ({total})\n"));
    for v in list {
        record_block(s, v);
    }
    if total > list.len() {
        p(s, "more", format!("{} older (git majordomus continuity status --all)", total - list.len()));
    }
}

/// `continuity status`.
pub fn status(r: &StatusReport) -> String {
    let mut s = String::new();
    p(&mut s, "repository", short_id(&r.repository));
    match &r.device {
        Some(d) => p(&mut s, "device", format!("{} ({})", d.label, short_id(&d.node))),
        None => p(&mut s, "device", "none yet (git majordomus continuity device)"),
    }
    if r.device_trust == Some(crate::continuity::mesh::Trust::Revoked) {
        p(
            &mut s,
            "",
            "this device: revoked — publish and sync refuse; git majordomus continuity device rotate makes a new key",
        );
    }
    p(
        &mut s,
        "branch",
        format!("{} @ {}  {}", r.branch, r.head.as_deref().map(short_id).unwrap_or("NONE"), r.working_tree),
    );
    match &r.position {
        Some(pos) => p(&mut s, "continues", format!("{} ({} here)", short_id(&pos.record), pos.via)),
        None => p(&mut s, "continues", "nothing yet on this branch"),
    }
    let remote = r.store.remote.clone().unwrap_or_else(|| "no remote".into());
    p(&mut s, "store", format!("{} record(s), {} refused; {}", r.store.records, r.store.refused, standing_words(r)));
    if let Some(a) = r.standing.as_ref().and_then(|st| st.arrived.as_ref()) {
        p(&mut s, "arrived", arrived_words(a, &remote));
    }
    if let Some(l) = &r.last_sync {
        p(&mut s, "last sync", format!("{} with {} at {}", l.outcome, l.remote, l.at));
    }
    for l in &r.other_syncs {
        p(&mut s, "other remote", format!("{}: {} at {} (records go to {remote})", l.remote, l.outcome, l.at));
    }
    for l in r.lines.iter().filter(|l| l.state == crate::continuity::lineage::LineState::Diverged) {
        p(&mut s, "line", format!("{} DIVERGED: {} heads", short_id(&l.line), l.heads.len()));
    }
    resumable(&mut s, &r.resumable, r.resumable_total);
    diagnostics(&mut s, &r.diagnostics);
    for n in &r.next {
        p(&mut s, "next", n);
    }
    s
}

/// The first line of `continuity records`: how many records follow, of how many.
pub fn records_head(shown: usize, total: usize) -> String {
    if total > shown {
        format!("{shown} of {total} record(s)\n")
    } else {
        format!("{shown} record(s)\n")
    }
}

/// One record of `continuity records` (a withheld one with its trust and key id after the
/// label, and `withheld: <trust>` where its branch would be).
pub fn record_line(v: &RecordView) -> String {
    let mut landed = v.landed.as_ref().map(|l| format!("  {}", l.describe())).unwrap_or_default();
    for e in &v.ends {
        landed.push_str(&format!("  also ends {}", short_id(e)));
    }
    if v.ends_only {
        landed.push_str("  ends its parent (no handover)");
    }
    let (device, branch) = match v.withheld {
        Some(t) => (format!("{} [{}] key {}", shown_label(v), v.trust, v.key_id), format!("withheld: {t}")),
        None => (shown_label(v), v.branch.as_deref().unwrap_or("DETACHED").to_string()),
    };
    format!(
        "{}  line {}  parent {}  {device}  {branch}  {}{landed}\n",
        short_id(&v.id),
        short_id(&v.line),
        v.parent.as_deref().map(short_id).unwrap_or("-"),
        v.published_at
    )
}

/// What `continuity records` prints after its records: the diagnostics.
pub fn records_tail(d: &[crate::continuity::admission::Diagnostic]) -> String {
    let mut s = String::new();
    diagnostics(&mut s, d);
    s
}

/// The body of a plan.
pub fn plan(r: &ResumePlan) -> String {
    let mut s = String::new();
    p(&mut s, "Resume", r.status.as_str());
    if let Some(v) = &r.record {
        record_block(&mut s, v);
    }
    for v in &r.candidates {
        record_block(&mut s, v);
    }
    if r.record.is_none() {
        if let Some(trust) = r.withheld {
            s.push_str(&withheld_line(trust));
        }
    }
    if let Some(src) = &r.source {
        s.push_str("Source\n");
        let bh = |b: &Option<String>, h: &Option<String>| {
            format!("{} @ {}", b.as_deref().unwrap_or("DETACHED"), h.as_deref().map(short_id).unwrap_or("NONE"))
        };
        s.push_str(&format!("  {:<12}{}\n", "expected", bh(&src.expected_branch, &src.expected_head)));
        s.push_str(&format!(
            "  {:<12}{}{}\n",
            "local",
            bh(&src.local_branch, &src.local_head),
            if src.local_dirty { "  dirty" } else { "" }
        ));
        s.push_str(&format!("  {:<12}{}\n", "relation", src.relation.as_str()));
        if let Some(rw) = &src.rewrite {
            let by = match rw.by {
                RewriteBy::Unknown => String::new(),
                by => format!(" by {by}"),
            };
            s.push_str(&format!(
                "  {:<12}{} -> {}{by} ({}: {})\n",
                "rewritten",
                short(&rw.from),
                short(&rw.to),
                rw.proof.kind,
                rw.proof.value
            ));
        }
        if src.origin_dirty {
            s.push_str(&format!(
                "  origin dirty: {} uncommitted file(s) not in its commit\n",
                src.origin_changed_total
            ));
        }
    }
    if let Some(na) = r.next_action.as_deref().filter(|na| !na.is_empty()) {
        s.push_str("Next action\n");
        for l in na.lines() {
            s.push_str(&format!("  {l}\n"));
        }
    }
    if !r.restores.is_empty() {
        p(&mut s, "Restores", r.restores.join(", "));
        p(&mut s, "Recomputes", r.recomputes.join(", "));
    }
    for b in &r.blockers {
        s.push_str(&format!("BLOCKER {}: {}\n", b.code, b.message));
    }
    for w in &r.warnings {
        s.push_str(&format!("WARN    {}: {}\n", w.code, w.message));
    }
    for a in &r.actions {
        s.push_str(&format!("run {a}\n"));
    }
    s
}

/// `continuity resume`.
pub fn resume(r: &ResumeReport) -> String {
    let mut s = String::new();
    if r.resumed {
        s.push_str("Session resumed\n");
        p(&mut s, "handover", r.handover.as_deref().unwrap_or(""));
        p(&mut s, "decisions", format!("{} carried", r.decisions_carried));
        p(&mut s, "questions", format!("{} carried", r.questions_carried));
        if let Some(v) = &r.plan.record {
            p(&mut s, "from", format!("{} (key {}) -> this device", v.device.label, v.key_id));
        }
    } else {
        s.push_str(&format!("Resume blocked  {}\n", r.plan.status.as_str()));
    }
    s.push_str(&plan(&r.plan));
    s
}

/// `continuity publish`.
pub fn publish(r: &PublishReport) -> String {
    let mut s = String::new();
    if r.is_refused() {
        s.push_str("the handover is not published, because it would carry what must not leave this machine:\n");
        for l in &r.refused {
            s.push_str(&format!("  {l}\n"));
        }
        s.push_str(
            "fix: remove those values from the handover (or the task title), write a new handover, and publish again\n",
        );
        return s;
    }
    if r.dry_run {
        s.push_str("Dry run: nothing was signed or stored. This would leave the machine:\n");
        for f in &r.receipt {
            if f.pointer == "/handover/body" {
                s.push_str(&format!("{} ({} bytes):\n{}\n", f.pointer, f.size, f.value));
            } else {
                s.push_str(&format!("{} ({} bytes): {}\n", f.pointer, f.size, f.value));
            }
        }
        return s;
    }
    let Some(v) = &r.record else { return s };
    if r.written {
        p(&mut s, "Published", short_id(&v.id));
    } else {
        p(&mut s, "Unchanged", format!("{} already holds this handover", short_id(&v.id)));
    }
    p(&mut s, "handover", &r.handover);
    record_block(&mut s, v);
    match &v.parent {
        Some(par) => p(&mut s, "continues", short_id(par)),
        None => p(&mut s, "line", format!("{} (new)", short_id(&v.line))),
    }
    for n in &r.next {
        p(&mut s, "next", n);
    }
    s
}

/// How the store stands with the chosen remote, from this machine's side (issue 40 item 5): the
/// JSON keeps `store.sync`'s words.
fn standing_words(r: &StatusReport) -> String {
    let Some(remote) = r.store.remote.as_deref() else { return "no remote".into() };
    match (r.store.sync.as_str(), &r.standing) {
        ("in_sync", _) => format!("in sync with {remote}"),
        ("never_synced", _) => format!("never synced with {remote}"),
        ("empty", _) => format!("empty here; nothing fetched from {remote} yet (continuity sync fetches it)"),
        (_, Some(st)) => {
            let mut parts = Vec::new();
            if st.not_read_here > 0 {
                parts.push(format!("{} record(s) on {remote} not read here", st.not_read_here));
            }
            if st.not_on_remote > 0 {
                parts.push(format!("{} record(s) here not yet on {remote}", st.not_on_remote));
            }
            if parts.is_empty() {
                format!("the same records as {remote} (the store commits differ)")
            } else {
                parts.join(", ")
            }
        }
        (sync, None) => format!("{remote} {sync}"),
    }
}

/// A newer handover for this branch that a fetch brought: named (device, key id, age, id),
/// never quoted, with the commands that take it.
pub fn arrived_words(a: &RecordView, remote: &str) -> String {
    format!(
        "a newer handover for this branch from {} (key {}), {}, record {} on {remote}: git majordomus continuity sync, then git majordomus continuity plan",
        a.device.label,
        a.key_id,
        age(a.age_minutes),
        short_id(&a.id)
    )
}

/// `continuity sync`.
pub fn sync(r: &SyncReport) -> String {
    let mut s = String::new();
    p(&mut s, "Sync", format!("{} with {}", r.action.as_str(), r.remote.as_deref().unwrap_or("no remote")));
    p(&mut s, "moved", format!("{} fetched, {} published", r.fetched, r.published));
    if let Some(e) = &r.elsewhere {
        let chosen = e
            .chosen
            .as_deref()
            .map(|c| format!("records go to {c} (continuity.remote)"))
            .unwrap_or_else(|| "no remote is chosen for records".into());
        p(
            &mut s,
            "elsewhere",
            format!(
                "{} record(s) published to {}, which is not where records go: {chosen}",
                e.published,
                r.remote.as_deref().unwrap_or("")
            ),
        );
        p(&mut s, "to delete", &e.delete);
    }
    p(&mut s, "store", &r.store.sync);
    for l in &r.lines {
        p(&mut s, "line", format!("{}  {}", short_id(&l.line), l.relation.as_str()));
    }
    if !r.resumable.is_empty() {
        resumable(&mut s, &r.resumable, r.resumable_total);
        p(&mut s, "next", "git majordomus continuity plan");
    }
    diagnostics(&mut s, &r.diagnostics);
    s
}

/// `continuity device`.
pub fn device(r: &DeviceReport) -> String {
    let mut s = String::new();
    if let Some(path) = &r.created {
        p(&mut s, "created", format!("a new device key at {path} (mode 0600)"));
    }
    p(&mut s, "device", &r.device.label);
    p(&mut s, "node", &r.device.node);
    p(&mut s, "key id", crate::continuity::view::key_id(&r.device.node));
    p(&mut s, "public key", &r.public_key);
    s
}

/// `continuity verify`.
pub fn verify(r: &VerifyReport) -> String {
    let mut s = String::new();
    diagnostics(&mut s, &r.problems);
    s.push_str(&format!(
        "verified {} record(s): {} admitted, {} refused, {} untrusted",
        r.verified, r.admitted, r.refused, r.untrusted
    ));
    if r.retired > 0 {
        s.push_str(&format!(", {} retired (revoked before their pin; not admitted, not a failure)", r.retired));
    }
    if r.too_new > 0 {
        s.push_str(&format!(" ({} too new, kept)", r.too_new));
    }
    s.push('\n');
    s
}

/// `continuity trust add|revoke`.
pub fn trust_change(r: &TrustChange) -> String {
    let mut s = String::new();
    let who = match &r.label {
        Some(l) => format!("{l} (key {})", r.key_id),
        None => format!("key {}", r.key_id),
    };
    let done = if r.unchanged { format!("{who}: already {}", r.action) } else { format!("{who} {}", r.action) };
    p(&mut s, "trust", done);
    p(&mut s, "mesh", if r.created { format!("{} (created, policy deny_unknown)", r.mesh) } else { r.mesh.clone() });
    if r.action == "revoked" {
        match &r.pin {
            Some(pin) => p(
                &mut s,
                "pinned at",
                format!("{} (its records up to there are retired: kept, not admitted, not a failure)", short(pin)),
            ),
            None => p(
                &mut s,
                "pinned at",
                "nothing: every record of the key is refused (run trust revoke again after a sync to pin)",
            ),
        }
    }
    for n in &r.next {
        p(&mut s, "next", n);
    }
    if !r.next.is_empty() {
        p(&mut s, "then", "push it: teammates' commands read the declaration their checkout holds");
    }
    s
}

/// `continuity trust list`.
pub fn trust_list(r: &TrustList) -> String {
    let mut s = String::new();
    match (&r.mesh, &r.policy) {
        (Some(m), Some(policy)) => p(&mut s, "mesh", format!("{m} (policy {policy})")),
        _ => p(&mut s, "mesh", "none declared: every signer is undeclared (trust add --create writes one)"),
    }
    for k in &r.keys {
        let label = k.label.as_deref().unwrap_or("(no label)");
        let also = if k.self_declared.is_empty() {
            String::new()
        } else {
            format!(" (calls itself {})", k.self_declared.join(", "))
        };
        let mut counts = format!("{} record(s)", k.records);
        if k.retired > 0 {
            counts.push_str(&format!(", {} retired", k.retired));
        }
        if k.refused > 0 {
            counts.push_str(&format!(", {} refused", k.refused));
        }
        let last = k.last_record.as_deref().map(|t| format!(", last {t}")).unwrap_or_default();
        let pin = k.revoked_at.as_deref().map(|c| format!(" at {}", short(c))).unwrap_or_default();
        p(&mut s, "key", format!("{}  {label}{also}  {}{pin}  {counts}{last}", k.key_id, k.trust.as_str()));
    }
    s
}

/// `continuity device rotate`.
pub fn rotate(r: &RotateReport) -> String {
    let mut s = String::new();
    p(&mut s, "device", format!("{} rotated: key {} replaces {}", r.device.label, r.key_id, r.rotated_key_id));
    p(&mut s, "public key", &r.public_key);
    if r.applied {
        p(&mut s, "mesh", format!("{} revoked, {} trusted as {}", r.rotated_key_id, r.key_id, r.label));
    } else {
        p(&mut s, "teammate", "a device the mesh trusts runs:");
    }
    for n in &r.next {
        p(&mut s, "next", n);
    }
    s
}

/// `continuity supersede`.
pub fn supersede(r: &SupersedeReport) -> String {
    let mut s = String::new();
    let h = &r.superseded;
    p(&mut s, "superseded", format!("{} from {} (key {})", short_id(&h.id), h.device.label, h.key_id));
    p(
        &mut s,
        "record",
        format!("{} ends it (signed, no handover; it travels with the next sync)", short_id(&r.record.id)),
    );
    p(&mut s, "questions", format!("{} carried", r.questions_carried));
    for n in &r.next {
        p(&mut s, "next", n);
    }
    s
}

/// `continuity snapshot`.
pub fn snapshot(r: &SnapshotReport) -> String {
    let mut s = String::new();
    if !r.written {
        p(
            &mut s,
            "unchanged",
            "this device's newest snapshot already describes every file of the store: nothing written",
        );
    }
    p(
        &mut s,
        "snapshot",
        format!(
            "of store commit {} ({} records, {} other files)",
            &r.store_commit[..r.store_commit.len().min(12)],
            r.records,
            r.others
        ),
    );
    p(&mut s, "file", format!("{} bytes in {} part(s), BLAKE3 {}", r.bytes, r.parts, &r.blake3[..12]));
    p(&mut s, "statement", &r.statement);
    p(&mut s, "rules", &r.rules);
    if !r.trusted_by_name {
        p(&mut s, "note", "the mesh here does not trust this device by name: a clone reads only a snapshot of a device it does (continuity trust add)");
    }
    for n in &r.next {
        p(&mut s, "next", n);
    }
    s
}
