//! The resume plan (docs/REFERENCE.md#plans): what `continuity plan` shows and `continuity
//! resume` carries out, from the store and this checkout's facts.
//!
//! Owns: reading this checkout's side of every source relation, once per plan.
//! Must not touch: the store or `continuity.json` (a plan writes nothing).

use std::cell::RefCell;

use crate::continuity::local::LocalState;
pub use crate::continuity::plan::ResumePlan;
use crate::continuity::plan::{self, PlanInput, PlanRecord, SourceFacts, SourceRelation};
use crate::continuity::readmodel::Summary;
use crate::continuity::record::Record;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::labels::{branch_text, Divergence, WorkingTree};
use crate::oid::Oid;
use crate::services::continuity::loaded::{self, Loaded, Setup};
use crate::services::continuity::views::resumable_ids;
use crate::services::continuity::{load_local, REF};
use crate::services::rewrite;

/// This checkout's side of every source relation, read once per plan: a failure to read git or
/// the working tree is an error, never an answer.
struct Local {
    branch: Option<String>,
    head: Option<Oid>,
    dirty: bool,
    fingerprint: Option<String>,
}

fn local_facts(ctx: &Ctx) -> Result<Local> {
    let id = ctx.identity()?;
    let (branch, head) = (id.branch.clone(), id.head.clone());
    let dirty = ctx.working_tree()? == WorkingTree::Dirty;
    let fingerprint = if dirty { crate::services::continuity::fingerprint(ctx)? } else { None };
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
        local_head: local.head.as_ref().map(Oid::to_string),
        local_dirty: local.dirty,
        local_fingerprint: local.fingerprint.clone(),
    })
}

/// Computes the plan over a loaded store. The plan chooses among the records it can choose —
/// the offers, or the records matching `prefix` — from what the read model keeps of them, and
/// reads whole (from its blob) only the record it judges; every other record is known to it
/// through the lineage.
pub fn plan_over(ctx: &Ctx, s: &Setup, store: &Loaded, local: &LocalState, prefix: Option<&str>) -> Result<ResumePlan> {
    let lineage = store.lineage();
    let own = s.own_node();
    let offers = resumable_ids(s, store, &lineage, local);
    let mut wanted: Vec<String> = match prefix {
        Some(p) => lineage.ids_with_prefix(p),
        None => Vec::new(),
    };
    wanted.extend(offers.iter().cloned());
    wanted.sort();
    wanted.dedup();
    let known: Vec<(String, loaded::Row, Summary)> =
        wanted.into_iter().filter_map(|id| store.get(&id).map(|r| (id, r, store.summary(r)))).collect();
    let records: Vec<PlanRecord<'_>> = known
        .iter()
        .map(|(id, row, summary)| PlanRecord {
            id,
            summary,
            record: None,
            trust: row.trust,
            this_device: Some(summary.device.node.as_str()) == own.as_deref(),
        })
        .collect();
    let branch = ctx.identity()?.branch.clone();
    let position = local.branches.get(branch_text(branch.as_deref())).map(|p| p.record.clone());
    let default_remote = crate::services::remotes::chosen_remote(ctx)?;
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
    // The one record read whole, kept for the cited files' check.
    let judged: RefCell<Option<Record>> = RefCell::new(None);
    let whole = |p: &PlanRecord<'_>| {
        let read = store.get(p.id).map(|r| loaded::full(ctx, store, r)).transpose();
        match read {
            Ok(r) => {
                judged.borrow_mut().clone_from(&r);
                r
            }
            Err(e) => {
                failed.borrow_mut().get_or_insert(e);
                None
            }
        }
    };
    let plan = plan::plan(&input, &whole, &|_, r| {
        source_facts(ctx, &here, r).unwrap_or_else(|e| {
            failed.borrow_mut().get_or_insert(e);
            SourceFacts::default()
        })
    });
    match failed.into_inner() {
        Some(e) => Err(e),
        None => {
            let mut plan = plan;
            let chosen = plan.record.as_ref().filter(|_| plan.withheld.is_none()).map(|r| r.id.clone());
            if let Some(r) = judged.into_inner().filter(|_| chosen.is_some()) {
                if let Some(n) = files_differ(ctx, &r.handover.citations)? {
                    plan.warnings.push(n);
                }
            }
            Ok(plan)
        }
    }
}

/// The `files_differ` warning (issue 43): the cited files whose blob here — HEAD's, or the
/// working tree's when it changes them — is not the one the record cites; `None` when every
/// one matches (or the record cites nothing).
fn files_differ(ctx: &Ctx, cited: &[String]) -> Result<Option<plan::Notice>> {
    let cited: Vec<_> = cited.iter().filter_map(|c| crate::model::citations::Citation::parse(c)).collect();
    if cited.is_empty() {
        return Ok(None);
    }
    let head = ctx.git.head()?;
    let dirty = ctx.changed_files()?;
    let mut differ = Vec::new();
    for c in &cited {
        let here = ctx.git.blob_at(head, &c.path)?.map(|b| b.to_string());
        if here != c.blob || dirty.contains(&c.path) {
            differ.push(format!("`{}`", c.path));
        }
    }
    Ok((!differ.is_empty()).then(|| {
        plan::Notice::new(
            plan::PlanCode::FilesDiffer,
            format!(
                "{} of the {} file(s) the handover cites differ here: {}",
                differ.len(),
                cited.len(),
                differ.join(", ")
            ),
        )
    }))
}

/// `continuity plan [--record]`: writes nothing.
pub fn plan(ctx: &Ctx, prefix: Option<&str>) -> Result<ResumePlan> {
    let s = loaded::setup(ctx)?;
    let store = loaded::load(ctx, &s, REF)?;
    plan_over(ctx, &s, &store, &load_local(ctx)?, prefix)
}
