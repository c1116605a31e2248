//! The edge: the one table from each operation's typed error to the exit code and the hint a
//! user sees (docs/REFERENCE.md#exit-codes). Below it, services say what went wrong as a value
//! (`services::task::TaskError`, `services::continuity::ContinuityError`, …) and never choose an
//! exit code; git's own table is `majordomus_git`'s `From<Error>`, the store's `majordomus_store`'s.
//!
//! Owns: the exit code and hint of every typed error of the use cases.
//! Must not touch: files, git, the terminal; a room (it is below none and above none).

use crate::commands::continuity::publish::{Part, PublishError};
use crate::commands::continuity::sync::SyncError;
use crate::error::{Error, Exit};
use crate::git::net::{is_local_lock, NetError};
use crate::model::providers;
use crate::services::context::ContextError;
use crate::services::continuity::ContinuityError;
use crate::services::derive::{DeriveError, WRITERS};
use crate::services::kept::KeptError;
use crate::services::records::RecordError;
use crate::services::remotes::RemoteError;
use crate::services::task::TaskError;

/// The edge error of `e`: its words, `exit`, `hint` when there is something to do, and `e`
/// itself kept as the cause.
fn edge(e: impl std::error::Error + Send + Sync + 'static, exit: Exit, hint: Option<String>) -> Error {
    let mut out = Error::new(exit, e.to_string());
    out.hint = hint;
    out.caused_by(e)
}

impl From<ContinuityError> for Error {
    fn from(e: ContinuityError) -> Error {
        use ContinuityError as C;
        let (exit, hint) = match &e {
            C::Mesh(_) => (Exit::Refused, None),
            C::TwoMeshes(_) => (Exit::Refused, Some("keep exactly one with enabled: true".into())),
            C::Pin { .. } | C::Unreadable { .. } | C::Unparsable { .. } | C::Store { .. } => (Exit::Io, None),
            C::ReadModel(_) | C::ReadModelVanished => (Exit::Io, None),
            C::ReadModelUnreadable => (Exit::Io, Some("check the disk; removing <common-dir>/majordomus/readmodel/ changes no answer".into())),
            C::Shallow => (
                Exit::Refused,
                Some("declare cooperation.repository in the mesh declaration under .ai/repo/mesh/".into()),
            ),
            C::NoCommits => {
                (Exit::Refused, Some("commit first, or declare cooperation.repository in the mesh declaration".into()))
            }
            C::NoHome => (Exit::NotFound, None),
            C::LocalState(_) => (Exit::Io, Some("fix or move the file; it is never replaced silently".into())),
            C::RevokedHere { .. } => (
                Exit::Refused,
                Some("git majordomus continuity device rotate makes a new key; a teammate trusts it with git majordomus continuity trust add".into()),
            ),
            C::BadPrefix { .. } | C::Ambiguous { .. } => (Exit::Usage, None),
            C::NoRecord(_) => (Exit::NotFound, Some("git majordomus continuity records lists them".into())),
            C::EmptyStore => (Exit::NotFound, Some("publish or sync first".into())),
        };
        edge(e, exit, hint)
    }
}

impl From<SyncError> for Error {
    fn from(e: SyncError) -> Error {
        use SyncError as S;
        let (exit, hint) = match &e {
            S::ThisSide { source, .. } => (
                Exit::Io,
                Some(match source {
                    NetError::Spawn(_) => "put git on PATH (git --version must run); the local store and the last sync are unchanged".into(),
                    NetError::Local(t) if is_local_lock(t) => {
                        "another git process holds that lock; when none is running, remove the .lock file git names".into()
                    }
                    _ => "free disk space, lift the file-size limit or repair what git names (git fsck); the local store and the last sync are unchanged".into(),
                }),
            ),
            S::NotTakenIn { remote, .. } | S::NotACommit { remote, .. } => (
                Exit::Refused,
                Some(format!(
                    "the local store is unchanged; {remote}'s {} must be a whole store commit — ask whoever writes {remote} to repair it",
                    crate::services::continuity::REF
                )),
            ),
            S::Unreadable { .. } => {
                (Exit::Io, Some("git fsck shows what is damaged; the local store and the last sync are unchanged".into()))
            }
            S::Unlooked { .. } | S::Merge(_) | S::Ref { .. } | S::Ancestry(_) => (Exit::Io, None),
            S::NoSuchRemote(_) => (Exit::NotFound, Some("git remote -v lists them".into())),
            S::BadRemoteName(_) => (Exit::Refused, Some("git remote -v lists them".into())),
            S::NoneChosen(_) => {
                (Exit::Usage, Some("set continuity.remote in .ai/repo/policy.yaml, or pass --remote <name>".into()))
            }
            S::PushFailed { .. } => {
                (Exit::Io, Some("git fsck --strict shows what is damaged; the remote was not changed".into()))
            }
        };
        edge(e, exit, hint)
    }
}

