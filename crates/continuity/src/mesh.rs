//! The mesh declaration and trust (docs/REFERENCE.md#mesh): which signers this repository trusts.

use serde_yaml::Mapping;

use serde_yaml::Value;

use crate::model::vocabulary::vocabulary;
use crate::store::format::get;
use crate::store::format::yaml::text;

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
    /// Allowed keys, normalised to 64 hex raw keys (an entry that does not decode refuses the
    /// whole declaration: nothing is dropped).
    pub allow: Vec<String>,
    /// Revoked keys, normalised likewise.
    pub revoked: Vec<String>,
    /// `cooperation.repository`, when declared.
    pub repository: Option<String>,
}

/// Parses one declaration; `None` unless it is an enabled `mesh/v1` declaration.
/// `normalise` turns a key as written (`RW...` minisign key or 64 hex) into 64 hex.
///
/// Fails closed (docs/REFERENCE.md#mesh, SPEC §A.28 "Revocation"): an entry of `trust.allow` or
/// `trust.revoked` that does not decode — a key cut by one character, a mapping, a `null` — is
/// an error naming the file and the entry, never dropped (a dropped revocation would trust the
/// revoked signer under `tofu`).
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
    let keys = |k: &str| keys(path, &trust, k, normalise);
    let repository = m
        .get("cooperation")
        .and_then(|v| v.as_mapping())
        .and_then(|c| get(c, "repository"))
        .filter(|r| (1..=128).contains(&r.chars().count()));
    Ok(Some(Mesh {
        path: path.into(),
        id: get(&m, "id").unwrap_or_default(),
        policy,
        allow: keys("allow")?,
        revoked: keys("revoked")?,
        repository,
    }))
}

/// The keys listed under `trust.<key>` (a list, or one scalar), each normalised; the first entry
/// that does not decode is an error naming the file, the list and the entry's position.
fn keys(
    path: &str,
    trust: &Mapping,
    key: &str,
    normalise: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<String>, String> {
    let items: Vec<&Value> = match trust.get(key) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Sequence(s)) => s.iter().collect(),
        Some(v) => vec![v],
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            text(v).and_then(|s| normalise(s.trim())).ok_or_else(|| {
                let shown = text(v).map_or_else(|| "an entry that is not a key".to_string(), |s| {
                    let s: String = s.chars().take(80).map(|c| if c.is_control() { '?' } else { c }).collect();
                    format!("{s:?}")
                });
                format!(
                    "{path}: trust.{key} entry {} ({shown}) is not a device key (a minisign public key RW… or 64 hex); refusing the declaration rather than dropping it",
                    i + 1
                )
            })
        })
        .collect()
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

    #[test]
    fn an_entry_that_does_not_decode_refuses_the_declaration() {
        let a = "a".repeat(64);
        let cut = "b".repeat(63);
        for (list, entry) in [("revoked", cut.as_str()), ("allow", cut.as_str()), ("revoked", "{x: 1}"), ("allow", "~")]
        {
            let text =
                format!("schema: mesh/v1\nid: m\nenabled: true\ntrust:\n  policy: tofu\n  {list}: [{a}, {entry}]\n");
            let e = parse("mesh/m.yaml", &text, &id).unwrap_err();
            assert!(e.starts_with(&format!("mesh/m.yaml: trust.{list} entry 2 ")), "{e}");
        }
        // A lone scalar is a one-entry list, and it must decode too.
        let text = format!("schema: mesh/v1\nid: m\nenabled: true\ntrust:\n  revoked: {cut}\n");
        assert!(parse("m.yaml", &text, &id).unwrap_err().contains("trust.revoked entry 1"));
        // A disabled declaration is not read.
        assert!(parse("m.yaml", &text.replace("enabled: true", "enabled: false"), &id).unwrap().is_none());
        // Empty lists and absent lists are fine.
        let text = "schema: mesh/v1\nid: m\nenabled: true\ntrust:\n  allow: []\n  revoked:\n";
        assert!(parse("m.yaml", text, &id).unwrap().unwrap().revoked.is_empty());
    }
}
