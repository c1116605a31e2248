//! `continuity plan` (writes nothing) and `continuity resume` (docs/REFERENCE.md#plans).

use std::cell::RefCell;

use serde::Serialize;

use super::loaded::{self, Loaded, Setup};
use super::status::resumable_ids;
use super::{load_local, save_local, REF};
use crate::continuity::local::{LocalState, Position, Via};
pub use crate::continuity::plan::ResumePlan;
use crate::continuity::plan::{self, PlanInput, PlanRecord, SourceFacts, SourceRelation};
use crate::continuity::record::Record;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::labels::{branch_text, head_text, Anchor, Divergence, WorkingTree};
use crate::model::record::{branch_key, RecordMeta};
use crate::ops::decision::{self, seed};
use crate::ops::rewrite;
use crate::store::atomic::{append, create_new, read_opt, Lock};
use crate::store::records::head7;
use crate::store::{decisions, questions};

/// This checkout's side of every source relation, read once per plan: a failure to read git or
/// the working tree is an error, never an answer.
struct Local {
    branch: Option<String>,
    head: Option<String>,
    dirty: bool,
    fingerprint: Option<String>,
}

fn local_facts(ctx: &Ctx) -> Result<Local> {
    let id = ctx.identity()?;
    let (branch, head) = (id.branch.clone(), id.head.clone());
    let dirty = ctx.working_tree()? == WorkingTree::Dirty;
    let fingerprint = if dirty { super::fingerprint(ctx)? } else { None };
    Ok(Local { branch, head, dirty, fingerprint })
}

/// What git says about a record's source here (docs/REFERENCE.md#plans "source relation"). An ancestry
/// question git cannot answer (the object database failed) is an error, not "diverged".
///
/// Two proofs of docs/REFERENCE.md#rewrites refine the plain answer, with objects of this clone only (the
/// origin's reflog and captured pairs are on the other machine): a `diverged` head whose content
/// is in this history (same tree, same patch id) takes the relation the commit holding it earns,
/// with the rewrite beside it; a record of another branch whose work landed in this branch
/// carries where ([`rewrite::landed`]). A head this clone cannot read stays `head_missing`.
fn source_facts(ctx: &Ctx, local: &Local, r: &Record) -> Result<SourceFacts> {
    let (mut rewritten, mut landed) = (None, None);
    let relation = match (&r.source.head, &local.head) {
        (None, _) | (_, None) => SourceRelation::Unknown,
        (Some(rh), Some(lh)) => {
            let ancestor = |a: &str, b: &str| ctx.git.commit_is_ancestor(a, b).map_err(Error::from);
            if !ctx.git.has_commit(rh) {
                SourceRelation::HeadMissing
            } else if r.source.branch.as_ref().is_some_and(|b| Some(b) != local.branch.as_ref()) {
                landed = rewrite::landed(ctx, Some(rh));
                SourceRelation::BranchDiffers
            } else if rh == lh {
                SourceRelation::Exact
            } else if ancestor(rh, lh)? {
                SourceRelation::LocalAhead
            } else if ancestor(lh, rh)? {
                SourceRelation::LocalBehind
            } else {
                match rewrite::content_label(ctx, rh) {
                    Some(label) if label.divergence.trustworthy() => {
                        rewritten = label.rewrite;
                        match label.divergence {
                            Divergence::Exact => SourceRelation::Exact,
                            _ => SourceRelation::LocalAhead,
                        }
                    }
                    _ => SourceRelation::Diverged,
                }
            }
        }
    };
    Ok(SourceFacts {
        relation,
        rewrite: rewritten,
        landed,
        local_branch: local.branch.clone(),
        local_head: local.head.clone(),
        local_dirty: local.dirty,
        local_fingerprint: local.fingerprint.clone(),
    })
}

