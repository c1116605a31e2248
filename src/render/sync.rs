//! What a sync says (docs/SYNC.md#outcomes-and-what-to-do): the sentence of each of its own
//! diagnostics (`ops` decides the fact, its severity and code; the sentence is the diagnostic's
//! `message` in every output, `--json` included), and the fresh-clone hint.
//! Must not touch: git, the network, `ctx`, the terminal (`ui` prints).

use crate::ops::commands::continuity::sync::{Said, Words};
use crate::ops::services::continuity::REF;

/// The words of `continuity sync`, the pre-push hook's sync and the sync of a revocation.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sync;

impl Words for Sync {
    fn said(&self, said: &Said) -> String {
        match said {
            Said::NoRemote => "no remote is configured; nothing was synced".into(),
            Said::Collision { .. } => {
                "the remote holds different bytes under the same name; the local file is kept".into()
            }
            Said::Unreachable { remote, detail } => format!(
                "{remote} could not be reached ({detail}); the local store is unchanged and its records stay pending"
            ),
            Said::MovedUnder { remote, attempts, why } => format!(
                "{remote} moved under each of {attempts} pushes ({why}); the records stay pending: run continuity sync again"
            ),
            Said::Rejected { remote, summary, said } => {
                let quoted = if said.is_empty() {
                    "it gave no message".to_string()
                } else {
                    format!("it said: {}", said.iter().map(|l| format!("\"{l}\"")).collect::<Vec<_>>().join(" / "))
                };
                format!(
                    "{remote} rejected the push of {REF} ({summary}); {quoted}. Its hook or policy does not accept this ref: nothing is retried and the records stay pending (docs/SYNC.md)"
                )
            }
            Said::PushUnreachable { remote, why } => {
                format!("{remote} could not be reached for the push ({why}); the records stay pending")
            }
        }
    }
}

/// The one-time hint of a fresh clone that has no records yet.
pub const FRESH_CLONE: &str = "this clone has no continuity records yet (git clone does not bring refs/majordomus/continuity): \
     run git majordomus continuity sync, and git majordomus hooks install --fetch-refspec so that git fetch brings them";
