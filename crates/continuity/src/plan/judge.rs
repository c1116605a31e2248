//! The judgement of the chosen record (docs/REFERENCE.md#plans "Judgement"): what it restores,
//! then trust, lineage, activity, the source state and the task's intent, each adding
//! blockers, warnings and actions; the heaviest blocker sets the status.
//! Must not touch: files, git, the clock (the caller passes `now` and the source facts).

use super::*;

/// How much a blocker weighs: the status it forces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Weight {
    SourceUpdate,
    /// The record's work is already in this branch: `nothing_to_resume`.
    Landed,
    Conflict,
}

/// Judges the chosen record (docs/REFERENCE.md#plans "Judgement"), in steps: what the record
/// restores, then [`Judgement::trust`], [`Judgement::lineage`], [`Judgement::activity`],
/// [`Judgement::source`] and the task's intent, each adding blockers, warnings and actions; the
/// heaviest blocker sets the status ([`Judgement::into_plan`]).
pub fn judge(input: &PlanInput<'_>, chosen: &Chosen, p: Option<&PlanRecord<'_>>, facts: &SourceFacts) -> ResumePlan {
    let Some(p) = p else {
        let mut plan = ResumePlan::empty(PlanStatus::NothingToResume);
        plan.blockers
            .push(Notice::new(PlanCode::RecordUnknown, format!("no admitted record has the id `{}`", chosen.id)));
        plan.actions.push(SYNC_ACTION.into());
        return plan;
    };
    let r = p.whole();
    let mut plan = ResumePlan::empty(PlanStatus::Ready);
    plan.record = Some(input.view(p));
    if let Some(trust) = crate::view::withheld(p.trust) {
        return withheld_plan(plan, trust);
    }
    if !r.has_handover() {
        // A record that only ends its parent (`continuity supersede`): nothing to resume.
        plan.status = PlanStatus::NothingToResume;
        let parent = r.parent.as_deref().map(short_id).unwrap_or("its parent");
        plan.blockers.push(Notice::new(
            PlanCode::EndsOnly,
            format!(
                "record {} carries no handover: it only ends {parent} (superseded); nothing to resume",
                short_id(p.id)
            ),
        ));
        return plan;
    }
    let landed = facts.landed.as_ref().filter(|_| facts.relation == SourceRelation::BranchDiffers);
    if let Some(v) = plan.record.as_mut() {
        v.landed = landed.cloned();
    }
    plan.task = r.task.as_ref().map(|t| PlanTask {
        id: t.id.clone(),
        title: t.title.clone(),
        profile: t.profile.clone(),
        scope: t.scope.clone(),
    });
    plan.milestone = r.handover.milestone.clone();
    plan.decisions = r.decisions.iter().map(|d| d.title.clone()).collect();
    plan.objective = Some(section(&r.handover.body, "Objective"));
    plan.current_state = Some(section(&r.handover.body, "Current State"));
    plan.next_action = Some(section(&r.handover.body, "Next Action"));
    plan.restores = RESTORES.iter().map(|s| s.to_string()).collect();
    plan.recomputes = RECOMPUTES.iter().map(|s| s.to_string()).collect();

    let mut j = Judgement { id12: short_id(p.id), label: r.device.label.as_str(), ..Judgement::default() };
    j.trust(p.trust, &crate::view::key_id(&r.device.node));
    plan.lineage = j.lineage(input, chosen, p);
    j.activity(input, p);
    plan.source = Some(j.source(input.remote(), r, facts, landed));
    // Intent (not for work that already landed here).
    if let Some(t) = r.task.as_ref().filter(|_| landed.is_none()) {
        j.actions.push(start_command(&t.title, &t.scope, t.profile.as_deref()));
    }
    j.into_plan(plan)
}

/// The plan of a record signed by an `untrusted` or `revoked` key (issue 39, docs/REFERENCE.md#plans): refused,
/// naming the record by id, device label, key id and verdict; nothing of its text (task,
/// decisions, sections, source) and no command built from it. The one action says how to
/// trust the key, which names nothing the record holds.
pub(super) fn withheld_plan(mut plan: ResumePlan, trust: Trust) -> ResumePlan {
    let Some(v) = plan.record.as_ref() else { return plan };
    let (label, key, id12) = (v.device.label.clone(), v.key_id.clone(), short_id(&v.id).to_string());
    plan.status = PlanStatus::Refused;
    plan.withheld = Some(trust);
    plan.objective = None;
    plan.current_state = None;
    plan.next_action = None;
    plan.blockers.push(Notice::new(
        PlanCode::OriginUntrusted,
        format!(
            "record {id12} is signed by key {key} (device label {label}), which is {trust} here: its content is withheld, not quoted; add its public key to `trust.allow` of the mesh declaration under .ai/repo/mesh/ to resume its records"
        ),
    ));
    plan
}

