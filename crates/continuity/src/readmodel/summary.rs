//! What the read model keeps of one store file: a record's [`Summary`] and its [`Compact`]
//! form, any other file's verdict ([`Other`]), and the [`Entry`] that is either.
//! Must not touch: files, git, trust.

use super::*;

/// What the read model keeps of one admitted-in-shape record (its intrinsic checks passed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The record id, 64 hex.
    pub id: String,
    /// The blob it was read from, 40 hex (bodies are read from it when shown).
    pub blob: String,
    /// The `line` field (absent on the first record of a line).
    pub line: Option<String>,
    /// The `parent` field.
    pub parent: Option<String>,
    /// The signer's raw public key, 64 hex.
    pub key: String,
    /// The record's repository identity.
    pub repository: String,
    /// The publishing device.
    pub device: Device,
    /// The episode open at publish.
    pub session: Option<String>,
    /// `published_at` as written.
    pub published_at: String,
    /// `published_at` as Unix seconds, when readable (sorting never parses text).
    pub published: Option<i64>,
    /// The origin's branch.
    pub branch: Option<String>,
    /// The origin's head.
    pub head: Option<String>,
    /// `clean` or `dirty`.
    pub working_tree: String,
    /// Paths uncommitted at the origin.
    pub changed_total: u64,
    /// The task's title.
    pub task: Option<String>,
    /// The issue carried along the line.
    pub issue: Option<String>,
    /// The first line of the handover's `# Objective` (`""` when absent).
    pub objective: String,
    /// v2: the other heads it ends besides its parent.
    pub ends: Vec<String>,
    /// v2: it carries no handover (it only ends its parent).
    pub terminal: bool,
}

impl Summary {
    /// The summary of record `id` read from `blob`, signed by `key` (64 hex).
    pub fn of(id: &str, blob: &str, key: &str, r: &Record) -> Summary {
        Summary::of_owned(id.to_string(), blob, key.to_string(), r.clone())
    }

    /// [`Summary::of`] a record no longer needed: its strings are moved, not copied (a cold
    /// build summarises every record of the store).
    pub fn of_owned(id: String, blob: &str, key: String, r: Record) -> Summary {
        let published = published_at(&r).map(|t| t.timestamp());
        let objective = first_line(&section_text(&r.handover.body, "Objective").unwrap_or_default()).to_string();
        let terminal = !r.has_handover();
        Summary {
            id,
            blob: blob.to_string(),
            line: r.line,
            parent: r.parent,
            key,
            repository: r.repository,
            device: r.device,
            session: r.session,
            published_at: r.published_at,
            published,
            branch: r.source.branch,
            head: r.source.head,
            working_tree: r.source.working_tree,
            changed_total: r.source.changed_total,
            task: r.task.map(|t| t.title),
            issue: r.handover.issue,
            objective,
            ends: r.ends,
            terminal,
        }
    }

    /// The record's line: its `line` field, or its own id for the first record of a line.
    pub fn line_id(&self) -> &str {
        self.line.as_deref().unwrap_or(&self.id)
    }

    /// `published` as a time.
    pub fn published_time(&self) -> Option<DateTime<chrono::Utc>> {
        self.published.and_then(|s| DateTime::from_timestamp(s, 0))
    }
}

/// A store file that is not a record in shape: its verdict is kept with its diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Other {
    /// Store path.
    pub path: String,
    /// Its blob.
    pub blob: String,
    /// What it is.
    pub kind: OtherKind,
    /// Its diagnostic.
    pub diagnostic: Diagnostic,
}

/// The verdict on a store file that is not a record in shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtherKind {
    /// A record of a later schema (kept across syncs).
    TooNew,
    /// Refused whoever reads it.
    Refused,
    /// Not a record of the store.
    Stray,
}

/// One store file's entry, from its [`Intrinsic`] verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A record whose intrinsic checks passed, in its compact form.
    Record(Box<Compact>),
    /// Anything else.
    Other(Other),
}

/// A record as the read model stores it, encoded where the record was read (a reader thread):
/// what goes to the thread that merges is a row, a variable part and three table entries, not
/// a [`Summary`] of a dozen strings (freeing those on another thread than the one that
/// allocated them was a tenth of a cold build's CPU).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compact {
    /// Its row, with the id, the published time and the link marks set; the table indices and
    /// where its variable part sits are set when it is added ([`Fresh::add`]).
    pub(super) row: Row,
    /// The ids its `parent` and `line` name ([`FreshRow::links`]).
    pub(super) links: [RawId; 2],
    /// Its signer key, repository and device (`node\nlabel`): entries of the string tables.
    pub(super) tables: [String; 3],
    /// Its variable part.
    pub(super) var: Vec<u8>,
    /// Whether its id is 64 hex (an entry whose id is not is never added).
    pub(super) valid: bool,
}

impl Compact {
    /// The compact form of `s`.
    pub fn of(s: &Summary) -> Compact {
        let mut c = Compact {
            row: Row::default(),
            links: [RawId::default(); 2],
            tables: [s.key.clone(), s.repository.clone(), format!("{}\n{}", s.device.node, s.device.label)],
            var: encode_var(s),
            valid: false,
        };
        if let Some(id) = raw_id(&s.id) {
            c.row.set_id(&id);
            c.valid = true;
        }
        c.row.set_published(s.published);
        // The links are found when the rows are merged ([`resolve_links`]); until then a link
        // field says whether the id is at hand.
        let links = &mut c.links;
        let mut mark = |j: usize, link: &Option<String>| match link.as_deref().map(raw_id) {
            None => NO_LINK,
            Some(Some(id)) => {
                links[j] = id;
                NAMED
            }
            Some(None) => ELSEWHERE,
        };
        let (parent, line) = (mark(0, &s.parent), mark(1, &s.line));
        c.row.set_parent(parent);
        c.row.set_line(line);
        c.row.set_flags(if s.terminal || !s.ends.is_empty() { ENDS } else { 0 });
        c
    }
}

impl Entry {
    /// The entry of a record.
    pub fn record(s: &Summary) -> Entry {
        Entry::Record(Box::new(Compact::of(s)))
    }

    /// The entry of the file at `path` (blob `blob`) with verdict `i`.
    pub fn of(path: &str, blob: &str, i: Intrinsic) -> Entry {
        let other = |kind, diagnostic| Entry::Other(Other { path: path.into(), blob: blob.into(), kind, diagnostic });
        match i {
            Intrinsic::Record { id, public_key, record } => match crate::signing::raw_public_key(&public_key) {
                Some(k) => Entry::record(&Summary::of_owned(id.into(), blob, hex(&k), *record)),
                None => other(
                    OtherKind::Refused,
                    Diagnostic::new(Severity::Error, Code::BadSignature, Some(path), "the public key does not decode"),
                ),
            },
            Intrinsic::TooNew(d) => other(OtherKind::TooNew, d),
            Intrinsic::Refused(d) => other(OtherKind::Refused, d),
            Intrinsic::Stray(d) => other(OtherKind::Stray, d),
        }
    }
}
