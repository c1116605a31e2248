//! `continuity publish` (docs/REFERENCE.md#continuity-commands): project the newest (or a named) handover into a signed
//! record in the local store. Offline: only the local ref and `continuity.json` change.
//! Must not touch: the network, the remote, another command or a query, the terminal.

use std::path::Path;

use serde::Serialize;

use crate::continuity::local::{Position, Via};
use crate::continuity::mesh::Trust;
use crate::continuity::portability::{scan_publish, Leak};
use crate::continuity::record::{
    self, CarriedDecision, CarriedQuestion, Device, HandoverPart, Record, Source, TaskIntent, MAX_CHANGED,
    MAX_DECISIONS, MAX_STORED_BYTES,
};
use crate::continuity::signing;
use crate::continuity::view::RecordView;
use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::labels::Anchor;
use crate::model::task::Task;
use crate::oid::Oid;
use crate::services::continuity::loaded;
use crate::services::continuity::{load_local, save_local, REF};
use crate::store::atomic::read_opt;
use crate::store::format::{self, record::parse};
use crate::store::{decisions, questions};

/// Parameters of `publish`.
#[derive(Debug, Clone, Default)]
pub struct PublishParams {
    /// `--handover <file.md>`.
    pub handover: Option<String>,
    /// `--issue`.
    pub issue: Option<String>,
    /// `--milestone`.
    pub milestone: Option<String>,
    /// `--dry-run`.
    pub dry_run: bool,
}

/// One field of the dry-run receipt.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct ReceiptField {
    /// JSON pointer.
    pub pointer: String,
    /// Bytes.
    pub size: usize,
    /// The value as it would leave the machine.
    pub value: String,
}

/// What `publish` answered.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct PublishReport {
    /// The record (written or already there; for a dry run, as it would be).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<RecordView>,
    /// Whether a new record was stored.
    pub written: bool,
    /// The store tip afterwards.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tip: Option<Oid>,
    /// The handover file, repository-relative.
    pub handover: String,
    /// The leaks that refuse the publication (never their values).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<Leak>,
    /// A dry run: every field that would leave the machine.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub receipt: Vec<ReceiptField>,
    /// Whether this was a dry run.
    pub dry_run: bool,
    /// What to run next.
    pub next: Vec<String>,
}

impl PublishReport {
    /// Whether the publication was (or would be) refused.
    pub fn is_refused(&self) -> bool {
        !self.refused.is_empty()
    }
}

