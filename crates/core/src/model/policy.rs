//! Policy (`.ai/repo/policy.yaml`) and profiles (`.ai/repo/profiles/<name>.yaml`), docs/REFERENCE.md#policy.
//! Must not touch: files (`Ctx` reads the policy and hands its text in), git.
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

/// Policy or profile text that does not parse into its shape (printed as the YAML reader's
/// message, which names the offending key and position), or a numeric key outside its range.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// The text does not deserialise.
    #[error(transparent)]
    Yaml(#[from] serde_yaml::Error),
    /// A numeric key outside its documented range ([`BOUNDS`]).
    #[error("{key} is {value}, outside its range {min}–{max}{unit}")]
    OutOfRange {
        /// The key, dotted (`continuity.network_timeout`).
        key: &'static str,
        /// The value found.
        value: i128,
        /// The smallest value allowed.
        min: i64,
        /// The largest value allowed.
        max: i64,
        /// The unit, with its leading space (` s`), or empty.
        unit: &'static str,
    },
}

/// Every numeric policy key with its range, inclusive, and its unit: the one place they are
/// checked ([`Policy::parse`]); docs/REFERENCE.md#policy lists the same table (a test reads it).
pub const BOUNDS: &[(&str, i64, i64, &str)] = &[
    ("version", 1, 1, ""),
    ("context.always_loaded_budget_lines", 1, 100_000, " lines"),
    ("context.builder_budget_lines", 1, 100_000, " lines"),
    ("context.recent_decisions", 0, 100_000, ""),
    ("context.max_list_items", 1, 100_000, ""),
    ("checkpoint.max_body_lines", 1, 100_000, " lines"),
    ("checkpoint.retention_max_files", 0, 1_000_000, ""),
    ("handover.retention_max_files", 0, 1_000_000, ""),
    ("ledger.retention_max_lines", 1, 100_000_000, " lines"),
    ("session.briefing_budget_lines", 1, 100_000, " lines"),
    ("session.briefing_budget_chars", 1, 10_000_000, " characters"),
    ("session.freshness.fresh_minutes", 0, 5_256_000, " minutes"),
    ("session.freshness.stale_minutes", 0, 5_256_000, " minutes"),
    ("knowledge.candidates_max_files", 0, 1_000_000, ""),
    ("knowledge.candidate_max_age_minutes", 0, 5_256_000, " minutes"),
    ("benchmark.budget.doctor_ms", 1, 3_600_000, " ms"),
    ("benchmark.budget.watch_ms", 1, 3_600_000, " ms"),
    ("continuity.network_timeout", 1, 600, " s"),
];

/// How long the network steps of one sync may take in all unless the policy says otherwise.
pub const NETWORK_TIMEOUT_SECONDS: u64 = 30;

impl Policy {
    /// `continuity.network_timeout`: the budget of one sync's network steps (1–600 s; a parsed
    /// policy holds no other value, and this clamps anyway so no caller can overflow a deadline).
    pub fn network_timeout(&self) -> std::time::Duration {
        let secs = self.continuity.as_ref().and_then(|c| c.network_timeout).unwrap_or(NETWORK_TIMEOUT_SECONDS);
        std::time::Duration::from_secs(secs.clamp(1, 600))
    }

    /// The policy `init` writes (the embedded `crates/core/assets/policy.yaml`): the new defaults `doctor`
    /// names, and what a reader whose checkout's policy cannot be read bounds its lists by.
    pub fn defaults() -> Policy {
        Policy::parse(crate::assets::POLICY).expect("the embedded default policy parses (a unit test reads it)")
    }

    /// Parses policy text and checks every numeric key against [`BOUNDS`]; the error names the
    /// offending key (and, out of range, the range).
    pub fn parse(text: &str) -> Result<Policy, ParseError> {
        let p: Policy = serde_yaml::from_str(text)?;
        p.check_bounds()?;
        Ok(p)
    }

