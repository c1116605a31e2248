//! The mesh declaration and trust (docs/REFERENCE.md#mesh): which signers this repository trusts.
//! Must not touch: files (the caller reads the declaration and writes it through `store::atomic`),
//! git, stdout.

use std::collections::BTreeMap;

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
    /// `trust.revoked_at`: per revoked key, the store commit its revocation pins
    /// (docs/REFERENCE.md#mesh): the records that commit reaches are `retired`.
    pub revoked_at: BTreeMap<String, String>,
    /// `trust.labels`: the label the team gives a key (its records show it).
    pub labels: BTreeMap<String, String>,
    /// `cooperation.repository`, when declared.
    pub repository: Option<String>,
}

/// Parses one declaration; `None` unless it is an enabled `mesh/v1` declaration.
/// `normalise` turns a key as written (`RW...` minisign key or 64 hex) into 64 hex.
///
/// Fails closed (docs/REFERENCE.md#mesh): an entry of `trust.allow` or
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
        revoked_at: keyed(path, &trust, "revoked_at", normalise, &|v| {
            (v.len() == 40 || v.len() == 64) && crate::hex::is_lowercase(v)
        })?,
        labels: keyed(path, &trust, "labels", normalise, &crate::signing::valid_label)?,
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
                format!(
                    "{path}: trust.{key} entry {} ({}) is not a device key (a minisign public key RW… or 64 hex); refusing the declaration rather than dropping it",
                    i + 1,
                    shown(v)
                )
            })
        })
        .collect()
}

/// The map `trust.<key>` (`{<device key>: <value>}`), its keys normalised; an entry whose key does
/// not decode or whose value `valid` refuses is an error naming the file and the entry (no entry is
/// dropped: a revocation cut by one character must not fail open).
fn keyed(
    path: &str,
    trust: &Mapping,
    key: &str,
    normalise: &dyn Fn(&str) -> Option<String>,
    valid: &dyn Fn(&str) -> bool,
) -> Result<BTreeMap<String, String>, String> {
    let map = match trust.get(key) {
        None | Some(Value::Null) => return Ok(BTreeMap::new()),
        Some(Value::Mapping(m)) => m,
        Some(_) => return Err(format!("{path}: trust.{key} is not a map of device key to value")),
    };
    let mut out = BTreeMap::new();
    for (i, (k, v)) in map.iter().enumerate() {
        let decoded = text(k).and_then(|s| normalise(s.trim()));
        let value = text(v).filter(|s| valid(s));
        match (decoded, value) {
            (Some(k), Some(v)) => {
                out.insert(k, v.to_string());
            }
            (decoded, _) => {
                let what = if decoded.is_none() { "is not a device key" } else { "has a value that is not valid here" };
                return Err(format!(
                    "{path}: trust.{key} entry {} ({}) {what}; refusing the declaration rather than dropping it",
                    i + 1,
                    shown(k)
                ));
            }
        }
    }
    Ok(out)
}

/// An entry as an error shows it: its first 80 characters, controls as `?`.
fn shown(v: &Value) -> String {
    text(v).map_or_else(
        || "an entry that is not a key".to_string(),
        |s| {
            let s: String = s.chars().take(80).map(|c| if c.is_control() { '?' } else { c }).collect();
            format!("{s:?}")
        },
    )
}

/// A change to the enabled declaration that `continuity trust` makes (docs/REFERENCE.md#mesh).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Trust `key` (as written by the user), named `label`.
    Add {
        /// The key, as given (`RW…` or 64 hex).
        key: String,
        /// Its label in `trust.labels`.
        label: String,
    },
    /// Revoke `key` (64 hex), pinned at `pin` when given; it leaves `trust.allow`.
    Revoke {
        /// The key, 64 hex.
        key: String,
        /// The store commit the revocation pins.
        pin: Option<String>,
    },
}

/// A new declaration (`deny_unknown`) that trusts nobody yet, with id `id`.
pub fn new_declaration(id: &str) -> String {
    format!("schema: mesh/v1\nkind: mesh-declaration\nid: {id}\nenabled: true\ntrust:\n  policy: deny_unknown\n  allow: []\n  revoked: []\n")
}

/// `declaration` (an enabled one's text) with `change` made: the one writer of the trust list. The
/// file is read and written as YAML data, so comments are not kept (docs/DECISIONS.md D56);
/// every other key keeps its value and order.
pub fn edit(declaration: &str, change: &Change, normalise: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut top: Mapping = serde_yaml::from_str(declaration).map_err(|e| format!("does not parse: {e}"))?;
    let trust = top.entry(Value::from("trust")).or_insert_with(|| Value::Mapping(Mapping::new()));
    if trust.is_null() {
        *trust = Value::Mapping(Mapping::new());
    }
    let trust = trust.as_mapping_mut().ok_or("trust is not a map")?;
    let same = |v: &Value, key: &str| text(v).and_then(|s| normalise(s.trim())).as_deref() == Some(key);
    match change {
        Change::Add { key, label } => {
            let raw = normalise(key).ok_or("the key does not decode")?;
            let allow = list_mut(trust, "allow")?;
            if !allow.iter().any(|v| same(v, &raw)) {
                allow.push(Value::from(key.as_str()));
            }
            map_mut(trust, "labels")?.insert(Value::from(key.as_str()), Value::from(label.as_str()));
            // One label per key: a key written in the other form is replaced.
            let labels = map_mut(trust, "labels")?;
            let stale: Vec<Value> =
                labels.keys().filter(|k| same(k, &raw) && text(k).as_deref() != Some(key.as_str())).cloned().collect();
            for k in stale {
                labels.remove(&k);
            }
        }
        Change::Revoke { key, pin } => {
            list_mut(trust, "allow")?.retain(|v| !same(v, key));
            let revoked = list_mut(trust, "revoked")?;
            if !revoked.iter().any(|v| same(v, key)) {
                revoked.push(Value::from(key.as_str()));
            }
            if let Some(pin) = pin {
                let at = map_mut(trust, "revoked_at")?;
                let stale: Vec<Value> = at.keys().filter(|k| same(k, key)).cloned().collect();
                for k in stale {
                    at.remove(&k);
                }
                at.insert(Value::from(key.as_str()), Value::from(pin.as_str()));
            }
        }
    }
    serde_yaml::to_string(&top).map_err(|e| e.to_string())
}