/// What refuses a publish or a supersede (exit codes and hints: `crate::edge`).
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// `--handover` is not the bare file name of a handover.
    #[error("`{0}` is not the file name of a handover record under .ai/local/state/handovers/")]
    NotAName(String),
    /// `--handover` names no handover of this checkout.
    #[error("no handover record `{0}` under .ai/local/state/handovers/")]
    NoSuchHandover(String),
    /// `--handover` names a handover that arrived from another machine.
    #[error("`{0}` arrived from another machine; it is not this machine's to publish")]
    Arrived(String),
    /// There is no handover of this machine to publish.
    #[error("no handover record under .ai/local/state/handovers/ to publish")]
    NoHandover,
    /// The handover's front matter does not parse.
    #[error("{file}: {problem}")]
    Unparsable {
        /// The handover, repository-relative.
        file: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// The handover says nothing.
    #[error("{0}: the handover body is empty")]
    EmptyBody(String),
    /// Admission would refuse the record: `problem` names the field (`/part/…`) and what is
    /// wrong; `part` is where to correct it.
    #[error("publish: the record would be refused by admission: {problem}")]
    Inadmissible {
        /// Admission's words, the field first.
        problem: String,
        /// The part of the record the field is in.
        part: Part,
    },
    /// The stored record would be over the store's cap.
    #[error("publish: the record would be {size} bytes, over the store's cap of {MAX_STORED_BYTES} ({questions} unresolved questions, {decisions} decisions, a body of {body} bytes); nothing is cut, nothing was published")]
    TooLarge {
        /// The stored record's size.
        size: usize,
        /// Unresolved questions carried.
        questions: usize,
        /// Decisions carried.
        decisions: usize,
        /// The handover body's bytes.
        body: usize,
        /// The questions log, repository-relative.
        questions_file: String,
    },
    /// `supersede` names a record that a later one continues.
    #[error("record {} is not a head: a later record already continues it", crate::text::short_id(.0))]
    NotAHead(String),
    /// `supersede` names a head that is not admitted when read again.
    #[error("record {} is not admitted when read again from its blob", crate::text::short_id(.0))]
    NotReadmitted(String),
    /// The superseding record would carry something that looks like a secret.
    #[error("continuity supersede: {pointer}: {reason}")]
    Leak {
        /// Where, as a JSON pointer.
        pointer: String,
        /// Why (never the value).
        reason: String,
    },
    /// The record could not be turned into JSON.
    #[error("{0}")]
    Json(#[source] serde_json::Error),
    /// The store could not be read or written.
    #[error("continuity store: {0}")]
    Store(#[source] crate::git::Error),
}

/// The part of a record a field admission refuses is in, and the file that holds it here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// The task's decisions, from the decision log (repository-relative).
    Decisions(String),
    /// The unresolved questions, from the questions log (repository-relative).
    Questions(String),
    /// The handover.
    Handover,
    /// The task.
    Task,
    /// Any other field.
    Other,
}

/// Step 1–2: the handover file to publish.
fn locate(ctx: &Ctx, named: Option<&str>) -> Result<(String, String)> {
    let dir = ctx.layout.handovers();
    let arrived =
        |text: &str| format::split(text).is_some_and(|(y, _)| y.lines().any(|l| l.starts_with("continuity_device:")));
    if let Some(name) = named {
        if name.contains('/') || !name.ends_with(".md") || name.starts_with('.') {
            return Err(PublishError::NotAName(name.to_string()).into());
        }
        let path = dir.join(name);
        let inside = std::fs::canonicalize(&path)
            .is_ok_and(|p| p.starts_with(std::fs::canonicalize(&dir).unwrap_or(dir.clone())));
        let text = if inside { read_opt(&path)? } else { None };
        let Some(text) = text else {
            return Err(PublishError::NoSuchHandover(name.to_string()).into());
        };
        if arrived(&text) {
            return Err(PublishError::Arrived(name.to_string()).into());
        }
        return Ok((name.to_string(), text));
    }
    let canon_dir = std::fs::canonicalize(&dir).unwrap_or(dir.clone());
    // Names only first; files are read from the newest timestamp segment down, and the first
    // segment holding an eligible record decides: one file read, not every handover.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".md") && n.starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    let segment = |n: &str| n.split("--").next().unwrap_or("").to_string();
    names.sort_by_key(|n| std::cmp::Reverse(segment(n)));
    let mut best: Option<((String, std::time::SystemTime, String), String)> = None;
    for name in &names {
        if best.as_ref().is_some_and(|((seg, _, _), _)| *seg != segment(name)) {
            break;
        }
        let path = dir.join(name);
        if !std::fs::canonicalize(&path).is_ok_and(|p| p.starts_with(&canon_dir)) {
            continue;
        }
        let Ok(Some(text)) = read_opt(&path) else { continue };
        if arrived(&text) {
            continue;
        }
        // The one place a file's modification time is read (docs/REFERENCE.md#resolution).
        let mtime = std::fs::symlink_metadata(&path).and_then(|m| m.modified()).unwrap_or(std::time::UNIX_EPOCH);
        let key = (segment(name), mtime, name.clone());
        if best.as_ref().is_none_or(|(k, _)| key > *k) {
            best = Some((key, text));
        }
    }
    best.map(|((_, _, name), text)| (name, text)).ok_or_else(|| PublishError::NoHandover.into())
}

/// A front-matter value that says something: not empty, not `none`.
fn present(v: &str) -> Option<String> {
    (!v.is_empty() && v != "none").then(|| v.to_string())
}

/// The task intent of `task_id`: `current.yaml` if its id matches, else the archive.
fn intent(ctx: &Ctx, task_id: &str) -> Option<TaskIntent> {
    let from = |p: &Path| read_opt(p).ok().flatten().and_then(|t| Task::parse(&t).ok());
    let t = from(&ctx.layout.current())
        .filter(|t| t.id == task_id)
        .or_else(|| from(&ctx.layout.archive().join(format!("{task_id}.yaml"))))?;
    Some(TaskIntent {
        id: t.id,
        title: t.task,
        profile: Some(t.profile),
        scope: t.scope,
        outcome: Some(t.outcome.to_string()),
    })
}

/// The source part: this checkout's branch, head and uncommitted change. `changed` is the
/// change list as the records' front matter carries it (untracked directories collapsed, `.ai/`
/// left out, docs/REFERENCE.md#front-matter), at most [`MAX_CHANGED`] of it, and `changed_total` its length; the
/// fingerprint still reads every file.
pub fn source_now(ctx: &Ctx) -> Result<Source> {
    let id = ctx.identity()?;
    let mut changed: Vec<String> = ctx.changes()?.entries().to_vec();
    changed.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    let total = changed.len() as u64;
    changed.truncate(MAX_CHANGED);
    Ok(Source {
        branch: id.branch.clone(),
        head: id.head.as_ref().map(Oid::to_string),
        working_tree: ctx.working_tree()?.into(),
        changed,
        changed_total: total,
        fingerprint: crate::services::continuity::fingerprint(ctx)?,
    })
}

/// Warns when the handover's commit is on no remote-tracking branch (docs/REFERENCE.md#continuity-commands, issue 22): the
/// record travels with `continuity sync`, the commit only with `git push`, and a machine that
/// cannot read the record's head cannot resume it (`head_missing`). A clone without any remote
/// keeps quiet (it cannot sync either, and `sync` says so); so does a check that cannot answer
/// within its bound ([`crate::git::Git::on_remote_branch`]). The exit code is unchanged.
fn warn_unpushed(ctx: &Ctx, commit: Option<&str>) {
    if ctx.git.remote_names().is_empty() {
        return;
    }
    let Some((c, id)) = commit.and_then(|c| Some((c, ctx.git.commit_id(c)?))) else { return };
    if ctx.git.on_remote_branch(id) == Some(false) {
        ctx.warn(format!(
            "the handover's commit {} is on no remote branch: push it, or the other machine cannot resume",
            crate::text::short(c)
        ));
    }
}

/// Runs `publish`.
pub fn publish(ctx: &Ctx, p: PublishParams) -> Result<PublishReport> {
    let s = loaded::setup(ctx)?;
    if let Some(e) = s.revoked_here() {
        return Err(e);
    }
    let (name, text) = locate(ctx, p.handover.as_deref())?;
    let rel = format!(".ai/local/state/handovers/{name}");
    let (meta, body) = parse(&text).map_err(|k| PublishError::Unparsable { file: rel.clone(), problem: k.as_str() })?;
    if body.trim().is_empty() {
        return Err(PublishError::EmptyBody(rel).into());
    }
    let _lock = if p.dry_run { None } else { Some(crate::services::continuity::writer_lock(ctx)?) };
    let mut local = load_local(ctx)?;
    let branch = ctx.identity()?.branch_text().to_string();
    let parent_record = match local.branches.get(&branch) {
        Some(pos) => loaded::load_one(ctx, &s, REF, &pos.record)?,
        None => None,
    };
    let parent = parent_record.as_ref();
    let tip = ctx.git.ref_tip(REF)?;
    let report = |record: RecordView, written: bool, tip: Option<Oid>| PublishReport {
        record: Some(record),
        written,
        tip,
        handover: rel.clone(),
        refused: vec![],
        receipt: vec![],
        dry_run: false,
        next: vec!["git majordomus continuity sync".into()],
    };
    let issue = p.issue.or_else(|| parent.and_then(|a| a.record.handover.issue.clone()));
    let milestone = p.milestone.or_else(|| parent.and_then(|a| a.record.handover.milestone.clone()));
    let source = source_now(ctx)?;
    let handover = handover_part(&name, &meta, body, issue, milestone);
    let commit = handover.head.clone().or_else(|| source.head.clone());
    let device = signer(ctx, &s, p.dry_run)?;
    if let (Some(par), false) = (parent, p.dry_run) {
        if par.record.device.node == device.node && par.record.handover.id == handover.id && par.record.source == source
        {
            // The same handover from the same source and device: the parent is the record.
            warn_unpushed(ctx, commit.as_deref());
            return Ok(report(RecordView::new(&par.id, &par.record, par.trust, true, ctx.clock.now()), false, tip));
        }
    }
    let task = present(&meta.task_id).and_then(|t| intent(ctx, &t));
    // A resume on a diverged line said which other heads the next record ends (issue 40 item 4).
    let ends = match (parent, local.branches.get(&branch)) {
        (Some(par), Some(pos)) if pos.record == par.id.as_str() => pos.ends.clone(),
        _ => Vec::new(),
    };
    let rec = compose(ctx, &s, parent, device, source, task, handover, ends)?;
    refuse_unbounded(ctx, &rec)?;
    let value = serde_json::to_value(&rec).map_err(PublishError::Json)?;
    let leaks = scan_publish(&value, &ctx.env.vars, &ctx.layout.root().display().to_string());
    let this_device = |id: &str| RecordView::new(id, &rec, Trust::ThisDevice, true, ctx.clock.now());
    if p.dry_run || !leaks.is_empty() {
        // A refused receipt would repeat the leaked values: the refusal alone is printed.
        let receipt = if p.dry_run && leaks.is_empty() { receipt(&value, "") } else { Vec::new() };
        if leaks.is_empty() {
            warn_unpushed(ctx, commit.as_deref());
        }
        let unwritten = report(this_device(&record::id_of(&rec)), false, tip);
        return Ok(PublishReport { refused: leaks, receipt, dry_run: p.dry_run, ..unwritten });
    }
    let (id, tip) = store_record(ctx, &rec)?;
    let line = rec.line.clone().unwrap_or_else(|| id.clone());
    // The new record continues the parent: an offer of the parent is no longer resumable here.
    local.offers.retain(|o| Some(&o.record) != rec.parent.as_ref());
    local.branches.insert(
        branch,
        Position { line, record: id.clone(), via: Via::Published, at: ctx.clock.stamp(), ends: Vec::new() },
    );
    save_local(ctx, &local)?;
    warn_unpushed(ctx, commit.as_deref());
    Ok(report(this_device(&id), true, Some(tip)))
}

/// The handover as a record carries it: its body, an id of the body, and the anchors of its
/// front matter.
fn handover_part(
    name: &str,
    meta: &crate::model::record::RecordMeta,
    body: &str,
    issue: Option<String>,
    milestone: Option<String>,
) -> HandoverPart {
    HandoverPart {
        id: record::blake3_hex(body.as_bytes())[..32].to_string(),
        task: present(&meta.task_id),
        issue,
        milestone,
        branch: meta.anchor_branch().and_then(present),
        head: meta.anchor_head().and_then(present),
        created_at: present(&meta.created_at),
        name: Some(name.to_string()),
        body: body.to_string(),
        citations: meta.citations.clone(),
    }
}

/// The record a publish writes: the handover and this checkout's source, the task's decisions
/// and the open questions, continuing `parent`'s line (a new line without one).
#[allow(clippy::too_many_arguments)]
fn compose(
    ctx: &Ctx,
    s: &loaded::Setup,
    parent: Option<&crate::continuity::admission::Admitted>,
    device: Device,
    source: Source,
    task: Option<TaskIntent>,
    handover: HandoverPart,
    ends: Vec<String>,
) -> Result<Record> {
    let session = crate::store::sessions::own_episode(&ctx.layout, ctx.here(), None, &[]).map(|(_, o, _)| o.session_id);
    let mut rec = Record {
        schema: record::SCHEMA.into(),
        repository: s.repository.clone(),
        device,
        episode: if session.is_some() { "open" } else { "none" }.into(),
        session,
        line: parent.map(|a| a.record.line.clone().unwrap_or_else(|| a.id.to_string())),
        parent: parent.map(|a| a.id.to_string()),
        published_at: ctx.clock.stamp(),
        producer: format!("git-majordomus/{}", env!("CARGO_PKG_VERSION")),
        source,
        decisions: carried_decisions(ctx, task.as_ref())?,
        questions: open_questions(ctx)?,
        task,
        ends,
        handover,
    };
    rec.schema = rec.schema_for().into();
    Ok(rec)
}

/// The device that signs: this machine's key (created on the first publish; a dry run only
/// names it).
fn signer(ctx: &Ctx, s: &loaded::Setup, dry_run: bool) -> Result<Device> {
    Ok(match (&s.device, dry_run) {
        (Some(d), _) => d.device(),
        (None, true) => Device { node: "(created on publish)".into(), label: "(created on publish)".into() },
        (None, false) => {
            signing::load_or_create(&crate::services::continuity::device_path(ctx)?, &ctx.clock.stamp())?.device()
        }
    })
}

/// The task's decisions a record carries: the newest [`MAX_DECISIONS`], each text whole (one
/// over [`record::MAX_DECISION_TEXT`] refuses the publish, [`refuse_unbounded`]); none without
/// a task.
fn carried_decisions(ctx: &Ctx, task: Option<&TaskIntent>) -> Result<Vec<CarriedDecision>> {
    let log = decisions::parse(&read_opt(&ctx.layout.decisions())?.unwrap_or_default());
    let Some(t) = task else { return Ok(Vec::new()) };
    let mut v: Vec<CarriedDecision> = log
        .iter()
        .filter(|d| d.task.as_deref() == Some(t.id.as_str()))
        .map(|d| CarriedDecision { title: d.title.clone(), text: d.text.join("\n") })
        .collect();
    let skip = v.len().saturating_sub(MAX_DECISIONS);
    v.drain(..skip);
    Ok(v)
}

/// Every unresolved question, as a record carries it.
fn open_questions(ctx: &Ctx) -> Result<Vec<CarriedQuestion>> {
    Ok(questions::parse(&read_opt(&ctx.layout.questions())?.unwrap_or_default())
        .into_iter()
        .filter_map(|e| match e {
            questions::Entry::Unresolved { question, opened, .. } => Some(CarriedQuestion { text: question, opened }),
            _ => None,
        })
        .collect())
}

/// Refuses (exit 10) a record that admission would refuse for its bounds or the text grammar
/// of a field, or whose stored file would be over the store's cap: nothing is truncated, so
/// every unresolved question travels or the publish is refused (a blocker must travel). A dry run
/// is judged the same, its device not yet created taken as a well-formed one.
fn refuse_unbounded(ctx: &Ctx, rec: &Record) -> Result<()> {
    let placeholder = Device { node: "0".repeat(32), label: rec.device.label.clone() };
    let device_ok = rec.device.node.len() == 32 && crate::hex::is_lowercase(&rec.device.node);
    let judged = if device_ok { None } else { Some(Record { device: placeholder, ..rec.clone() }) };
    let judged = judged.as_ref().unwrap_or(rec);
    if let Err(problem) = record::check_bounds(judged) {
        let part = match problem.split('/').nth(1).unwrap_or("") {
            "decisions" => Part::Decisions(ctx.rel(&ctx.layout.decisions())),
            "questions" => Part::Questions(ctx.rel(&ctx.layout.questions())),
            "handover" => Part::Handover,
            "task" => Part::Task,
            _ => Part::Other,
        };
        return Err(PublishError::Inadmissible { problem, part }.into());
    }
    let key = signing::DeviceKey::from_seed([0; 32], None, &ctx.clock.stamp());
    let size = record::stored_bytes(&key.sign(judged)).len();
    if size > MAX_STORED_BYTES {
        return Err(PublishError::TooLarge {
            size,
            questions: rec.questions.len(),
            decisions: rec.decisions.len(),
            body: rec.handover.body.len(),
            questions_file: ctx.rel(&ctx.layout.questions()),
        }
        .into());
    }
    Ok(())
}

/// Signs the record with this machine's key and adds it to the local store: its id and the
/// store's new tip.
fn store_record(ctx: &Ctx, rec: &Record) -> Result<(String, Oid)> {
    let key = signing::load_or_create(&crate::services::continuity::device_path(ctx)?, &ctx.clock.stamp())?;
    let envelope = key.sign(rec);
    let who = crate::services::continuity::committer(ctx);
    let msg = format!("majordomus continuity: {} from {}", &envelope.id[..12], rec.device.label);
    let out = ctx
        .git
        .store_add(&[(record::store_path(&envelope.id), record::stored_bytes(&envelope))], &msg, &who)
        .map_err(PublishError::Store)?;
    majordomus_core::inject::stop_at("publish.after-ref");
    ctx.git.gc_auto();
    Ok((envelope.id, out.tip))
}

/// Every string and number of a value, with its JSON pointer and size (the dry-run receipt).
fn receipt(v: &serde_json::Value, at: &str) -> Vec<ReceiptField> {
    use serde_json::Value;
    let esc = |k: &str| k.replace('~', "~0").replace('/', "~1");
    match v {
        Value::Object(m) => m.iter().flat_map(|(k, x)| receipt(x, &format!("{at}/{}", esc(k)))).collect(),
        Value::Array(a) => a.iter().enumerate().flat_map(|(i, x)| receipt(x, &format!("{at}/{i}"))).collect(),
        Value::String(s) => vec![ReceiptField { pointer: at.into(), size: s.len(), value: s.clone() }],
        other => vec![ReceiptField { pointer: at.into(), size: other.to_string().len(), value: other.to_string() }],
    }
}

/// `continuity supersede`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct SupersedeReport {
    /// The head it ends.
    pub superseded: RecordView,
    /// The record written: signed, v2, continuing that head, carrying no handover.
    pub record: RecordView,
    /// The local store's tip after it.
    pub tip: Oid,
    /// The head's unresolved questions re-opened here (none from a withheld head).
    pub questions_carried: usize,
    /// What to run next.
    pub next: Vec<String>,
}