/// What the steps of [`judge`] found so far about the chosen record.
#[derive(Debug, Default)]
pub(super) struct Judgement<'a> {
    /// The record's id as shown.
    id12: &'a str,
    /// Its device's label.
    pub(super) label: &'a str,
    pub(super) blockers: Vec<(Weight, Notice)>,
    pub(super) warnings: Vec<Notice>,
    pub(super) actions: Vec<String>,
}

impl<'a> Judgement<'a> {
    pub(super) fn block(&mut self, weight: Weight, notice: Notice) {
        self.blockers.push((weight, notice));
    }

    pub(super) fn warn(&mut self, notice: Notice) {
        self.warnings.push(notice);
    }

    /// A blocker when the plan picked the record itself, a warning when the user named it.
    pub(super) fn block_unless_named(&mut self, chosen: &Chosen, weight: Weight, notice: Notice) {
        if chosen.explicit {
            self.warn(notice);
        } else {
            self.block(weight, notice);
        }
    }

    /// Trust: no mesh declaration is a warning naming the signer's key id. (An untrusted or
    /// revoked signer never reaches the judgement: its plan is [`withheld_plan`].)
    pub(super) fn trust(&mut self, trust: Trust, key_id: &str) {
        let label = self.label;
        if trust == Trust::Undeclared {
            self.warn(Notice::new(
                PlanCode::OriginUndeclared,
                format!("no mesh declaration under .ai/repo/mesh/ says which devices to trust; {label}'s signature (key {key_id}) is valid but its key is not checked against a trust list"),
            ));
        }
    }

    /// Lineage: a diverged line, a parent this store lacks, and the record against this
    /// checkout's position (its relation, when the position is in the store).
    pub(super) fn lineage(&mut self, input: &PlanInput<'_>, chosen: &Chosen, p: &PlanRecord<'_>) -> Option<Relation> {
        let id12 = self.id12;
        let line = input.lineage.line_of(p.id).unwrap_or(p.id).to_string();
        if let Some(summary) = input.lineage.line(&line).filter(|s| s.state == LineState::Diverged) {
            let heads: Vec<&str> = summary.heads.iter().map(|h| short_id(h)).collect();
            let what = format!(
                "line {} has {} heads ({}): the same work was continued on more than one device",
                short_id(&line),
                heads.len(),
                heads.join(", ")
            );
            let notice = if chosen.explicit {
                Notice::new(
                    PlanCode::LineDiverged,
                    format!("{what}; resuming {id12} and publishing ends the others (their open questions are carried); `continuity supersede <id>` ends one without resuming it"),
                )
            } else {
                Notice::new(
                    PlanCode::LineDiverged,
                    format!("{what}; a plan never picks one by time: name it with `--record <id>`"),
                )
            };
            self.block_unless_named(chosen, Weight::Conflict, notice);
        }
        if let Some(parent) = p.whole().parent.as_deref().filter(|pa| !input.lineage.contains(pa)) {
            self.warn(Notice::new(
                PlanCode::LineageIncomplete,
                format!("{id12} continues {}, which this store does not hold; a sync may fetch it", short_id(parent)),
            ));
        }
        let pos = input.position.filter(|pos| input.lineage.contains(pos))?;
        let rel = input.lineage.relation(pos, p.id);
        match rel {
            Relation::Equal => {
                self.warn(Notice::new(PlanCode::AlreadyResumed, format!("this checkout already continues {id12}")))
            }
            Relation::Older => self.warn(Notice::new(
                PlanCode::AlreadyResumed,
                format!("this checkout's position {} already continues {id12}", short_id(pos)),
            )),
            Relation::Diverged => {
                let n = Notice::new(PlanCode::WouldDiverge, format!("this checkout continued line {} at {}, which {id12} does not continue: resuming it forks the line", short_id(&line), short_id(pos)));
                self.block_unless_named(chosen, Weight::Conflict, n);
            }
            Relation::Newer | Relation::Independent => {}
        }
        Some(rel)
    }

