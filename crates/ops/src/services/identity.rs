//! Path-free identities (docs/REFERENCE.md#identity): what a record that travels (a closed session, a continuity
//! record) says instead of a path.
//! Must not touch: a command or a query, files; a path never leaves through it.

use crate::ctx::Ctx;
use crate::error::Result;

/// BLAKE3 of `domain` ‖ `text`, first `n` bytes as lowercase hex.
pub fn digest_hex(domain: &str, text: &str, n: usize) -> String {
    let mut h = blake3::Hasher::new();
    h.update(domain.as_bytes());
    h.update(text.as_bytes());
    crate::hex::encode(&h.finalize().as_bytes()[..n])
}

/// The worktree id: first 16 hex of BLAKE3(`majordomus-worktree/v1\n` + absolute toplevel).
pub fn worktree_id(ctx: &Ctx) -> String {
    worktree_id_of(&ctx.layout.root().display().to_string())
}

/// The worktree id of the toplevel `path` (a moved checkout's earlier ones, D60).
pub fn worktree_id_of(path: &str) -> String {
    digest_hex("majordomus-worktree/v1\n", path, 8)
}

/// The continuity repository identity from the root commits of HEAD's history (32 hex), or
/// `None` for a repository without commits.
pub fn continuity_repository(ctx: &Ctx) -> Result<Option<String>> {
    let roots = ctx.git.root_commits()?;
    if roots.is_empty() {
        return Ok(None);
    }
    Ok(Some(digest_hex("majordomus-repository/v1\nroots\n", &roots.join("\n"), 16)))
}

/// Removes `user[:password]@` from a URL.
pub fn strip_credentials(url: &str) -> String {
    let (scheme, rest) = match url.find("://") {
        Some(i) => (&url[..i + 3], &url[i + 3..]),
        None => ("", url),
    };
    let host_end = rest.find('/').unwrap_or(rest.len());
    match rest[..host_end].rfind('@') {
        Some(at) if !scheme.is_empty() => format!("{scheme}{}", &rest[at + 1..]),
        _ => url.to_string(),
    }
}

/// The path-free repository id of closed session records: `remote.origin.url` (else the first
/// remote's) without credentials, else `local:<continuity repository id>`.
pub fn path_free_repository_id(ctx: &Ctx) -> Result<String> {
    let url =
        ctx.git.remote_url("origin").or_else(|| ctx.git.remote_names().first().and_then(|r| ctx.git.remote_url(r)));
    if let Some(u) = url {
        return Ok(strip_credentials(&u));
    }
    Ok(format!("local:{}", continuity_repository(ctx)?.unwrap_or_else(|| "none".into())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_stripped() {
        assert_eq!(strip_credentials("https://u:p@github.com/a/b.git"), "https://github.com/a/b.git");
        assert_eq!(strip_credentials("https://github.com/a/b.git"), "https://github.com/a/b.git");
        assert_eq!(strip_credentials("git@github.com:a/b.git"), "git@github.com:a/b.git");
        assert_eq!(strip_credentials("/srv/x.git"), "/srv/x.git");
        assert_eq!(digest_hex("d", "t", 8).len(), 16);
    }
}