/// `continuity supersede <id>` (issue 40 item 4): ends head `prefix` without resuming it — a
/// signed v2 record whose parent is that head and which carries no handover, so that the end
/// travels; the head's unresolved questions are carried here (a blocker must travel).
pub fn supersede(ctx: &Ctx, prefix: &str) -> Result<SupersedeReport> {
    let s = loaded::setup(ctx)?;
    if let Some(e) = s.revoked_here() {
        return Err(e);
    }
    let _lock = crate::services::continuity::writer_lock(ctx)?;
    let store = loaded::load(ctx, &s, REF)?;
    let row = store.unique("supersede", prefix)?;
    let id = store.id(row);
    let lineage = store.lineage();
    if !lineage.is_head(&id) {
        return Err(PublishError::NotAHead(id.to_string()).into());
    }
    let head = loaded::load_one(ctx, &s, REF, &id)?.ok_or_else(|| PublishError::NotReadmitted(id.to_string()))?;
    let device = signer(ctx, &s, false)?;
    let source = source_now(ctx)?;
    let rec = compose(ctx, &s, Some(&head), device, source, None, HandoverPart::default(), Vec::new())?;
    refuse_unbounded(ctx, &rec)?;
    let value = serde_json::to_value(&rec).map_err(PublishError::Json)?;
    if let Some(leak) = scan_publish(&value, &ctx.env.vars, &ctx.layout.root().display().to_string()).first() {
        return Err(PublishError::Leak { pointer: leak.pointer.clone(), reason: leak.reason.to_string() }.into());
    }
    let task_id = crate::services::task::read(ctx)?.filter(|t| !t.foreign).map_or_else(|| "none".into(), |t| t.task.id);
    let questions_carried = if crate::continuity::view::withheld(head.trust).is_none() {
        super::resume::carry_questions(ctx, &head.record, &task_id)?
    } else {
        0
    };
    let (new_id, tip) = store_record(ctx, &rec)?;
    let mut local = load_local(ctx)?;
    let after = loaded::load(ctx, &s, REF)?;
    crate::services::continuity::views::refresh_offers(&s, &after, &after.lineage(), &mut local);
    save_local(ctx, &local)?;
    let now = ctx.clock.now();
    Ok(SupersedeReport {
        superseded: RecordView::new(&head.id, &head.record, head.trust, false, now),
        record: RecordView::new(&new_id, &rec, Trust::ThisDevice, true, now),
        tip,
        questions_carried,
        next: vec!["git majordomus continuity sync".into()],
    })
}