/// Computes the plan over a loaded store. The plan sees whole records (bodies, decisions,
/// sources) only for the records it can choose: the offers, or the records matching `prefix`;
/// those are read from their blobs, every other record is known to it through the lineage.
fn plan_over(ctx: &Ctx, s: &Setup, store: &Loaded, local: &LocalState, prefix: Option<&str>) -> Result<ResumePlan> {
    let lineage = store.lineage();
    let own = s.own_node();
    let offers = resumable_ids(s, store, &lineage, local);
    let mut wanted: Vec<String> = match prefix {
        Some(p) => lineage.ids_with_prefix(p),
        None => Vec::new(),
    };
    // Without `--record` the plan chooses among the offers on this branch (all offers when none
    // is): only those are read whole.
    let here = ctx.identity()?.branch.clone();
    let on_branch: Vec<&String> = offers
        .iter()
        .filter(|id| {
            here.is_some() && store.get(id).is_some_and(|r| store.summary(r).branch.as_deref() == here.as_deref())
        })
        .collect();
    if prefix.is_some() || on_branch.is_empty() {
        wanted.extend(offers.iter().cloned());
    } else {
        wanted.extend(on_branch.into_iter().cloned());
    }
    wanted.sort();
    wanted.dedup();
    let whole: Vec<(String, loaded::Row, Record)> = wanted
        .into_iter()
        .filter_map(|id| store.get(&id).map(|r| (id, r)))
        .map(|(id, r)| Ok((id, r, loaded::full(ctx, store, r)?)))
        .collect::<Result<_>>()?;
    let records: Vec<PlanRecord<'_>> = whole
        .iter()
        .map(|(id, row, r)| PlanRecord {
            id,
            record: r,
            trust: row.trust,
            this_device: Some(r.device.node.as_str()) == own.as_deref(),
        })
        .collect();
    let branch = ctx.identity()?.branch.clone();
    let position = local.branches.get(branch_text(branch.as_deref())).map(|p| p.record.clone());
    let default_remote = super::status::chosen_remote(ctx)?;
    let input = PlanInput {
        records: &records,
        lineage: &lineage,
        refused: &store.refused,
        offers: &offers,
        record_prefix: prefix,
        branch: branch.as_deref(),
        position: position.as_deref(),
        last_sync: local.last_sync.as_ref(),
        default_remote: default_remote.as_deref(),
        now: ctx.clock.now(),
    };
    // The plan asks for the facts of the records it can choose; the first failure is kept and
    // returned in place of the plan.
    let here = local_facts(ctx)?;
    let failed: RefCell<Option<Error>> = RefCell::new(None);
    let plan = plan::plan(&input, &|_, r| {
        source_facts(ctx, &here, r).unwrap_or_else(|e| {
            failed.borrow_mut().get_or_insert(e);
            SourceFacts::default()
        })
    });
    match failed.into_inner() {
        Some(e) => Err(e),
        None => Ok(plan),
    }
}

/// `continuity plan [--record]`: writes nothing.
pub fn plan(ctx: &Ctx, prefix: Option<&str>) -> Result<ResumePlan> {
    let s = loaded::setup(ctx)?;
    let store = loaded::load(ctx, &s, REF)?;
    plan_over(ctx, &s, &store, &load_local(ctx)?, prefix)
}

/// `continuity resume`.
#[derive(Debug, Clone, Serialize)]
pub struct ResumeReport {
    /// Whether the record was resumed.
    pub resumed: bool,
    /// The plan it followed.
    pub plan: ResumePlan,
    /// The handover written (or found), repository-relative.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handover: Option<String>,
    /// Decisions appended to the log.
    pub decisions_carried: usize,
    /// This checkout's new position.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<Position>,
}

/// `continuity resume [--record]`.
pub fn resume(ctx: &Ctx, prefix: Option<&str>) -> Result<ResumeReport> {
    let s = loaded::setup(ctx)?;
    let store = loaded::load(ctx, &s, REF)?;
    let _lock = super::writer_lock(ctx)?;
    let mut local = load_local(ctx)?;
    let mut plan = plan_over(ctx, &s, &store, &local, prefix)?;
    let chosen = plan.record.as_ref().and_then(|v| store.get(&v.id));
    let (true, Some(row)) = (plan.status.is_resumable(), chosen) else {
        return Ok(ResumeReport { resumed: false, plan, handover: None, decisions_carried: 0, position: None });
    };
    // What is written comes from the record admitted again from its blob, every rule applied
    // now: the plan's choice rests on the read model's cached verdict.
    let id = store.id(row);
    let Some(admitted) = loaded::load_one(ctx, &s, REF, &id)? else {
        return Err(Error::refused(format!(
            "continuity resume: record {} is not admitted when read again from its blob",
            &id[..12]
        ))
        .hint("run `git majordomus continuity verify` to see why; nothing was written"));
    };
    let a = Whole { id, record: admitted.record };
    let (handover, task_id) = write_handover(ctx, &a)?;
    let carried = carry_decisions(ctx, &a)?;
    carry_questions(ctx, &a, &task_id)?;
    let line = a.record.line.clone().unwrap_or_else(|| a.id.clone());
    let pos = Position { line, record: a.id.clone(), via: Via::Resumed, at: ctx.clock.stamp() };
    local.branches.insert(ctx.identity()?.branch_text().to_string(), pos.clone());
    super::status::refresh_offers(&s, &store, &store.lineage(), &mut local);
    save_local(ctx, &local)?;
    plan.actions.retain(|x| !x.starts_with("git majordomus continuity resume"));
    Ok(ResumeReport { resumed: true, plan, handover: Some(handover), decisions_carried: carried, position: Some(pos) })
}

/// A record read whole from its blob, to be resumed.
struct Whole {
    id: String,
    record: Record,
}

