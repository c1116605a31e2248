//! The commands a plan recommends, quoted for a POSIX shell.
//! Must not touch: files, git; running anything (a plan recommends, never runs).

/// `git majordomus start '<title>' --scope a,b --profile p`: the title single-quoted with `'`
/// written as `'\''`; `--scope` and `--profile` only when the record carries them.
pub fn start_command(title: &str, scope: &[String], profile: Option<&str>) -> String {
    let mut cmd = format!("git majordomus start {}", single_quote(title));
    if !scope.is_empty() {
        cmd.push_str(&format!(" --scope {}", shell_word(&scope.join(","))));
    }
    if let Some(p) = profile {
        cmd.push_str(&format!(" --profile {}", shell_word(p)));
    }
    cmd
}

/// `s` in single quotes, each `'` written as `'\''`.
pub fn single_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// `s` as it stands when it holds only characters a shell takes literally, else single-quoted.
pub fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || "._-/@%+=:,#".contains(c))
        && !s.starts_with('#');
    if plain {
        s.to_string()
    } else {
        single_quote(s)
    }
}
