//! The mesh declaration and trust (docs/REFERENCE.md#mesh): which signers this repository trusts.

use serde_yaml::Mapping;

use crate::model::vocabulary::vocabulary;
use crate::store::format::{get, get_list};

vocabulary! {
    /// A signer's standing.
    pub enum Trust {
        /// This device's own key.
        ThisDevice = "this_device",
        /// Listed in `trust.allow`, or `tofu`.
        Trusted = "trusted",
        /// Not listed under `deny_unknown` / `allowlist`.
        Untrusted = "untrusted",
        /// No declaration at all.
        Undeclared = "undeclared",
        /// Listed in `trust.revoked`: refused everywhere.
        Revoked = "revoked",
    }
}

vocabulary! {
    /// `trust.policy`: whom a declaration trusts besides `trust.allow` (docs/REFERENCE.md#mesh).
    pub enum MeshPolicy {
        /// Nobody (the default).
        DenyUnknown = "deny_unknown",
        /// Nobody: the same as `deny_unknown`.
        Allowlist = "allowlist",
        /// Every signer.
        Tofu = "tofu",
    }
}

/// The enabled mesh declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mesh {
    /// Its file, repository-relative.
    pub path: String,
    /// Its id.
    pub id: String,
    /// `trust.policy`.
    pub policy: MeshPolicy,
    /// Allowed keys, normalised to 64 hex raw keys (entries that do not decode are dropped).
    pub allow: Vec<String>,
    /// Revoked keys, normalised likewise.
    pub revoked: Vec<String>,
    /// `cooperation.repository`, when declared.
    pub repository: Option<String>,
}

/// Parses one declaration; `None` unless it is an enabled `mesh/v1` declaration.
/// `normalise` turns a key as written (`RW...` minisign key or 64 hex) into 64 hex.
pub fn parse(path: &str, text: &str, normalise: &dyn Fn(&str) -> Option<String>) -> Result<Option<Mesh>, String> {
    let m: Mapping = serde_yaml::from_str(text)
        .map_err(|e| format!("{path}: does not parse: {}", e.to_string().lines().next().unwrap_or("")))?;
    if get(&m, "schema").as_deref() != Some("mesh/v1") || get(&m, "enabled").as_deref() != Some("true") {
        return Ok(None);
    }
    let trust = m.get("trust").and_then(|v| v.as_mapping()).cloned().unwrap_or_default();
    let policy = match get(&trust, "policy") {
        None => MeshPolicy::DenyUnknown,
        Some(p) => MeshPolicy::parse(&p)
            .ok_or_else(|| format!("{path}: trust.policy {p:?} is not deny_unknown, allowlist or tofu"))?,
    };
    let keys = |k: &str| get_list(&trust, k).iter().filter_map(|s| normalise(s.trim())).collect::<Vec<_>>();
    let repository = m
        .get("cooperation")
        .and_then(|v| v.as_mapping())
        .and_then(|c| get(c, "repository"))
        .filter(|r| (1..=128).contains(&r.chars().count()));
    Ok(Some(Mesh {
        path: path.into(),
        id: get(&m, "id").unwrap_or_default(),
        policy,
        allow: keys("allow"),
        revoked: keys("revoked"),
        repository,
    }))
}

/// The trust of a signer (its raw key, 64 hex) given the declaration and this device's key.
pub fn trust_of(key: &str, own: Option<&str>, mesh: Option<&Mesh>) -> Trust {
    if mesh.is_some_and(|m| m.revoked.iter().any(|k| k == key)) {
        return Trust::Revoked;
    }
    if own == Some(key) {
        return Trust::ThisDevice;
    }
    match mesh {
        None => Trust::Undeclared,
        Some(m) if m.allow.iter().any(|k| k == key) || m.policy == MeshPolicy::Tofu => Trust::Trusted,
        Some(_) => Trust::Untrusted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> Option<String> {
        (s.len() == 64).then(|| s.to_string())
    }

    #[test]
    fn trust_rules() {
        let a = "a".repeat(64);
        let b = "b".repeat(64);
        let text = format!("schema: mesh/v1\nkind: mesh-declaration\nid: m\nenabled: true\ntrust:\n  policy: deny_unknown\n  allow: [{a}]\n  revoked: [{b}]\n");
        let m = parse("m.yaml", &text, &id).unwrap().unwrap();
        assert_eq!(trust_of(&a, None, Some(&m)), Trust::Trusted);
        assert_eq!(trust_of(&b, Some(&b), Some(&m)), Trust::Revoked);
        assert_eq!(trust_of(&"c".repeat(64), None, Some(&m)), Trust::Untrusted);
        assert_eq!(trust_of(&a, Some(&a), None), Trust::ThisDevice);
        assert_eq!(trust_of(&a, None, None), Trust::Undeclared);
        assert!(parse("m.yaml", &text.replace("enabled: true", "enabled: false"), &id).unwrap().is_none());
        let tofu = parse("m.yaml", &text.replace("deny_unknown", "tofu"), &id).unwrap().unwrap();
        assert_eq!(trust_of(&"c".repeat(64), None, Some(&tofu)), Trust::Trusted);
    }
}