/// Writes the arrived handover (docs/REFERENCE.md#records), or returns the one already holding this record.
fn write_handover(ctx: &Ctx, a: &Whole) -> Result<(String, String)> {
    let dir = ctx.layout.handovers();
    let needle = format!("\ncontinuity_record: {}\n", a.id);
    for name in crate::store::records::names(&dir)? {
        if name.contains("--continuity--") {
            if let Some(text) = read_opt(&dir.join(&name))? {
                if text.contains(&needle) {
                    let task = crate::store::format::record::parse(&text)
                        .map(|(m, _)| m.task_id)
                        .unwrap_or_else(|_| "none".into());
                    return Ok((ctx.rel(&dir.join(&name)), task));
                }
            }
        }
    }
    let r = &a.record;
    let h = &r.handover;
    let id = ctx.identity()?;
    let meta = RecordMeta {
        created_at: ctx.clock.stamp(),
        task_id: h.task.clone().or_else(|| r.task.as_ref().map(|t| t.id.clone())).unwrap_or_else(|| "none".into()),
        profile: "none".into(),
        owner: format!("continuity:{}", r.device.node),
        repository_id: id.repository_id.clone(),
        worktree: id.worktree.clone(),
        branch: branch_text(h.branch.as_deref().or(r.source.branch.as_deref())).into(),
        head: head_text(h.head.as_deref().or(r.source.head.as_deref())).into(),
        working_tree: r.source.working_tree.clone(),
        // The origin's list, bounded as this checkout's records are (docs/REFERENCE.md#front-matter); the total is
        // the origin's.
        changed_files: r.source.changed.iter().take(ctx.max_list_items()).cloned().collect(),
        changed_total: Some(r.source.changed_total as usize),
        origin: crate::model::record::Origin::of_body(&h.body),
        session: "none".into(),
        continuity_record: Some(a.id.clone()),
        continuity_device: Some(r.device.node.clone()),
        continuity_created_at: Some(h.created_at.clone().unwrap_or_else(|| r.published_at.clone())),
        issue: h.issue.clone(),
        milestone: h.milestone.clone(),
    };
    let name = format!(
        "{}--continuity--{}--{}--{}.md",
        ctx.clock.compact(),
        branch_key(&meta.branch),
        head7(&meta.head),
        &a.id[..16]
    );
    let text = meta.render(&h.body).map_err(|o| o.refusal("continuity resume: the handover"))?;
    let path = create_new(&dir, || name.clone(), text.as_bytes())?;
    Ok((ctx.rel(&path), meta.task_id))
}

/// Appends the carried decisions whose titles the log lacks.
fn carry_decisions(ctx: &Ctx, a: &Whole) -> Result<usize> {
    if a.record.decisions.is_empty() {
        return Ok(0);
    }
    let path = ctx.layout.decisions();
    let _lock = Lock::acquire(&ctx.layout.locks(), decision::LOCK)?;
    seed(ctx, &path, "decisions.md", crate::assets::DECISIONS_TEMPLATE)?;
    let have: Vec<String> = decisions::parse(&decision::read_log(ctx)?).into_iter().map(|d| d.title).collect();
    let mut text = String::new();
    let mut n = 0;
    for d in a.record.decisions.iter().filter(|d| !have.contains(&d.title)) {
        text.push_str(&format!(
            "\n## {} — {}\n{}\nCarried: continuity {} from {}\n",
            ctx.clock.date(),
            d.title,
            d.text.trim_end(),
            &a.id[..12],
            a.record.device.label
        ));
        n += 1;
    }
    if n > 0 {
        append(&path, text.as_bytes())?;
    }
    Ok(n)
}

/// Re-opens the carried questions whose text the store lacks (they block here too).
fn carry_questions(ctx: &Ctx, a: &Whole, task_id: &str) -> Result<()> {
    if a.record.questions.is_empty() {
        return Ok(());
    }
    let path = ctx.layout.questions();
    let _lock = Lock::acquire(&ctx.layout.locks(), crate::ops::question::LOCK)?;
    seed(ctx, &path, "open-questions.md", crate::assets::QUESTIONS_TEMPLATE)?;
    let current = read_opt(&path)?.unwrap_or_default();
    let have: Vec<String> = questions::parse(&current)
        .into_iter()
        .filter_map(|e| match e {
            questions::Entry::Unresolved { question, .. } => Some(question),
            questions::Entry::Resolved { text, .. } => Some(questions::resolved_question(&text).to_string()),
            questions::Entry::Malformed { .. } => None,
        })
        .collect();
    let mut text = if current.is_empty() || current.ends_with('\n') { String::new() } else { "\n".into() };
    let before = text.len();
    for q in a.record.questions.iter().filter(|q| !have.contains(&q.text)) {
        text.push_str(&questions::unresolved_line(task_id, &q.text, &q.opened));
        text.push('\n');
    }
    if text.len() > before {
        append(&path, text.as_bytes())?;
    }
    Ok(())
}