impl From<PublishError> for Error {
    fn from(e: PublishError) -> Error {
        use PublishError as P;
        let list = "git majordomus handover --list shows the records";
        let (exit, hint): (Exit, Option<String>) = match &e {
            P::NotAName(_) | P::NoSuchHandover(_) => (Exit::Refused, Some(list.into())),
            P::Arrived(_) => (Exit::Refused, Some("Write this machine's own with `git majordomus handover`".into())),
            P::NoHandover => (
                Exit::Refused,
                Some("write one with `git majordomus handover` (# Objective, # Current State, # Next Action on stdin)".into()),
            ),
            P::Unparsable { .. } | P::EmptyBody(_) | P::Leak { .. } => (Exit::Refused, None),
            P::Inadmissible { part, .. } => (Exit::Refused, Some(inadmissible_fix(part))),
            P::TooLarge { questions_file, .. } => (
                Exit::Refused,
                Some(format!(
                    "resolve answered questions in {questions_file} (`git majordomus question resolve`) or shorten the handover, then publish again"
                )),
            ),
            P::NotAHead(_) => (Exit::Refused, Some("git majordomus continuity status lists the heads of each line".into())),
            P::NotReadmitted(_) => (Exit::Refused, None),
            P::Json(_) | P::Store(_) => (Exit::Io, None),
        };
        edge(e, exit, hint)
    }
}

/// What to correct when admission would refuse a record, by the part the field is in.
fn inadmissible_fix(part: &Part) -> String {
    match part {
        Part::Decisions(file) => format!(
            "the task's entries of {file} travel verbatim: shorten or correct the one named (a text over {} bytes, a control character, or a line starting `#` or `<!--`)",
            crate::continuity::record::MAX_DECISION_TEXT
        ),
        Part::Questions(file) => format!(
            "every unresolved question of {file} travels: correct the one named (one line, no control character)"
        ),
        Part::Handover => "write the handover again without control characters (tabs and line ends only)".into(),
        Part::Task => "the task's record travels: correct the field named (`git majordomus start` writes a new one)".into(),
        Part::Other => "correct the field named; nothing was published".into(),
    }
}

impl From<TaskError> for Error {
    fn from(e: TaskError) -> Error {
        let (exit, hint) = match &e {
            TaskError::Unparsable { archived: false, .. } => {
                (Exit::Io, "fix or remove the file; git majordomus start writes a new one")
            }
            TaskError::Unparsable { archived: true, .. } => {
                (Exit::Io, "fix the file, or move it out of .ai/local/state/archive/")
            }
            TaskError::Active { .. } => {
                (Exit::Conflict, "run git majordomus handover --close or git majordomus finish first")
            }
            TaskError::ArchiveExists(_) => (Exit::Conflict, "move or remove that archive file, then start again"),
        };
        edge(e, exit, Some(hint.into()))
    }
}

impl From<ContextError> for Error {
    fn from(e: ContextError) -> Error {
        let (exit, hint) = match &e {
            ContextError::OverBudget { lines, .. } => (
                Exit::Refused,
                format!("pass --budget-lines {lines} or more (the default is policy context.builder_budget_lines)"),
            ),
            ContextError::UnknownProvider(_) => (
                Exit::Usage,
                format!(
                    "known providers: {}",
                    providers::PROVIDERS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                ),
            ),
            ContextError::PromptName(_) => (
                Exit::Usage,
                "pass the name of .ai/repo/prompts/<name>.md without directories or the .md suffix".into(),
            ),
            ContextError::NoPrompt { .. } => {
                (Exit::NotFound, "prompts live in .ai/repo/prompts/<name>.md; pass an existing name".into())
            }
        };
        edge(e, exit, Some(hint))
    }
}