    /// Activity (advisory): another device's episode was still open when it published, recently.
    pub(super) fn activity(&mut self, input: &PlanInput<'_>, p: &PlanRecord<'_>) {
        let r = p.whole();
        if r.episode != "open" || p.this_device {
            return;
        }
        let Some(at) = published_at(r) else { return };
        if (input.now - at).num_minutes() < ACTIVE_MINUTES {
            let age = age_minutes(r, input.now).map_or_else(|| "moments".to_string(), |m| format!("{m} minute(s)"));
            let (label, id12) = (self.label, self.id12);
            self.warn(Notice::new(
                PlanCode::OriginMayBeActive,
                format!("{label}'s episode was still open when {id12} was published {age} ago; the work may still be going on there (advisory: nothing is locked)"),
            ));
        }
    }

    /// Source: the record's head and branch against this checkout's (pull, fetch or switch
    /// first; a diverged head is a conflict; landed work is nothing to resume), then
    /// [`Judgement::uncommitted`].
    pub(super) fn source(
        &mut self,
        remote: &str,
        r: &Record,
        facts: &SourceFacts,
        landed: Option<&crate::model::labels::Landed>,
    ) -> SourceView {
        let expected_branch = r.source.branch.clone();
        let expected_head = r.source.head.clone();
        let relation = if expected_head.is_none() || facts.local_head.is_none() {
            SourceRelation::Unknown
        } else {
            facts.relation
        };
        let h12 = |h: &Option<String>| h.as_deref().map_or("-", short_id).to_string();
        let (eh, lh) = (h12(&expected_head), h12(&facts.local_head));
        let branch_for_pull = expected_branch.as_deref().or(facts.local_branch.as_deref());
        match relation {
            SourceRelation::Exact => {}
            SourceRelation::LocalAhead => self.warnings.push(Notice::new(
                PlanCode::LocalAhead,
                match &facts.rewrite {
                    None => format!("this checkout's head {lh} has commits after the record's head {eh}"),
                    Some(rw) => format!(
                        "this checkout's head {lh} has commits after {}, which holds the record's head {eh} rewritten ({})",
                        crate::text::short(&rw.to),
                        rw.proof.kind
                    ),
                },
            )),
            SourceRelation::LocalBehind => {
                self.blockers.push((Weight::SourceUpdate, Notice::new(PlanCode::LocalBehind, format!("the record's head {eh} is ahead of this checkout's head {lh}; bring the branch up to date first"))));
                self.actions.push(match branch_for_pull {
                    Some(b) => format!("git pull --ff-only {} {}", shell_word(remote), shell_word(b)),
                    None => format!("git pull --ff-only {}", shell_word(remote)),
                });
            }
            SourceRelation::Diverged => self.blockers.push((
                Weight::Conflict,
                Notice::new(
                    PlanCode::SourceDiverged,
                    format!(
                        "the record's head {eh} and this checkout's head {lh} have diverged; reconcile them with git first"
                    ),
                ),
            )),
            SourceRelation::HeadMissing => {
                self.blockers.push((
                    Weight::SourceUpdate,
                    Notice::new(
                        PlanCode::HeadMissing,
                        format!("the record's head {eh} is not a commit in this clone: it was not pushed, or not fetched"),
                    ),
                ));
                self.actions.push(format!("git fetch {}", shell_word(remote)));
            }
            // The work landed here (a squash or rebase merge): nothing to resume, and no `git switch`
            // to go and resume it.
            SourceRelation::BranchDiffers if landed.is_some() => {
                if let Some(l) = landed {
                    self.blockers.push((
                        Weight::Landed,
                        Notice::new(PlanCode::Landed, format!("this record's work {}: nothing to resume", l.describe())),
                    ));
                }
            }
            SourceRelation::BranchDiffers => {
                let theirs = branch_text(expected_branch.as_deref());
                let ours = branch_text(facts.local_branch.as_deref());
                self.blockers.push((
                    Weight::SourceUpdate,
                    Notice::new(
                        PlanCode::BranchDiffers,
                        format!("the record was published on {theirs}; this checkout is on {ours}"),
                    ),
                ));
                if let Some(b) = expected_branch.as_deref() {
                    self.actions.push(format!("git switch {}", shell_word(b)));
                }
            }
            SourceRelation::Unknown => self.warnings.push(Notice::new(
                PlanCode::SourceUnknown,
                "the record's head or this checkout's head is unknown, so the source cannot be compared".into(),
            )),
        }
        let (origin_dirty, same_uncommitted_work) = self.uncommitted(r, facts);
        SourceView {
            expected_branch,
            expected_head,
            local_branch: facts.local_branch.clone(),
            local_head: facts.local_head.clone(),
            relation,
            rewrite: facts
                .rewrite
                .clone()
                .filter(|_| matches!(relation, SourceRelation::Exact | SourceRelation::LocalAhead)),
            origin_dirty,
            origin_changed: r.source.changed.clone(),
            origin_changed_total: r.source.changed_total,
            local_dirty: facts.local_dirty,
            same_uncommitted_work,
        }
    }

