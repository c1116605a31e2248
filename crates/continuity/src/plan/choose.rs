//! Which record a plan is about: the one a prefix names, else the newest resumable head for
//! this checkout's branch (docs/REFERENCE.md#plans "Choice").
//! Must not touch: files, git, the clock; the judgement (`judge.rs`).

use super::*;

/// The record a plan judges, and whether it was named with `--record`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    /// Its id.
    pub id: String,
    /// Named with `--record` (explicit) or picked from the offers (implicit).
    pub explicit: bool,
}

/// The outcome of the choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// One record to judge.
    Record(Chosen),
    /// The plan is settled without a record: `nothing_to_resume` or `choose_record`.
    Settled(Box<ResumePlan>),
}

/// Chooses the record (docs/REFERENCE.md#plans "Choice").
pub fn choose(input: &PlanInput<'_>) -> Choice {
    match input.record_prefix {
        Some(prefix) => choose_explicit(input, prefix),
        None => choose_implicit(input),
    }
}

pub(super) fn choose_explicit(input: &PlanInput<'_>, prefix: &str) -> Choice {
    let mut matches: Vec<&PlanRecord<'_>> =
        input.records.iter().filter(|p| p.trust != Trust::Revoked && p.id.starts_with(prefix)).collect();
    match matches.len() {
        1 => Choice::Record(Chosen { id: matches[0].id.to_string(), explicit: true }),
        0 => {
            let mut plan = ResumePlan::empty(PlanStatus::NothingToResume);
            let mut refused: Vec<&RefusedFile> = input.refused.iter().filter(|f| f.path.contains(prefix)).collect();
            refused.sort_by(|a, b| a.path.cmp(&b.path));
            plan.blockers.push(match refused.first() {
                Some(f) => Notice::new(
                    f.code,
                    format!("the record matching `{prefix}` was refused: {}: {}", f.path, f.message),
                ),
                None if prefix.is_empty() => {
                    Notice::new(PlanCode::RecordUnknown, "this store holds no admitted record".into())
                }
                None => Notice::new(
                    PlanCode::RecordUnknown,
                    format!("no admitted record has an id starting with `{prefix}`"),
                ),
            });
            plan.actions.push(SYNC_ACTION.into());
            Choice::Settled(Box::new(plan))
        }
        _ => {
            matches.sort_by(|a, b| display_order(a, b));
            let mut plan = ResumePlan::empty(PlanStatus::ChooseRecord);
            plan.candidates = matches.iter().map(|p| input.view(p)).collect();
            Choice::Settled(Box::new(plan))
        }
    }
}

pub(super) fn choose_implicit(input: &PlanInput<'_>) -> Choice {
    let offered: Vec<&PlanRecord<'_>> = input.offers.iter().filter_map(|id| input.find(id)).collect();
    let on_branch: Vec<&PlanRecord<'_>> =
        offered.iter().copied().filter(|p| p.summary.branch.as_deref() == input.branch).collect();
    let mut pool = if on_branch.is_empty() { offered } else { on_branch };
    pool.sort_by(|a, b| display_order(a, b));
    pool.dedup_by(|a, b| a.id == b.id);
    match pool.len() {
        1 => Choice::Record(Chosen { id: pool[0].id.to_string(), explicit: false }),
        0 => {
            let mut plan = ResumePlan::empty(PlanStatus::NothingToResume);
            match input.last_sync {
                Some(s) => plan.warnings.push(Notice::new(
                    PlanCode::NothingPublished,
                    format!(
                        "no other device has published a record to resume here (last sync with {} at {}: {})",
                        s.remote, s.at, s.outcome
                    ),
                )),
                None => {
                    plan.warnings.push(Notice::new(
                        PlanCode::NothingPublished,
                        "no other device has published a record to resume here; this checkout has never synced".into(),
                    ));
                    plan.actions.push(SYNC_ACTION.into());
                }
            }
            Choice::Settled(Box::new(plan))
        }
        n => {
            let mut plan = ResumePlan::empty(PlanStatus::ChooseRecord);
            plan.candidates = pool.iter().map(|p| input.view(p)).collect();
            plan.blockers.push(Notice::new(
                PlanCode::SeveralResumable,
                format!("{n} records from other devices can be resumed (separate lines are a choice, not a conflict); name one with `git majordomus continuity plan --record <id>`"),
            ));
            Choice::Settled(Box::new(plan))
        }
    }
}