/// `trust.<key>` as a list (absent, `null` or one scalar become a list).
fn list_mut<'a>(trust: &'a mut Mapping, key: &str) -> Result<&'a mut Vec<Value>, String> {
    let v = trust.entry(Value::from(key)).or_insert(Value::Null);
    if !v.is_sequence() {
        *v = match std::mem::take(v) {
            Value::Null => Value::Sequence(Vec::new()),
            Value::Mapping(_) => return Err(format!("trust.{key} is not a list")),
            one => Value::Sequence(vec![one]),
        };
    }
    v.as_sequence_mut().ok_or_else(|| format!("trust.{key} is not a list"))
}

/// `trust.<key>` as a map (absent or `null` become one).
fn map_mut<'a>(trust: &'a mut Mapping, key: &str) -> Result<&'a mut Mapping, String> {
    let v = trust.entry(Value::from(key)).or_insert(Value::Null);
    if v.is_null() {
        *v = Value::Mapping(Mapping::new());
    }
    v.as_mapping_mut().ok_or_else(|| format!("trust.{key} is not a map"))
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

    #[test]
    fn pins_and_labels_are_maps_whose_every_entry_must_decode() {
        let a = "a".repeat(64);
        let pin = "c".repeat(40);
        let head = "schema: mesh/v1\nid: m\nenabled: true\ntrust:\n  policy: deny_unknown\n";
        let text = format!("{head}  revoked: [{a}]\n  revoked_at:\n    {a}: {pin}\n  labels:\n    {a}: alice-laptop\n");
        let m = parse("m.yaml", &text, &id).unwrap().unwrap();
        assert_eq!(m.revoked_at.get(&a), Some(&pin));
        assert_eq!(m.labels.get(&a).map(String::as_str), Some("alice-laptop"));
        for (bad, names) in [
            (format!("  revoked_at:\n    {a}: not-a-commit\n"), "trust.revoked_at entry 1"),
            (format!("  revoked_at:\n    {}: {pin}\n", "b".repeat(63)), "trust.revoked_at entry 1"),
            (format!("  labels:\n    {a}: alice-laptop\n    {a}x: bob\n"), "trust.labels entry 2"),
            (format!("  labels:\n    {a}: \"two words\"\n"), "trust.labels entry 1"),
            ("  labels: [x]\n".to_string(), "trust.labels is not a map"),
        ] {
            let e = parse("m.yaml", &format!("{head}{bad}"), &id).unwrap_err();
            assert!(e.contains(names), "{e}");
        }
    }

    #[test]
    fn the_writer_adds_and_revokes_and_what_it_writes_parses_back() {
        let (a, b) = ("a".repeat(64), "b".repeat(64));
        let text = new_declaration("team");
        let text = edit(&text, &Change::Add { key: a.clone(), label: "laptop".into() }, &id).unwrap();
        let text = edit(&text, &Change::Add { key: b.clone(), label: "desktop".into() }, &id).unwrap();
        // Adding again renames; the key stays once.
        let text = edit(&text, &Change::Add { key: b.clone(), label: "desk".into() }, &id).unwrap();
        let m = parse("m.yaml", &text, &id).unwrap().unwrap();
        assert_eq!((m.allow.clone(), m.labels.get(&b).cloned()), (vec![a.clone(), b.clone()], Some("desk".into())));
        let pin = "c".repeat(40);
        let text = edit(&text, &Change::Revoke { key: a.clone(), pin: Some(pin.clone()) }, &id).unwrap();
        let m = parse("m.yaml", &text, &id).unwrap().unwrap();
        assert_eq!((m.allow, m.revoked), (vec![b.clone()], vec![a.clone()]));
        assert_eq!(m.revoked_at.get(&a), Some(&pin));
        assert_eq!(m.labels.get(&a).map(String::as_str), Some("laptop"), "the label stays with the revoked key");
        assert_eq!(trust_of(&a, None, Some(&parse("m.yaml", &text, &id).unwrap().unwrap())), Trust::Revoked);
        // Other keys keep their values and their order.
        let with_repo = format!("{}cooperation:\n  repository: shared\n", new_declaration("t"));
        let out = edit(&with_repo, &Change::Add { key: a.clone(), label: "l".into() }, &id).unwrap();
        assert!(out.starts_with("schema: mesh/v1\nkind: mesh-declaration\nid: t\nenabled: true\n"), "{out}");
        assert_eq!(parse("m.yaml", &out, &id).unwrap().unwrap().repository.as_deref(), Some("shared"));
    }
}