    /// The value of each numeric key, by its dotted name (absent optional keys left out).
    fn numbers(&self) -> Vec<(&'static str, i128)> {
        let n = |v: usize| v as i128;
        let mut v = vec![
            ("version", i128::from(self.version)),
            ("context.always_loaded_budget_lines", n(self.context.always_loaded_budget_lines)),
            ("context.builder_budget_lines", n(self.context.builder_budget_lines)),
            ("context.recent_decisions", n(self.context.recent_decisions)),
            ("context.max_list_items", n(self.context.max_list_items)),
            ("checkpoint.max_body_lines", n(self.checkpoint.max_body_lines)),
            ("checkpoint.retention_max_files", n(self.checkpoint.retention_max_files)),
            ("handover.retention_max_files", n(self.handover.retention_max_files)),
            ("ledger.retention_max_lines", n(self.ledger.retention_max_lines)),
            ("knowledge.candidates_max_files", n(self.knowledge.candidates_max_files)),
            ("knowledge.candidate_max_age_minutes", i128::from(self.knowledge.candidate_max_age_minutes)),
            ("benchmark.budget.doctor_ms", i128::from(self.benchmark.budget.doctor_ms)),
            ("benchmark.budget.watch_ms", i128::from(self.benchmark.budget.watch_ms)),
        ];
        let optional = [
            ("session.briefing_budget_lines", self.session.briefing_budget_lines.map(n)),
            ("session.briefing_budget_chars", self.session.briefing_budget_chars.map(n)),
            (
                "session.freshness.fresh_minutes",
                self.session.freshness.as_ref().and_then(|f| f.fresh_minutes).map(i128::from),
            ),
            (
                "session.freshness.stale_minutes",
                self.session.freshness.as_ref().and_then(|f| f.stale_minutes).map(i128::from),
            ),
            ("continuity.network_timeout", self.continuity.as_ref().and_then(|c| c.network_timeout).map(i128::from)),
        ];
        v.extend(optional.into_iter().filter_map(|(k, x)| x.map(|x| (k, x))));
        v
    }

    /// The first numeric key outside its range, as an error naming the key and the range.
    fn check_bounds(&self) -> Result<(), ParseError> {
        for (key, value) in self.numbers() {
            let (key, min, max, unit) = *BOUNDS
                .iter()
                .find(|b| b.0 == key)
                .expect("every numeric key has a row in BOUNDS (a unit test checks both ways)");
            if value < i128::from(min) || value > i128::from(max) {
                return Err(ParseError::OutOfRange { key, value, min, max, unit });
            }
        }
        Ok(())
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
    fn numeric_keys_outside_their_range_are_refused_naming_key_and_range() {
        let base = include_str!("../../assets/policy.yaml");
        let cases = [
            (
                format!("{base}continuity:\n  network_timeout: 18446744073709551615\n"),
                "continuity.network_timeout is 18446744073709551615, outside its range 1–600 s",
            ),
            (
                format!("{base}continuity:\n  network_timeout: 0\n"),
                "continuity.network_timeout is 0, outside its range 1–600 s",
            ),
            (
                format!("{base}continuity:\n  network_timeout: 601\n"),
                "continuity.network_timeout is 601, outside its range 1–600 s",
            ),
            (
                base.replace("candidate_max_age_minutes: 20160", "candidate_max_age_minutes: -1"),
                "knowledge.candidate_max_age_minutes is -1, outside its range 0–5256000 minutes",
            ),
            (
                base.replace("doctor_ms: 300", "doctor_ms: 0"),
                "benchmark.budget.doctor_ms is 0, outside its range 1–3600000 ms",
            ),
            (base.replace("version: 1", "version: 2"), "version is 2, outside its range 1–1"),
        ];
        for (text, want) in cases {
            let e = Policy::parse(&text).unwrap_err();
            assert_eq!(e.to_string(), want);
        }
        for secs in [1, 30, 600] {
            let p = Policy::parse(&format!("{base}continuity:\n  network_timeout: {secs}\n")).unwrap();
            assert_eq!(p.network_timeout().as_secs(), secs);
        }
    }

    #[test]
    fn every_numeric_key_has_one_bound_and_every_bound_a_key() {
        let p =
            Policy::parse(&format!("{}continuity:\n  network_timeout: 30\n", include_str!("../../assets/policy.yaml")))
                .unwrap();
        let keys: Vec<&str> = p.numbers().iter().map(|(k, _)| *k).collect();
        let bounds: Vec<&str> = BOUNDS.iter().map(|b| b.0).collect();
        assert_eq!(keys.len(), bounds.len());
        for k in &keys {
            assert_eq!(bounds.iter().filter(|b| *b == k).count(), 1, "{k}");
        }
        for (k, min, max, _) in BOUNDS {
            assert!(min <= max, "{k}");
        }
    }

    #[test]
    fn the_reference_lists_every_range() {
        let doc = include_str!("../../../../docs/REFERENCE.md");
        for (key, min, max, unit) in BOUNDS {
            let row = format!("| `{key}` |");
            let line = doc.lines().find(|l| l.starts_with(&row)).unwrap_or_else(|| panic!("{key} not in the table"));
            assert!(line.contains(&format!("| `{min}–{max}{unit}` |")), "{key}: {line}");
        }
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
