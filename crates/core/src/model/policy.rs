//! Policy (`.ai/repo/policy.yaml`) and profiles (`.ai/repo/profiles/<name>.yaml`), docs/REFERENCE.md#policy.
//!
//! Unknown keys are errors at every level; every key the code reads is required except the
//! optional ones docs/REFERENCE.md#policy names.

use serde::Deserialize;

use super::labels::Thresholds;

/// The whole policy file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct Policy {
    pub version: u32,
    pub context: ContextPolicy,
    pub profiles: ProfilesPolicy,
    pub verification: VerificationPolicy,
    pub checkpoint: CheckpointPolicy,
    pub handover: HandoverPolicy,
    pub ledger: LedgerPolicy,
    pub session: SessionPolicy,
    pub knowledge: KnowledgePolicy,
    pub benchmark: BenchmarkPolicy,
    #[serde(default)]
    pub continuity: Option<ContinuityPolicy>,
}

/// `continuity:` (docs/REFERENCE.md#policy), optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct ContinuityPolicy {
    /// Seconds every network step of one sync may take in all (default 30).
    #[serde(default)]
    pub network_timeout: Option<u64>,
    /// The remote records go to (unset: `origin`, else the only remote).
    #[serde(default)]
    pub remote: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct ContextPolicy {
    pub always_loaded_budget_lines: usize,
    pub builder_budget_lines: usize,
    pub recent_decisions: usize,
    pub max_list_items: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct ProfilesPolicy {
    pub default: String,
    pub checkpoint_interval_default: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct VerificationPolicy {
    pub finish_requires: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct CheckpointPolicy {
    pub max_body_lines: usize,
    pub retention_max_files: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct HandoverPolicy {
    pub required_sections: Vec<String>,
    pub retention_max_files: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct LedgerPolicy {
    pub retention_max_lines: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct SessionPolicy {
    pub briefing_on_start: bool,
    #[serde(default)]
    pub briefing_budget_lines: Option<usize>,
    #[serde(default)]
    pub briefing_budget_chars: Option<usize>,
    pub checkpoint_on_compact: bool,
    pub handover_on_end: bool,
    pub ensure_server_on_start: bool,
    pub knowledge_on_end: bool,
    pub knowledge_on_compact: bool,
    #[serde(default)]
    pub freshness: Option<FreshnessPolicy>,
    #[serde(default)]
    pub record_sections: Option<Vec<String>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct FreshnessPolicy {
    #[serde(default)]
    pub fresh_minutes: Option<i64>,
    #[serde(default)]
    pub stale_minutes: Option<i64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct KnowledgePolicy {
    pub candidates_max_files: usize,
    pub candidate_max_age_minutes: i64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct BenchmarkPolicy {
    pub budget: BenchmarkBudget,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct BenchmarkBudget {
    pub doctor_ms: u64,
    pub watch_ms: u64,
}

/// Policy or profile text that does not parse into its shape; prints as the YAML reader's
/// message, which names the offending key and position.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct ParseError(#[from] serde_yaml::Error);

/// How long the network steps of one sync may take in all unless the policy says otherwise.
pub const NETWORK_TIMEOUT_SECONDS: u64 = 30;

impl Policy {
    /// `continuity.network_timeout`: the budget of one sync's network steps (at least 1 s).
    pub fn network_timeout(&self) -> std::time::Duration {
        let secs = self.continuity.as_ref().and_then(|c| c.network_timeout).unwrap_or(NETWORK_TIMEOUT_SECONDS);
        std::time::Duration::from_secs(secs.max(1))
    }

    /// The policy `init` writes (the embedded `crates/core/assets/policy.yaml`): the new defaults `doctor`
    /// names, and what a reader whose checkout's policy cannot be read bounds its lists by.
    pub fn defaults() -> Policy {
        Policy::parse(crate::assets::POLICY).expect("the embedded default policy parses (a unit test reads it)")
    }

    /// Parses policy text; the error names the offending key.
    pub fn parse(text: &str) -> Result<Policy, ParseError> {
        Ok(serde_yaml::from_str(text)?)
    }

    /// The freshness thresholds, each possibly absent.
    pub fn thresholds(&self) -> Thresholds {
        let f = self.session.freshness.as_ref();
        Thresholds { fresh_minutes: f.and_then(|f| f.fresh_minutes), stale_minutes: f.and_then(|f| f.stale_minutes) }
    }
}

/// A profile's `context` block: what the context builder includes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct ProfileContext {
    pub task: bool,
    pub current_state: bool,
    pub decisions: bool,
    pub relevant_files: bool,
    pub failing_output: bool,
    pub recent_history_depth: usize,
    pub architecture_notes: bool,
}

/// `true`, `false` or `if_files_changed`.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
#[allow(missing_docs)]
pub enum Requirement {
    Flag(bool),
    Named(String),
}

impl std::fmt::Display for Requirement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Requirement::Flag(b) => write!(f, "{b}"),
            Requirement::Named(s) => f.write_str(s),
        }
    }
}

/// A profile's `verification` block.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct ProfileVerification {
    pub verify_command_required: Requirement,
    pub regression_test_required: bool,
    pub decision_record_required: bool,
}

/// One profile file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct Profile {
    pub name: String,
    pub capability: String,
    pub effort: String,
    pub effort_escalation: String,
    pub verbosity: String,
    pub presentation: String,
    pub reasoning: String,
    pub checkpoint_interval: String,
    pub context: ProfileContext,
    pub verification: ProfileVerification,
    pub output_contract: String,
}

impl Profile {
    /// Parses profile text.
    pub fn parse(text: &str) -> Result<Profile, ParseError> {
        Ok(serde_yaml::from_str(text)?)
    }
}

/// Parses an interval such as `15m`, `2h`, `30s`, `1d` into minutes (seconds round up).
pub fn interval_minutes(s: &str) -> Option<i64> {
    let s = s.trim();
    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit())?);
    let n: i64 = num.parse().ok()?;
    match unit {
        "s" => Some((n + 59) / 60),
        "m" => Some(n),
        "h" => Some(n * 60),
        "d" => Some(n * 24 * 60),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_policy_parses() {
        let p = Policy::parse(include_str!("../../assets/policy.yaml")).unwrap();
        assert_eq!(p.version, 1);
        assert!(p.thresholds().fresh_minutes.is_some());
    }

    #[test]
    fn unknown_key_is_an_error() {
        let text = include_str!("../../assets/policy.yaml").replace("session:\n", "session:\n  bogus_key: 1\n");
        let e = Policy::parse(&text).unwrap_err();
        assert!(e.to_string().contains("bogus_key"), "{e}");
    }

    #[test]
    fn shipped_profiles_parse() {
        for (name, text) in crate::assets::PROFILES {
            let p = Profile::parse(text).unwrap();
            assert_eq!(&p.name, name);
        }
    }

    #[test]
    fn intervals() {
        assert_eq!(interval_minutes("15m"), Some(15));
        assert_eq!(interval_minutes("2h"), Some(120));
        assert_eq!(interval_minutes("x"), None);
    }
}