    /// Uncommitted work, which does not travel: the origin's (unless this checkout holds the same,
    /// by fingerprint) and this checkout's. Whether the origin was dirty, and whether both hold
    /// the same uncommitted work (when both are dirty).
    pub(super) fn uncommitted(&mut self, r: &Record, facts: &SourceFacts) -> (bool, Option<bool>) {
        let origin_dirty = r.source.working_tree == "dirty";
        let same = (origin_dirty && facts.local_dirty)
            .then(|| r.source.fingerprint.is_some() && r.source.fingerprint == facts.local_fingerprint);
        if origin_dirty && same != Some(true) {
            self.warn(Notice::new(
                PlanCode::SourceIncomplete,
                format!(
                    "the origin had {} uncommitted file(s) that are not in its commit; they do not travel",
                    r.source.changed_total
                ),
            ));
        }
        if facts.local_dirty && same != Some(true) {
            self.warn(Notice::new(
                PlanCode::LocalDirty,
                "this checkout has uncommitted changes that are not the origin's".into(),
            ));
        }
        (origin_dirty, same)
    }

    /// The plan: the heaviest blocker sets the status; a resumable plan's first action is the
    /// resume itself; actions are listed once.
    pub(super) fn into_plan(self, mut plan: ResumePlan) -> ResumePlan {
        let Judgement { id12, blockers, warnings, mut actions, .. } = self;
        plan.status = match blockers.iter().map(|(w, _)| *w).max() {
            Some(Weight::Conflict) => PlanStatus::Conflict,
            Some(Weight::Landed) => PlanStatus::NothingToResume,
            Some(Weight::SourceUpdate) => PlanStatus::RequiresSourceUpdate,
            None if warnings.is_empty() => PlanStatus::Ready,
            None => PlanStatus::ReadyWithWarnings,
        };
        if plan.status.is_resumable() {
            actions.insert(0, format!("git majordomus continuity resume --record {id12}"));
        }
        let mut seen = std::collections::BTreeSet::new();
        actions.retain(|a| seen.insert(a.clone()));
        plan.blockers = blockers.into_iter().map(|(_, n)| n).collect();
        plan.warnings = warnings;
        plan.actions = actions;
        plan
    }
}

/// The whole plan: [`choose`] (from what the read model keeps), then read the chosen record
/// whole (`whole`, unless the caller has: the one record a plan reads whole), ask `source`
/// about it, then [`judge`]. A record `whole` cannot give is judged as one the store lacks.
pub fn plan(
    input: &PlanInput<'_>,
    whole: &dyn Fn(&PlanRecord<'_>) -> Option<Record>,
    source: &dyn Fn(&str, &Record) -> SourceFacts,
) -> ResumePlan {
    match choose(input) {
        Choice::Settled(plan) => *plan,
        Choice::Record(chosen) => {
            let found = input.find(&chosen.id);
            let read = found.filter(|p| p.record.is_none()).and_then(whole);
            match found.map(|p| PlanRecord { record: p.record.or(read.as_ref()), ..*p }) {
                Some(p) if p.record.is_some() => judge(input, &chosen, Some(&p), &source(p.id, p.whole())),
                _ => judge(
                    input,
                    &chosen,
                    None,
                    &SourceFacts { relation: SourceRelation::Unknown, ..SourceFacts::default() },
                ),
            }
        }
    }
}
