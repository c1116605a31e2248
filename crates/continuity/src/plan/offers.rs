//! The resumable offers (docs/REFERENCE.md#sync): the heads of other devices' lines this
//! checkout may resume, in display order.
//! Must not touch: files, git, trust (the caller passes the admitted records).

use super::*;

/// What the offers need of one record: its id, its device's node and its published time.
#[derive(Debug, Clone)]
pub struct Candidate<'a> {
    /// The record id.
    pub id: String,
    /// The publishing device's node id.
    pub node: &'a str,
    /// `published_at` as Unix seconds, when readable.
    pub published: Option<i64>,
    /// `published_at` as written (the tie-break of equal or unreadable times).
    pub published_at: String,
}

impl<'a> Candidate<'a> {
    /// The candidate of what the read model keeps of a record (its times compared as
    /// integers, as [`Candidate::of`] reads them).
    pub fn of_summary(s: &'a Summary) -> Candidate<'a> {
        Candidate {
            id: s.id.clone(),
            node: &s.device.node,
            published: s.published,
            published_at: s.published_at.clone(),
        }
    }

    /// The candidate of a record.
    pub fn of(id: &'a str, r: &'a Record) -> Candidate<'a> {
        Candidate {
            id: id.to_string(),
            node: &r.device.node,
            published: published_at(r).map(|t| t.timestamp()),
            published_at: r.published_at.clone(),
        }
    }
}

/// The resumable records (docs/REFERENCE.md#sync): heads whose device is not this one (`this_node`) and that
/// no branch position equals or descends from; newest `published_at` first, then id.
pub fn resumable<'a, I>(records: I, lineage: &Lineage, this_node: Option<&str>, positions: &[&str]) -> Vec<String>
where
    I: IntoIterator<Item = (&'a str, &'a Record)>,
{
    resumable_of(records.into_iter().map(|(id, r)| Candidate::of(id, r)), lineage, this_node, positions)
}

/// [`resumable`] over candidates (what the read model keeps; times are compared as integers).
pub fn resumable_of<'a, I>(records: I, lineage: &Lineage, this_node: Option<&str>, positions: &[&str]) -> Vec<String>
where
    I: IntoIterator<Item = Candidate<'a>>,
{
    let mut out: Vec<Candidate<'a>> = records
        .into_iter()
        .filter(|c| lineage.is_head(&c.id) && Some(c.node) != this_node)
        .filter(|c| {
            !positions.iter().any(|pos| matches!(lineage.relation(&c.id, pos), Relation::Equal | Relation::Newer))
        })
        .collect();
    out.sort_by(candidate_order);
    out.dedup_by(|a, b| a.id == b.id);
    out.into_iter().map(|c| c.id).collect()
}

/// The `continuity.json` offer of a record.
pub fn offer_of(id: &str, r: &Record) -> Offer {
    offer_of_summary(&Summary::of(id, "", "", r))
}

/// The `continuity.json` offer of a record, from its read-model summary.
pub fn offer_of_summary(s: &Summary) -> Offer {
    Offer {
        record: s.id.clone(),
        device: s.device.label.clone(),
        branch: s.branch.clone(),
        published_at: s.published_at.clone(),
        task: s.task.clone(),
        issue: s.issue.clone(),
    }
}

/// Display order: newest `published_at` first (unreadable times last), then id.
pub(super) fn display_order(a: &PlanRecord<'_>, b: &PlanRecord<'_>) -> Ordering {
    candidate_order(&Candidate::of_summary(a.summary), &Candidate::of_summary(b.summary))
}

pub(super) fn candidate_order(a: &Candidate<'_>, b: &Candidate<'_>) -> Ordering {
    b.published.cmp(&a.published).then_with(|| b.published_at.cmp(&a.published_at)).then_with(|| a.id.cmp(&b.id))
}
