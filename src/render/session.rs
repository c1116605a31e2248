//! The text of the `session` commands (docs/REFERENCE.md#sessions): an opened episode, `status`, `list`, and a
//! closed record as `show` and `latest` print it.
//! Must not touch: git, `ctx`, files, the terminal.

use crate::model::labels::Divergence;
use crate::model::session::OpenSession;
use crate::ops::queries::sessions::{ClosedView, StatusReport};
use crate::text::short;

/// The warning under a record whose commit git no longer vouches for.
fn warning_for(label: Divergence) -> Option<String> {
    matches!(label, Divergence::Diverged | Divergence::DifferentContext)
        .then(|| format!("WARNING: its commit is {}; trust git, not the record", label.as_str()))
}

/// `session start` when it opened an episode; `context` is the working context's path.
pub fn opened(session: &OpenSession, context: Option<&str>) -> String {
    let mut s = format!(
        "session {} opened at {} (head {})\n",
        session.session_id,
        session.started_at,
        short(&session.start_head)
    );
    if let Some(p) = context {
        s.push_str(&format!("working context: {p}\n"));
    }
    s
}

/// `session status`: this process's episode, `opened_age` being how long ago it opened.
/// The other open episodes come after the `next:` line, from [`others`].
pub fn status(r: &StatusReport, opened_age: &str) -> String {
    let Some(v) = &r.open else { return "No open session in this worktree.\n".into() };
    let o = &v.session;
    let mut lines = vec![
        format!("Session: {}", o.session_id),
        format!("Opened: {} ({opened_age})", o.started_at),
        format!("Owner: {}", o.owner),
        format!("Worker: {}", o.worker.as_deref().unwrap_or("-")),
    ];
    if let Some(p) = &o.provider {
        lines.push(format!("Provider: {p} (session {})", o.provider_session.as_deref().unwrap_or("-")));
    }
    lines.push(format!("Branch: {}", o.branch));
    lines.push(format!("Start head: {} ({})", short(&o.start_head), v.label.as_str()));
    lines.extend(warning_for(v.label));
    lines.into_iter().map(|l| l + "\n").collect()
}

/// The other open episodes of `session status`.
pub fn others(r: &StatusReport) -> String {
    r.others.iter().map(|o| format!("Also open:  {} ({})\n", o.session_id, o.key)).collect()
}

/// `session list`: one line per closed record, then the count of files skipped.
pub fn list(views: &[ClosedView], skipped: usize) -> String {
    let mut s = String::new();
    if views.is_empty() {
        s.push_str("No closed sessions for this worktree and branch.\n");
    }
    for v in views {
        s.push_str(&format!(
            "{}  {:<24} {:<12} {:<18} {}\n",
            v.created_at,
            v.session_id,
            v.outcome,
            v.label.as_str(),
            v.path
        ));
    }
    if skipped > 0 {
        s.push_str(&format!("({skipped} file(s) of another schema or unreadable skipped)\n"));
    }
    s
}

/// A closed record as `session show` and `session latest` print it: the header, then its body.
pub fn closed(v: &ClosedView) -> String {
    let mut lines = vec![format!("Session: {}", v.session_id), format!("Record: {}", v.path)];
    if let Some(m) = v.matched {
        lines.push(format!("Match: {}", m.as_str()));
    }
    lines.push(format!("Git state: {}", v.label.as_str()));
    lines.extend(warning_for(v.label));
    lines.push(format!("Closed: {} ({})", v.created_at, v.outcome));
    lines.push("---".into());
    let mut s: String = lines.into_iter().map(|l| l + "\n").collect();
    s.push_str(&v.body);
    s
}
