//! `continuity resume` (docs/REFERENCE.md#plans).
//! Must not touch: the network, the store ref, another command or a query, the terminal.

use serde::Serialize;

use crate::continuity::local::{Position, Via};
pub use crate::continuity::plan::ResumePlan;
use crate::continuity::record::Record;
use crate::continuity::view::withheld;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::labels::{branch_text, head_text, Anchor};
use crate::model::record::{branch_key, RecordMeta};
use crate::oid::RecordId;
use crate::services::continuity::loaded::{self};
use crate::services::continuity::plan::plan_over;
use crate::services::continuity::{load_local, save_local, REF};
use crate::services::logs::seed;
use crate::store::atomic::{append, create_new, read_opt, Lock};
use crate::store::{decisions, questions};
use crate::text::short;

/// `continuity resume`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
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
    /// Questions re-opened in the question store (they block here as at the origin).
    pub questions_carried: usize,
    /// This checkout's new position.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<Position>,
}

/// `continuity resume [--record]`.
pub fn resume(ctx: &Ctx, prefix: Option<&str>) -> Result<ResumeReport> {
    let s = loaded::setup(ctx)?;
    let store = loaded::load(ctx, &s, REF)?;
    let _lock = crate::services::continuity::writer_lock(ctx)?;
    let mut local = load_local(ctx)?;
    let mut plan = plan_over(ctx, &s, &store, &local, prefix)?;
    let chosen = plan.record.as_ref().and_then(|v| store.get(&v.id));
    let (true, Some(row)) = (plan.status.is_resumable(), chosen) else {
        return Ok(ResumeReport {
            resumed: false,
            plan,
            handover: None,
            decisions_carried: 0,
            questions_carried: 0,
            position: None,
        });
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
    let mut questions_carried = carry_questions(ctx, &a.record, &task_id)?;
    let line = a.record.line.clone().unwrap_or_else(|| a.id.to_string());
    // On a diverged line, the next publication ends the other heads; their unresolved questions
    // are carried now (a withheld head's are not read: its text is not quoted here).
    let lineage = store.lineage();
    let ends: Vec<String> = lineage
        .line(&line)
        .filter(|_| lineage.is_head(&a.id))
        .map(|l| l.heads.iter().map(|h| h.to_string()).filter(|h| *h != a.id.as_str()).collect())
        .unwrap_or_default();
    for other in &ends {
        if let Some(o) = loaded::load_one(ctx, &s, REF, other)?.filter(|o| withheld(o.trust).is_none()) {
            questions_carried += carry_questions(ctx, &o.record, &task_id)?;
        }
    }
    let pos = Position { line, record: a.id.to_string(), via: Via::Resumed, at: ctx.clock.stamp(), ends };
    local.branches.insert(ctx.identity()?.branch_text().to_string(), pos.clone());
    crate::services::continuity::views::refresh_offers(&s, &store, &lineage, &mut local);
    save_local(ctx, &local)?;
    plan.actions.retain(|x| !x.starts_with("git majordomus continuity resume"));
    Ok(ResumeReport {
        resumed: true,
        plan,
        handover: Some(handover),
        decisions_carried: carried,
        questions_carried,
        position: Some(pos),
    })
}

/// A record read whole from its blob, to be resumed.
struct Whole {
    id: RecordId,
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
        // What the origin cited, with the blobs it had there (issue 43): labelled here against
        // this checkout's git as any record's are.
        citations: h.citations.clone(),
        citations_total: None,
        origin: crate::model::record::Origin::of_body(&h.body),
        session: "none".into(),
        continuity_record: Some(a.id.to_string()),
        continuity_device: Some(r.device.node.clone()),
        // Its origin, wherever it is shown (issue 39): the label the record carried and the
        // key id of the key that signed it (the node is that key's, admission checked).
        continuity_label: Some(r.device.label.clone()),
        continuity_key_id: Some(crate::continuity::view::key_id(&r.device.node)),
        continuity_created_at: Some(h.created_at.clone().unwrap_or_else(|| r.published_at.clone())),
        issue: h.issue.clone(),
        milestone: h.milestone.clone(),
    };
    let name = format!(
        "{}--continuity--{}--{}--{}.md",
        ctx.clock.compact(),
        branch_key(&meta.branch),
        short(&meta.head),
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
    let _lock = Lock::acquire(&ctx.layout.locks(), crate::services::logs::DECISIONS_LOCK)?;
    seed(ctx, &path, "decisions.md", crate::assets::DECISIONS_TEMPLATE)?;
    let have: Vec<String> =
        decisions::parse(&crate::services::logs::read_decisions(ctx)?).into_iter().map(|d| d.title).collect();
    let mut text = String::new();
    let mut n = 0;
    let mut written: Vec<String> = Vec::new();
    // Through the log's typed writer: each carried decision is one entry whatever its title
    // and text held (the title folded to one line, a text line that would start an entry or a
    // comment escaped), compared with the log under the title it is written with.
    for d in &a.record.decisions {
        let title = decisions::carried_title(&d.title);
        if have.contains(&title) || written.contains(&title) {
            continue;
        }
        let carried = format!("continuity {} from {}", &a.id[..12], a.record.device.label);
        text.push_str(&decisions::render_carried(&ctx.clock.date(), &title, &d.text, &carried));
        written.push(title);
        n += 1;
    }
    if n > 0 {
        append(&path, text.as_bytes())?;
    }
    Ok(n)
}

/// Re-opens the carried questions whose text the store lacks (they block here too); returns
/// how many. Each is written through the store's writer as one `- [unresolved]` entry whatever
/// its text held (a line end is folded to a space); a task id that is not one word is written
/// `none` and an opening date that is not `YYYY-MM-DD` as today's, so that the entry still
/// parses as unresolved and blocks: a blocker is never laundered into a malformed line.
pub(super) fn carry_questions(ctx: &Ctx, record: &Record, task_id: &str) -> Result<usize> {
    if record.questions.is_empty() {
        return Ok(0);
    }
    let path = ctx.layout.questions();
    let _lock = Lock::acquire(&ctx.layout.locks(), crate::services::logs::QUESTIONS_LOCK)?;
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
    let today = ctx.clock.date();
    let mut written: Vec<String> = Vec::new();
    for q in &record.questions {
        let question = decisions::one_line(&q.text);
        if question.is_empty() || have.contains(&question) || written.contains(&question) {
            continue;
        }
        let opened = if questions::is_date(&q.opened) { q.opened.as_str() } else { today.as_str() };
        text.push_str(&questions::unresolved_line(task_id, &question, opened));
        text.push('\n');
        written.push(question);
    }
    if text.len() > before {
        append(&path, text.as_bytes())?;
    }
    Ok(written.len())
}