impl From<RemoteError> for Error {
    fn from(e: RemoteError) -> Error {
        let hint = match &e {
            RemoteError::UnknownRemote(_) => "git remote -v lists them; fix continuity.remote in .ai/repo/policy.yaml",
        };
        edge(e, Exit::Refused, Some(hint.into()))
    }
}

impl From<DeriveError> for Error {
    fn from(e: DeriveError) -> Error {
        let hint = match &e {
            DeriveError::NoWriter(_) => format!("derivable sections: {}", WRITERS.join(", ")),
        };
        edge(e, Exit::Refused, Some(hint))
    }
}

impl From<KeptError> for Error {
    fn from(e: KeptError) -> Error {
        let (exit, hint) = match &e {
            KeptError::NotFound(_) => {
                (Exit::NotFound, "git majordomus worktree list shows the removed worktrees whose records are kept")
            }
            KeptError::Several { .. } => (Exit::Refused, "name one by its id"),
        };
        edge(e, exit, Some(hint.into()))
    }
}

impl From<RecordError> for Error {
    fn from(e: RecordError) -> Error {
        let hint = match &e {
            RecordError::Authored { key, .. } => {
                format!("remove the `{key}:` line; identity fields are never authored")
            }
        };
        edge(e, Exit::Refused, Some(hint))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_typed_error_keeps_its_words_and_gets_its_exit_code_and_hint() {
        let e = Error::from(TaskError::Active { id: "t-1".into(), task: "Fix".into() });
        assert_eq!((e.exit, e.message.as_str()), (Exit::Conflict, "task t-1 is active ('Fix')"));
        assert_eq!(e.hint.as_deref(), Some("run git majordomus handover --close or git majordomus finish first"));
        let e = Error::from(ContinuityError::NoRecord("abcd".into()));
        assert_eq!((e.exit, e.hint.as_deref()), (Exit::NotFound, Some("git majordomus continuity records lists them")));
        let e = Error::from(ContinuityError::Ambiguous { prefix: "abcd".into(), n: 2 });
        assert_eq!(
            (e.exit, e.message.as_str(), e.hint),
            (Exit::Usage, "abcd matches 2 records; give more of the id", None)
        );
        let e = Error::from(DeriveError::NoWriter("Risks".into()));
        assert_eq!(e.exit, Exit::Refused);
        assert!(e.hint.as_deref().is_some_and(|h| h.starts_with("derivable sections: objective")), "{:?}", e.hint);
        // The cause is kept, and what the message already says is not repeated.
        let e = Error::from(ContinuityError::ReadModel(std::io::Error::other("disk full")));
        assert_eq!((e.exit, e.message.as_str()), (Exit::Io, "read model: disk full"));
        assert!(std::error::Error::source(&e).is_some());
        assert!(e.causes().is_empty(), "{:?}", e.causes());
        let e = Error::from(SyncError::NotACommit { remote: "origin".into(), tip: "0123456789abcdef".into() });
        assert_eq!(
            (e.exit, e.message.as_str()),
            (Exit::Refused, "the store of origin cannot be taken in: its tip 0123456789ab is not a commit")
        );
        assert!(e
            .hint
            .is_some_and(|h| h.starts_with("the local store is unchanged; origin's refs/majordomus/continuity")));
        let e = Error::from(SyncError::NoneChosen(vec!["a".into(), "b".into()]));
        assert_eq!(
            (e.exit, e.message.as_str()),
            (Exit::Usage, "continuity sync: 2 remotes (a, b) and none chosen for the records")
        );
        // A publish admission would refuse: the hint names what to correct, in the file that holds it.
        let problem = "/questions/0/text: a control character".to_string();
        let part = Part::Questions(".ai/local/questions.md".into());
        let e = Error::from(PublishError::Inadmissible { problem, part });
        assert_eq!(e.exit, Exit::Refused);
        assert_eq!(
            e.hint.as_deref(),
            Some("every unresolved question of .ai/local/questions.md travels: correct the one named (one line, no control character)")
        );
        let e = Error::from(PublishError::NotAHead("0123456789abcdef0123".into()));
        assert_eq!(e.message, "record 0123456789ab is not a head: a later record already continues it");
    }
}
