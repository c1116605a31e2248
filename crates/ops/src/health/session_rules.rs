//! The doctor rules on the session store (docs/REFERENCE.md#sessions).
//! Must not touch: a command or a query, the episodes it judges (a finding names the command that
//! fixes it).

use super::file_rules::{files, front_matter};
use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::finding::{Category, Finding, Level};
use crate::model::session::ClosedSession;
use crate::store::atomic::read_opt;
use crate::store::format;
use crate::store::records::names;
use crate::store::sessions;

/// Session store integrity, as far as the stores exist: every working-context document carries
/// `head`; every open episode parses and has its working context; every closed record carries
/// `schema: session/v1` and its required fields.
/// The command that closes the open episode of file key `key` (as a crash left it).
fn close_command(key: &str) -> String {
    format!("git majordomus session close --outcome interrupted --provider-session {key}")
}

/// An episode open longer than the policy's stale threshold (`session.freshness.stale_minutes`),
/// counted from its last ledger line (else its start): a WARN with the command that closes it
/// (episodes a crash left open used to go unflagged).
fn left_open(ctx: &Ctx, key: &str, s: &crate::model::session::OpenSession, subject: &str) -> Option<Finding> {
    let stale = ctx.policy().ok()?.thresholds().stale_minutes?;
    let last = crate::store::ledger::backward(&ctx.layout.ledger())
        .ok()
        .flatten()
        .and_then(|lines| {
            lines
                .take(50_000)
                .filter_map(|l| l.ok())
                .find(|l| l.str("session") == Some(s.session_id.as_str()))
                .and_then(|l| l.str("ts").map(str::to_string))
        })
        .unwrap_or_else(|| s.started_at.clone());
    let at = crate::clock::parse_stamp(&last)?;
    let minutes = (ctx.clock.now() - at).num_minutes();
    (minutes > stale).then(|| {
        Finding::new(
            Level::Warn,
            Category::Sessions,
            subject,
            format!(
                "episode {} ({}) has been open with no activity for {} h, past session.freshness.stale_minutes ({} h): its host never sent its end",
                s.session_id,
                s.provider.as_deref().unwrap_or("by hand"),
                minutes / 60,
                stale / 60
            ),
            &format!("cat {subject}"),
        )
        .fixed_by(close_command(key))
    })
}

pub(super) fn session_rules(ctx: &Ctx) -> Result<Vec<Finding>> {
    let mut out = Vec::new();
    let root = ctx.layout.root();
    let contexts_dir = ctx.layout.session_contexts();
    for n in files(&contexts_dir, ".md")? {
        let path = contexts_dir.join(&n);
        let subject = ctx.rel(&path);
        let reproduce = format!("head -n 16 {subject}");
        let problem = match crate::store::atomic::guard(root, &path) {
            Err(e) => Some(e.to_string()),
            Ok(()) => match front_matter(&path) {
                Err(why) => Some(format!("working context: {why}")),
                Ok(m) if format::get(&m, "head").is_none_or(|h| h.trim().is_empty()) => {
                    Some("working context without head: it cannot be compared with git".into())
                }
                Ok(_) => None,
            },
        };
        if let Some(p) = problem {
            out.push(Finding::new(Level::Fail, Category::Sessions, subject, p, &reproduce));
        }
    }
    let open_dir = ctx.layout.sessions_open();
    if open_dir.is_dir() {
        let before = out.len();
        let open = sessions::list_open(&ctx.layout)?;
        for (key, parsed) in &open {
            let path = open_dir.join(format!("{key}.yaml"));
            let subject = ctx.rel(&path);
            let reproduce = format!("cat {subject}");
            if let Err(e) = crate::store::atomic::guard(root, &path) {
                out.push(Finding::new(Level::Fail, Category::Sessions, subject, e.to_string(), &reproduce));
                continue;
            }
            match parsed {
                Err(_) => out.push(Finding::new(
                    Level::Fail,
                    Category::Sessions,
                    subject,
                    "open episode record does not parse",
                    &reproduce,
                )),
                Ok(s) if crate::store::session_context::find(&ctx.layout, &s.session_id).is_none() => out.push(
                    Finding::new(
                        Level::Fail,
                        Category::Sessions,
                        subject,
                        format!(
                            "episode {} has no working-context document in {} (a start killed before it wrote one)",
                            s.session_id,
                            ctx.rel(&contexts_dir)
                        ),
                        &reproduce,
                    )
                    .fixed_by(close_command(key)),
                ),
                Ok(s) => out.extend(left_open(ctx, key, s, &subject)),
            }
        }
        if out.len() == before {
            out.push(Finding::new(
                Level::Ok,
                Category::Sessions,
                ctx.rel(&open_dir),
                format!("{} open episode(s), each parses with a working context", open.len()),
                "git majordomus session status",
            ));
        }
    }
    let closed_dir = ctx.layout.sessions();
    if closed_dir.is_dir() {
        let before = out.len();
        let all = names(&closed_dir)?;
        for n in &all {
            let path = closed_dir.join(n);
            let subject = ctx.rel(&path);
            let reproduce = format!("head -n 30 {subject}");
            let problem = crate::store::atomic::guard(root, &path)
                .and_then(|()| read_opt(&path))
                .map_err(|e| e.to_string())
                .and_then(|t| t.ok_or_else(|| "vanished while reading".to_string()))
                .and_then(|t| ClosedSession::parse(&t).map(|_| ()).map_err(str::to_string));
            if let Err(p) = problem {
                out.push(Finding::new(
                    Level::Fail,
                    Category::Sessions,
                    subject,
                    format!("readers skip this closed session record: {p}"),
                    &reproduce,
                ));
            }
        }
        if out.len() == before {
            out.push(Finding::new(
                Level::Ok,
                Category::Sessions,
                ctx.rel(&closed_dir),
                format!("{} closed session record(s), all readable", all.len()),
                "git majordomus session list --all",
            ));
        }
    }
    Ok(out)
}
