//! The portability scan (docs/REFERENCE.md#admission): what must not leave this machine inside a continuity record.
//! Must not touch: the environment or files (the caller passes what it read), stdout; a found value
//! is never repeated.
//!
//! Pure: it reads a record's JSON value and, at publish, the environment and the checkout path
//! that the caller passes in. Every string value is scanned under its JSON pointer
//! (`/handover/body`, `/source/changed/1`, `/task/scope/0`, ...). A [`Leak`] names the field and
//! the kind of thing found, never the value itself.
//!
//! - [`scan_admission`] (every read of a store) applies the credential shapes and the generic path
//!   rules only, so every machine admits the same set.
//! - [`scan_publish`] adds the values of secret-named environment variables and this checkout's
//!   absolute path.
//!
//! The matchers are hand-written (no regex): a table of prefix shapes plus one small function per
//! structured shape. They lean towards precision on ordinary prose: a value assigned to a
//! secret-looking name, or following an `Authorization:` scheme, counts only when it is opaque
//! (letters *and* digits, not a path, not a timestamp).

use crate::admission::Code;
use serde::Serialize;
use serde_json::Value;
use std::fmt;

/// Code of a leak that is a credential or the value of a secret environment variable.
pub const SECRET: Code = Code::Secret;
/// Code of a leak that is a machine-specific value (absolute home, temp, socket or checkout path,
/// or a listed path that is not repository-relative).
pub const NONPORTABLE: Code = Code::NonportableField;

/// One finding of the scan.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Leak {
    /// [`SECRET`] or [`NONPORTABLE`].
    pub code: Code,
    /// JSON pointer of the string value, e.g. `/handover/body`.
    pub pointer: String,
    /// What was found (e.g. "a GitHub token"); never contains the value.
    pub reason: String,
}

impl fmt::Display for Leak {
    /// `<code> <field>: <reason>`, the line publish prints per leak (docs/REFERENCE.md#continuity-commands step 6).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.code, self.pointer, self.reason)
    }
}

/// The full scan run before publishing: credential shapes, machine paths, relative-path rules,
/// the values (≥ 8 characters) of secret-named variables of `env` (see [`is_secret_env_name`]),
/// and `checkout` (this checkout's absolute path; ignored when empty or `/`).
///
/// Leaks are sorted by pointer, then code, and deduplicated.
pub fn scan_publish(record: &Value, env: &[(String, String)], checkout: &str) -> Vec<Leak> {
    let secrets = env
        .iter()
        .filter(|(name, value)| value.chars().count() >= 8 && is_secret_env_name(name))
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let checkout = checkout.trim_end_matches(['/', '\\']);
    let checkout = (checkout.len() >= 2 && checkout.contains(['/', '\\'])).then_some(checkout);
    scan(record, Some(&Machine { secrets, checkout }))
}

/// The scan admission applies to every record read from a store: credential shapes and the
/// generic path rules only (no environment, no checkout path), so every machine admits the same
/// set.
///
/// Leaks are sorted by pointer, then code, and deduplicated.
pub fn scan_admission(record: &Value) -> Vec<Leak> {
    scan(record, None)
}

/// Whether an environment variable's value is a secret (docs/REFERENCE.md#admission): its name, split at `_`,
/// holds a word TOKEN, SECRET, PASSWORD, PASSWD, APIKEY, CREDENTIAL, COOKIE or AUTH, or a pair
/// API_KEY, PRIVATE_KEY, ACCESS_KEY; names starting `GIT_`, `XDG_`, `DBUS_`, `MAJORDOMUS_` never
/// are. Compared without regard to ASCII case.
pub fn is_secret_env_name(name: &str) -> bool {
    const EXCLUDED: [&str; 4] = ["GIT_", "XDG_", "DBUS_", "MAJORDOMUS_"];
    const WORDS: [&str; 8] = ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY", "CREDENTIAL", "COOKIE", "AUTH"];
    const PAIRS: [[&str; 2]; 3] = [["API", "KEY"], ["PRIVATE", "KEY"], ["ACCESS", "KEY"]];
    let upper = name.to_ascii_uppercase();
    if EXCLUDED.iter().any(|p| upper.starts_with(p)) {
        return false;
    }
    let words: Vec<&str> = upper.split('_').collect();
    words.iter().any(|w| WORDS.contains(w)) || words.windows(2).any(|pair| PAIRS.iter().any(|p| p == pair))
}

/// What only the publishing machine knows.
struct Machine<'a> {
    /// Secret-named variables with a long enough value.
    secrets: Vec<(&'a str, &'a str)>,
    /// This checkout's absolute path, trailing separators removed.
    checkout: Option<&'a str>,
}

/// Whether the string `text` at JSON pointer `pointer` of a record is refused at admission
/// (what [`scan_admission`] finds in it, asked one string at a time).
pub fn refused_at_admission(pointer: &str, text: &str) -> bool {
    !found_in(pointer, text, None).is_empty()
}

/// The credential shapes alone (no machine paths, no environment): the reasons of every one
/// found in `text`, for what is written into tracked files (`.ai/repo/`) rather than published.
/// A reason never holds the value.
pub fn credential_shapes_in(text: &str) -> Vec<&'static str> {
    let mut found = credential_shapes(text, &Present::of(text));
    found.sort_unstable();
    found.dedup();
    found
}

/// What `text`, the string at `pointer`, leaks: code and reason.
fn found_in(pointer: &str, text: &str, machine: Option<&Machine>) -> Vec<(Code, String)> {
    let mut found: Vec<(Code, String)> = Vec::new();
    let present = Present::of(text);
    found.extend(credential_shapes(text, &present).into_iter().map(|r| (SECRET, r.to_owned())));
    found.extend(machine_paths(text, &present).into_iter().map(|r| (NONPORTABLE, r.to_owned())));
    if is_path_list_item(pointer) {
        found.extend(relative_path_problem(text).map(|r| (NONPORTABLE, r.to_owned())));
    }
    if let Some(m) = machine {
        found.extend(
            m.secrets
                .iter()
                .filter(|(_, value)| text.contains(value))
                .map(|(name, _)| (SECRET, format!("the value of environment variable {name}"))),
        );
        if m.checkout.is_some_and(|c| contains_path(text, c)) {
            found.push((NONPORTABLE, "this checkout's absolute path".to_owned()));
        }
    }
    found
}

fn scan(record: &Value, machine: Option<&Machine>) -> Vec<Leak> {
    let mut leaks = Vec::new();
    each_string(record, &mut String::new(), &mut |pointer, text| {
        let found = found_in(pointer, text, machine);
        leaks.extend(found.into_iter().map(|(code, reason)| Leak { code, pointer: pointer.to_owned(), reason }));
    });
    leaks.sort_by(|a, b| (&a.pointer, a.code, &a.reason).cmp(&(&b.pointer, b.code, &b.reason)));
    leaks.dedup();
    leaks
}

/// Calls `f` with every string value under `v` and its JSON pointer (RFC 6901 escaping of
/// keys), built in `pointer` (one buffer for the whole walk: a record's strings cost no
/// allocation of their own).
fn each_string<'a>(v: &'a Value, pointer: &mut String, f: &mut impl FnMut(&str, &'a str)) {
    let at = pointer.len();
    match v {
        Value::String(s) => f(pointer, s),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                use std::fmt::Write as _;
                let _ = write!(pointer, "/{i}");
                each_string(item, pointer, f);
                pointer.truncate(at);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                super::record::push_pointer_key(pointer, key);
                each_string(item, pointer, f);
                pointer.truncate(at);
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Byte helpers

/// How many bytes from `from` on satisfy `ok`.
fn run(b: &[u8], from: usize, ok: impl Fn(u8) -> bool) -> usize {
    b.get(from..).map_or(0, |rest| rest.iter().take_while(|&&c| ok(c)).count())
}

/// How many bytes right before `end` satisfy `ok`.
fn run_back(b: &[u8], end: usize, ok: impl Fn(u8) -> bool) -> usize {
    b.get(..end).map_or(0, |head| head.iter().rev().take_while(|&&c| ok(c)).count())
}

/// Letters, digits, `_`, `-`, `.`: bytes that continue a name or a path segment.
fn is_name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
}

/// Bytes of a base64url segment.
fn is_b64url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-')
}

/// Bytes of an opaque credential value (token68 plus `_`).
fn is_token_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~' | b'+' | b'/' | b'=')
}

/// Bytes that can belong to a path written in text (non-ASCII included, so runs end on char
/// boundaries).
fn is_path_byte(c: u8) -> bool {
    c >= 0x80 || (c.is_ascii_graphic() && !b"\"'`<>()[]{},;|*?".contains(&c))
}

fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// Blanks and quotes around a `name: value` separator.
fn is_quote_or_blank(c: u8) -> bool {
    is_blank(c) || c == b'"' || c == b'\''
}

/// Whether `v` looks like a random credential rather than a word, an identifier, a path or a
/// timestamp: at least `min` bytes, letters and digits, not path-like, not only timestamp bytes,
/// and not code-like (every part between `.`, `_` and `-` is letters then digits, as in
/// `response.access_token2` or `v2_migration_plan`).
fn opaque(v: &[u8], min: usize) -> bool {
    // Cheapest first: most text fails on length or on letters-and-digits.
    let path_like = || {
        matches!(v.first(), Some(b'/' | b'~' | b'.' | b'$' | b'%'))
            || v.windows(3).any(|w| w == b"://")
            || (v.contains(&b'/') && v.contains(&b'.'))
    };
    let timestamp_like = || v.iter().all(|c| c.is_ascii_digit() || b"-:.+TZtz".contains(c));
    let code_like = || {
        v.split(|c| matches!(c, b'.' | b'_' | b'-')).all(|part| {
            let letters = run(part, 0, |c| c.is_ascii_alphabetic());
            part[letters..].iter().all(u8::is_ascii_digit)
        })
    };
    v.len() >= min
        && v.iter().any(u8::is_ascii_alphabetic)
        && v.iter().any(u8::is_ascii_digit)
        && !path_like()
        && !timestamp_like()
        && !code_like()
}

// ---------------------------------------------------------------------------------------------
// Credential shapes

/// Which bytes may follow a prefix.
#[derive(Clone, Copy)]
enum Charset {
    /// `[A-Za-z0-9]`
    Alnum,
    /// `[A-Z0-9]`
    UpperAlnum,
    /// `[A-Za-z0-9_]`
    Word,
    /// `[A-Za-z0-9_-]`
    Dash,
    /// `[A-Za-z0-9_/-]` (the path of a webhook URL)
    Slash,
}

impl Charset {
    fn allows(self, c: u8) -> bool {
        match self {
            Charset::Alnum => c.is_ascii_alphanumeric(),
            Charset::UpperAlnum => c.is_ascii_uppercase() || c.is_ascii_digit(),
            Charset::Word => c.is_ascii_alphanumeric() || c == b'_',
            Charset::Dash => is_b64url(c),
            Charset::Slash => is_b64url(c) || c == b'/',
        }
    }
}

/// A token shape: `prefix` at a word start, then `min..=max` bytes of `charset`, then no letter
/// or digit.
struct Shape {
    prefix: &'static str,
    min: usize,
    max: usize,
    charset: Charset,
    /// The tail must hold a digit (for prefixes that also begin ordinary words).
    needs_digit: bool,
    what: &'static str,
}

const fn shape(prefix: &'static str, min: usize, max: usize, charset: Charset, what: &'static str) -> Shape {
    Shape { prefix, min, max, charset, needs_digit: false, what }
}

const ANY: usize = usize::MAX;
const GITHUB: &str = "a GitHub token";
const SLACK: &str = "a Slack token";
const STRIPE: &str = "a Stripe live secret key";
const AWS: &str = "an AWS access key id";
const MODEL: &str = "a model-provider API key";
const WEBHOOK: &str = "a webhook URL with its secret path";

const SHAPES: &[Shape] = &[
    shape("ghp_", 30, ANY, Charset::Alnum, GITHUB),
    shape("gho_", 30, ANY, Charset::Alnum, GITHUB),
    shape("ghs_", 30, ANY, Charset::Alnum, GITHUB),
    shape("ghu_", 30, ANY, Charset::Alnum, GITHUB),
    shape("ghr_", 30, ANY, Charset::Alnum, GITHUB),
    shape("github_pat_", 30, ANY, Charset::Word, GITHUB),
    shape("glpat-", 20, ANY, Charset::Dash, "a GitLab token"),
    shape("AKIA", 16, 16, Charset::UpperAlnum, AWS),
    shape("ASIA", 16, 16, Charset::UpperAlnum, AWS),
    shape("AIza", 35, 35, Charset::Dash, "a Google API key"),
    shape("xoxa-", 10, ANY, Charset::Dash, SLACK),
    shape("xoxb-", 10, ANY, Charset::Dash, SLACK),
    shape("xoxp-", 10, ANY, Charset::Dash, SLACK),
    shape("xoxr-", 10, ANY, Charset::Dash, SLACK),
    shape("sk_live_", 16, ANY, Charset::Alnum, STRIPE),
    shape("rk_live_", 16, ANY, Charset::Alnum, STRIPE),
    shape("sk-proj-", 20, ANY, Charset::Dash, MODEL),
    shape("sk-ant-", 20, ANY, Charset::Dash, MODEL),
    Shape { prefix: "sk-", min: 32, max: ANY, charset: Charset::Dash, needs_digit: true, what: MODEL },
    Shape { prefix: "hf_", min: 30, max: ANY, charset: Charset::Alnum, needs_digit: true, what: MODEL },
    shape("npm_", 36, 36, Charset::Alnum, "an npm token"),
    shape("pypi-AgEIcHlwaS5vcmc", 40, ANY, Charset::Dash, "a PyPI token"),
    shape("GOCSPX-", 24, 40, Charset::Dash, "a Google OAuth client secret"),
    shape("SG.", 22, 22, Charset::Dash, "a SendGrid API key"),
    shape("hooks.slack.com/services/", 20, ANY, Charset::Slash, WEBHOOK),
    shape("discord.com/api/webhooks/", 20, ANY, Charset::Slash, WEBHOOK),
];

impl Shape {
    /// One pass: a prefix that starts inside the tail of an earlier one (`sk-sk-…`) shares that
    /// tail's end and last digit, so no byte is scanned twice.
    fn occurs_in(&self, text: &str) -> bool {
        let b = text.as_bytes();
        let (mut end, mut last_digit) = (0, None);
        text.match_indices(self.prefix).any(|(i, _)| {
            let start = i + self.prefix.len();
            if start > end {
                end = start + run(b, start, |c| self.charset.allows(c));
                last_digit = b[start..end].iter().rposition(u8::is_ascii_digit).map(|d| start + d);
            }
            let n = end - start;
            let word_start = i == 0 || !b[i - 1].is_ascii_alphanumeric();
            let word_end = !b.get(end).is_some_and(u8::is_ascii_alphanumeric);
            word_start
                && ((word_end
                    && (self.min..=self.max).contains(&n)
                    && (!self.needs_digit || last_digit.is_some_and(|d| d >= start)))
                    || self.wrapped(b, start, end, last_digit.is_some_and(|d| d >= start)))
        })
    }

    /// Whether the tail that starts at `start` and stops at a line end at `end` continues on the
    /// next lines into a token of the shape (a token wrapped across lines: `ghp_abc⏎def…`). The
    /// continuation starts right at the next line's beginning; its length counts only the
    /// token's bytes.
    /// `digit`: whether the tail before the line end holds a digit (known to the caller: this
    /// costs nothing unless a line end follows the tail).
    fn wrapped(&self, b: &[u8], start: usize, end: usize, digit: bool) -> bool {
        let (mut at, mut n, mut digit) = (end, end - start, digit);
        while n < self.max.min(MAX_WRAPPED) {
            let nl = match b.get(at..) {
                Some([b'\n', ..]) => 1,
                Some([b'\r', b'\n', ..]) => 2,
                _ => return false,
            };
            let k = run(b, at + nl, |c| self.charset.allows(c));
            if k == 0 {
                return false;
            }
            digit |= b[at + nl..at + nl + k].iter().any(u8::is_ascii_digit);
            n += k;
            at += nl + k;
            if !b.get(at).is_some_and(u8::is_ascii_alphanumeric)
                && (self.min..=self.max).contains(&n)
                && (!self.needs_digit || digit)
            {
                return true;
            }
        }
        false
    }
}

/// The longest token followed across line ends: a credential is shorter, and the bound keeps
/// the scan linear on `sk-x⏎sk-x⏎…`.
const MAX_WRAPPED: usize = 512;

/// A structured credential matcher: whether a text holds the shape.
type Matcher = fn(&str) -> bool;

/// The structured credential matchers, each with the reason it reports and the bytes a text
/// must hold for it to match (any one of `any`, every one of `all`).
const MATCHERS: &[(Matcher, &str, &str, &str)] = &[
    (jwt, "a JSON Web Token", "", "eyJ"),
    (pem_private_key, "a PEM private key", "", "-----BEGIN "),
    (authorization_header, "an Authorization header credential", ":=", ""),
    (netrc_password, "a .netrc password", "", "password"),
    (url_credentials, "a URL with embedded credentials", "", "://"),
    (secret_assignment, "a long opaque value assigned to a key, token, password or secret name", ":=", ""),
    (command_line_password, "a password on a command line", "", "-"),
];

/// Which byte values a text holds: a matcher whose literal needs a byte the text lacks is not
/// run (most values are ids, stamps and short words; each search has a set-up cost).
struct Present([u64; 4]);

impl Present {
    fn of(text: &str) -> Present {
        let mut p = Present([0; 4]);
        for &c in text.as_bytes() {
            p.0[usize::from(c >> 6)] |= 1 << (c & 63);
        }
        p
    }

    fn has(&self, c: u8) -> bool {
        self.0[usize::from(c >> 6)] & (1 << (c & 63)) != 0
    }

    /// Whether the text holds every byte of `all` and, when `any` is not empty, one of `any`.
    fn may_hold(&self, any: &str, all: &str) -> bool {
        (any.is_empty() || any.bytes().any(|c| self.has(c))) && all.bytes().all(|c| self.has(c))
    }
}

/// The reasons of every credential shape found in `text`, and in `text` without its invisible
/// characters when it holds any (a token split by a zero-width space is still the token).
fn credential_shapes(text: &str, present: &Present) -> Vec<&'static str> {
    let shapes = SHAPES.iter().filter(|s| present.may_hold("", s.prefix) && s.occurs_in(text)).map(|s| s.what);
    let matched =
        MATCHERS.iter().filter(|(m, _, any, all)| present.may_hold(any, all) && m(text)).map(|(_, what, _, _)| *what);
    let mut found: Vec<&'static str> = shapes.chain(matched).collect();
    // Every invisible character is encoded with a lead byte 0xC2, 0xE1, 0xE2 or 0xEF: most texts
    // hold none of them and cost no search.
    if [0xC2, 0xE1, 0xE2, 0xEF].iter().any(|&c| present.has(c)) && text.contains(INVISIBLE) {
        let visible: String = text.chars().filter(|c| !INVISIBLE.contains(c)).collect();
        for what in credential_shapes(&visible, &Present::of(&visible)) {
            if !found.contains(&what) {
                found.push(what);
            }
        }
    }
    found
}

/// Characters that show as nothing: zero-width space, non-joiner, joiner, word joiner, byte
/// order mark, soft hyphen, Mongolian vowel separator.
const INVISIBLE: &[char] = &['\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}', '\u{AD}', '\u{180E}'];

/// Three base64url segments joined by `.`, the first starting `eyJ`.
fn jwt(text: &str) -> bool {
    let b = text.as_bytes();
    text.match_indices("eyJ").any(|(i, _)| {
        if i > 0 && (is_b64url(b[i - 1]) || b[i - 1] == b'.') {
            return false;
        }
        let mut at = i;
        [10, 8, 8].iter().enumerate().all(|(k, &min)| {
            if k > 0 {
                if b.get(at) != Some(&b'.') {
                    return false;
                }
                at += 1;
            }
            let n = run(b, at, is_b64url);
            at += n;
            n >= min
        })
    })
}

/// `-----BEGIN <LABEL> PRIVATE KEY-----` (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP ... BLOCK).
fn pem_private_key(text: &str) -> bool {
    text.match_indices("-----BEGIN ").any(|(i, m)| {
        let rest = &text[i + m.len()..];
        rest.find("-----").is_some_and(|end| {
            let label = &rest[..end];
            label.len() <= 48
                && label.bytes().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' ')
                && label.contains("PRIVATE KEY")
        })
    })
}

/// `Authorization: <scheme> <opaque credential>` (any case, `:` or `=`, quotes allowed).
fn authorization_header(text: &str) -> bool {
    let b = text.as_bytes();
    text.to_ascii_lowercase().match_indices("authorization").any(|(i, m)| {
        let sep = i + m.len() + run(b, i + m.len(), is_quote_or_blank);
        if !matches!(b.get(sep), Some(b':' | b'=')) {
            return false;
        }
        let scheme_at = sep + 1 + run(b, sep + 1, is_quote_or_blank);
        let scheme = run(b, scheme_at, |c| c.is_ascii_alphabetic());
        let blanks = run(b, scheme_at + scheme, is_blank);
        let cred_at = scheme_at + scheme + blanks;
        let cred = &b[cred_at..cred_at + run(b, cred_at, is_token_byte)];
        scheme >= 3
            && blanks > 0
            && (opaque(cred, 8)
                || (b[scheme_at..scheme_at + scheme].eq_ignore_ascii_case(b"basic") && basic_pair(cred)))
    })
}

/// Whether `cred` is base64 of `user:password` (a Basic credential of letters only is not
/// opaque, but it decodes to a pair).
fn basic_pair(cred: &[u8]) -> bool {
    use base64::Engine;
    cred.len() >= 8
        && base64::engine::general_purpose::STANDARD
            .decode(cred)
            .is_ok_and(|pair| pair.iter().position(|&c| c == b':').is_some_and(|at| at > 0 && at + 1 < pair.len()))
}

/// A `.netrc` entry with a password: `machine <host>` (or `default`) followed by
/// `login|password|account|port <value>` pairs, one of them `password`.
fn netrc_password(text: &str) -> bool {
    let w: Vec<&str> = text.split_whitespace().collect();
    (0..w.len()).any(|i| {
        let mut k = match w[i] {
            "machine" => i + 2,
            "default" => i + 1,
            _ => return false,
        };
        // An entry has each of the four keywords once; a longer chain is not a .netrc entry (and
        // bounding it keeps the scan linear on `default login default login …`).
        let last = w.len().min(k + 2 * 8);
        while k + 1 < last && matches!(w[k], "login" | "password" | "account" | "port") {
            if w[k] == "password" {
                return true;
            }
            k += 2;
        }
        false
    })
}

/// `scheme://user:password@host`: a non-empty password in a URL's authority.
fn url_credentials(text: &str) -> bool {
    let b = text.as_bytes();
    text.match_indices("://").any(|(i, _)| {
        let scheme = run_back(b, i, |c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'));
        let start = i + 3;
        let len = run(b, start, |c| c.is_ascii_graphic() && !b"/?#\"'`<>()[]{},;\\".contains(&c));
        let authority = &text[start..start + len];
        scheme > 0
            && authority
                .rfind('@')
                .and_then(|at| authority[..at].split_once(':'))
                .is_some_and(|(_, password)| !password.is_empty())
    })
}

/// A password given to a command: `curl -u user:password` (or `--user`), `mysql -pPASSWORD`
/// (attached, under a MySQL or MariaDB client, or after a `-u…` option), an attached `-p` value
/// that is opaque anywhere, `docker login -p PASSWORD`, `--password=PASSWORD` and
/// `--password PASSWORD`. Near-misses stay allowed: `gcc -pthread`, `ssh -p2222`, `cp -pr`,
/// `mkdir -p`, `docker run -p 8080:80 -u 1000:1000`, `--password-stdin`, a reference (`$PASS`,
/// `%PASS%`, `<password>`), a prompt (`mysql -p` alone).
fn command_line_password(text: &str) -> bool {
    let b = text.as_bytes();
    // Where the line of the current option starts, moved forward as the scan goes (one pass).
    let (mut line_start, mut seen) = (0, 0);
    text.match_indices('-').any(|(i, _)| {
        if !matches!(b.get(i + 1), Some(b'p' | b'u' | b'-'))
            || (i > 0 && !matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'"' | b'\'' | b'(' | b'`'))
        {
            return false;
        }
        if let Some(n) = b[seen..i].iter().rposition(|&c| c == b'\n') {
            line_start = seen + n + 1;
        }
        seen = i;
        // The words before the option on its line, at most [`CLI_CONTEXT`] bytes back (a command
        // line is short; the bound keeps the scan linear on `-pX -pX …`).
        let mut from = line_start.max(i.saturating_sub(CLI_CONTEXT));
        while !text.is_char_boundary(from) {
            from += 1;
        }
        let line = &text[from..i];
        let before = || line.split_whitespace().map(|w| w.trim_matches(['"', '\'', '`', '(']));
        let command = |names: &[&str]| before().any(|w| names.contains(&w.rsplit('/').next().unwrap_or(w)));
        let attached = &b[i + 2.min(b.len() - i)..];
        let attached = &attached[..run(attached, 0, is_cli_value_byte)];
        let next_word = || {
            let at = i + 2 + run(b, i + 2, is_blank);
            let v = b.get(at..).unwrap_or_default();
            let v = v.strip_prefix(b"\"").or_else(|| v.strip_prefix(b"'")).unwrap_or(v);
            &v[..run(v, 0, is_cli_value_byte)]
        };
        match b.get(i + 1) {
            Some(b'p') if attached.is_empty() => {
                b.get(i + 2).is_some_and(|&c| is_blank(c)) && literal(next_word()) && command(&["login"])
            }
            Some(b'p') => {
                !attached.contains(&b'=')
                    && (opaque(attached, 8)
                        || (literal(attached)
                            && (command(MYSQL)
                                || (attached.len() >= 4
                                    && !attached.iter().all(u8::is_ascii_digit)
                                    && before().any(|w| w.starts_with("-u") || w == "--user")))))
            }
            Some(b'u') => {
                let v = if attached.is_empty() && b.get(i + 2).is_some_and(|&c| is_blank(c)) {
                    next_word()
                } else {
                    attached
                };
                user_password(v) && command(&["curl"])
            }
            Some(b'-') => {
                let name_at = i + 2;
                let name = &text[name_at..name_at + run(b, name_at, |c| c.is_ascii_alphanumeric() || c == b'-')];
                let end = name_at + name.len();
                let last = name.rsplit('-').next().unwrap_or("").to_ascii_lowercase();
                let user = name == "user";
                if !user && !matches!(last.as_str(), "password" | "passwd" | "pass") {
                    return false;
                }
                let value = match b.get(end) {
                    Some(b'=') => {
                        let v = &b[end + 1..];
                        let v = v.strip_prefix(b"\"").or_else(|| v.strip_prefix(b"'")).unwrap_or(v);
                        Some(&v[..run(v, 0, is_cli_value_byte)])
                    }
                    Some(&c) if is_blank(c) => {
                        let at = end + run(b, end, is_blank);
                        let v = &b[at..];
                        let v = v.strip_prefix(b"\"").or_else(|| v.strip_prefix(b"'")).unwrap_or(v);
                        let v = &v[..run(v, 0, is_cli_value_byte)];
                        // Prose names an option before a word ("pass --password to log in"): a
                        // value after a blank counts when it is not a plain word.
                        let word = v.iter().all(u8::is_ascii_alphabetic);
                        Some(v).filter(|v| v.len() >= 6 && !word)
                    }
                    _ => None,
                };
                value.is_some_and(|v| {
                    if user {
                        user_password(v) && command(&["curl", "wget"])
                    } else {
                        literal(v) && v.len() >= 4
                    }
                })
            }
            _ => false,
        }
    })
}

/// How far back on its line [`command_line_password`] looks for the command an option belongs to.
const CLI_CONTEXT: usize = 128;

/// The MySQL and MariaDB clients, whose `-p` takes its password attached.
const MYSQL: &[&str] = &[
    "mysql",
    "mysqldump",
    "mysqladmin",
    "mysqlimport",
    "mysqlshow",
    "mysqlcheck",
    "mysqlsh",
    "mariadb",
    "mariadb-dump",
];

/// Bytes of a value written on a command line (up to a blank, a quote or a shell operator).
fn is_cli_value_byte(c: u8) -> bool {
    c.is_ascii_graphic() && !b"\"'`;|&()<>".contains(&c)
}

/// A value written out, not a reference (`$X`, `${X}`, `%X%`), a placeholder (`<…>`, `***`,
/// `xxx`, `...`) or another option.
fn literal(v: &[u8]) -> bool {
    !v.is_empty() && !matches!(v[0], b'$' | b'%' | b'<' | b'{' | b'-') && !v.iter().all(|c| b"*xX.".contains(c))
}

/// `user:password` with both parts present and the password written out.
fn user_password(v: &[u8]) -> bool {
    v.iter().position(|&c| c == b':').is_some_and(|at| at > 0 && literal(&v[at + 1..]))
}

/// The longest value [`secret_assignment`] reads after one separator: a credential is shorter,
/// and the bound keeps the scan linear on `token=token=token=…`.
const MAX_ASSIGNED: usize = 128;

/// `<name> = <value>` or `<name>: <value>` (quotes allowed) where the name is a key, token,
/// password or secret name and the value is opaque and at least 16 bytes; or an environment-style
/// `NAME=value` (upper-case name, no blanks, see [`env_style_value`]).
fn secret_assignment(text: &str) -> bool {
    let b = text.as_bytes();
    b.iter().enumerate().filter(|(_, &c)| c == b':' || c == b'=').any(|(i, _)| {
        let name_end = i - run_back(b, i, is_quote_or_blank);
        let name_start = name_end - run_back(b, name_end, is_name_byte);
        if name_start == name_end || !is_secret_name(&text[name_start..name_end]) {
            return false;
        }
        let value_at = i + 1 + run(b, i + 1, |c| is_quote_or_blank(c) || matches!(c, b'=' | b'>' | b':'));
        let value_byte = |c: u8| c.is_ascii_graphic() && !b"\"'`,;()[]{}<>".contains(&c);
        let len = b[value_at..].iter().take(MAX_ASSIGNED).take_while(|&&c| value_byte(c)).count();
        let value = &b[value_at..value_at + len];
        let env_style = b[i] == b'=' && name_end == i && value_at == i + 1 && is_env_name(&b[name_start..name_end]);
        opaque(value, 16) || (env_style && env_style_value(value))
    })
}

/// An environment variable's name: upper-case letters, digits and `_`, starting with a letter.
fn is_env_name(name: &[u8]) -> bool {
    name.first().is_some_and(u8::is_ascii_uppercase)
        && name.iter().all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
}

/// The value of `DB_PASSWORD=…` in a `.env` file or a shell line: 8 bytes or more, not a
/// reference (`$X`, `${X}`, `%X%`), a placeholder (`<…>`, `***`, `xxx…`), a path or a URL.
fn env_style_value(v: &[u8]) -> bool {
    let placeholder = v.iter().all(|&c| c == b'*' || c == b'x' || c == b'X' || c == b'.');
    let path_like = matches!(v.first(), Some(b'/' | b'~' | b'.' | b'$' | b'%')) || v.windows(3).any(|w| w == b"://");
    v.len() >= 8 && !placeholder && !path_like && v.iter().any(u8::is_ascii_alphanumeric)
}

/// Whether an assigned-to name is a secret name: its last word (split at `_`, `-`, `.` and
/// camelCase) is a secret word, or its last two words are a `<qualifier> key` pair.
fn is_secret_name(name: &str) -> bool {
    const WORDS: [&str; 12] = [
        "token",
        "secret",
        "password",
        "passwd",
        "pass",
        "pwd",
        "passphrase",
        "apikey",
        "credential",
        "credentials",
        "auth",
        "cookie",
    ];
    const KEY_QUALIFIERS: [&str; 9] =
        ["api", "private", "access", "secret", "signing", "encryption", "client", "master", "account"];
    let words = name_words(name);
    match words.as_slice() {
        [.., last] if WORDS.contains(&last.as_str()) => true,
        [.., qualifier, key] => key == "key" && KEY_QUALIFIERS.contains(&qualifier.as_str()),
        _ => false,
    }
}

/// Lowercase words of an identifier, split at `_`, `-`, `.` and lower-to-upper case changes.
fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        let split = matches!(c, '_' | '-' | '.');
        if (split || (c.is_ascii_uppercase() && prev_lower)) && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        if !split {
            word.push(c.to_ascii_lowercase());
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

// ---------------------------------------------------------------------------------------------
// Paths

const HOME: &str = "an absolute home path";
const TEMP: &str = "a temporary directory path";
const SOCKET: &str = "a socket path";

/// Whether an absolute path can start at byte `i` of `text`: not in the middle of a relative
/// path, a word or a variable (`src/home/...`, `~/tmp/...`, `$HOME/...`), but after `://`.
fn path_starts_at(text: &str, i: usize) -> bool {
    let b = text.as_bytes();
    i == 0
        || !(is_name_byte(b[i - 1]) || matches!(b[i - 1], b'/' | b'~' | b'\\' | b'$' | b'%' | b'}'))
        || text[..i].ends_with("://")
}

/// Whether a path ends at byte `j`: not followed by more of a file name (`.` ends a sentence).
fn path_ends_at(b: &[u8], j: usize) -> bool {
    match b.get(j) {
        None => true,
        Some(&c) => {
            !(c.is_ascii_alphanumeric()
                || c == b'_'
                || c == b'-'
                || (c == b'.' && b.get(j + 1).is_some_and(u8::is_ascii_alphanumeric)))
        }
    }
}

/// Whether `text` holds the path `path` as a whole path (not a prefix of a longer name).
fn contains_path(text: &str, path: &str) -> bool {
    text.match_indices(path).any(|(i, _)| path_starts_at(text, i) && path_ends_at(text.as_bytes(), i + path.len()))
}

/// The reasons of the absolute home, temp and socket paths in `text`.
fn machine_paths(text: &str, present: &Present) -> Vec<&'static str> {
    const RULES: [(&[&str], &str); 3] = [
        (&["/Users/", "/home/", "/root/"], HOME),
        (&["/tmp/", "/var/tmp/", "/var/folders/", "/private/var/", "/private/tmp/"], TEMP),
        (&["/run/", "/var/run/"], SOCKET),
    ];
    let b = text.as_bytes();
    let mut found = Vec::new();
    let mut add = |what: &'static str| {
        if !found.contains(&what) {
            found.push(what);
        }
    };
    // A path that starts inside an earlier one (`PATH=/usr/bin:/home/u/bin`) ends where it ends,
    // so the run and its `.sock` ending are computed once per run: one pass over the text.
    let (mut end, mut sock_at) = (0, None);
    for (i, _) in text.match_indices('/').filter(|&(i, _)| path_starts_at(text, i)) {
        if i >= end {
            end = i + run(b, i, is_path_byte);
            let trimmed = text[i..end].trim_end_matches(['.', ':']);
            sock_at = trimmed.ends_with(".sock").then(|| i + trimmed.len() - ".sock".len());
        }
        let path = &text[i..end];
        for (prefixes, what) in RULES {
            if prefixes.iter().any(|p| path.len() > p.len() && path.starts_with(p)) {
                add(what);
            }
        }
        if sock_at.is_some_and(|at| at >= i) {
            add(SOCKET);
        }
    }
    if !present.may_hold("/\\", ":") {
        return found;
    }
    let lower = text.to_ascii_lowercase();
    for pattern in [":\\users\\", ":/users/"] {
        let drive_home = |i: usize| {
            i >= 1
                && b[i - 1].is_ascii_alphabetic()
                && (i < 2 || !is_name_byte(b[i - 2]))
                && b.get(i + pattern.len()).is_some_and(|&c| is_path_byte(c))
        };
        if lower.match_indices(pattern).any(|(i, _)| drive_home(i)) {
            add(HOME);
        }
    }
    found
}

/// Whether `pointer` is an item of `/source/changed` or `/task/scope`.
fn is_path_list_item(pointer: &str) -> bool {
    ["/source/changed/", "/task/scope/"]
        .iter()
        .filter_map(|list| pointer.strip_prefix(list))
        .any(|index| !index.is_empty() && index.bytes().all(|c| c.is_ascii_digit()))
}

/// Why `p` is not a repository-relative path, if it is not.
fn relative_path_problem(p: &str) -> Option<&'static str> {
    if p.is_empty() {
        Some("an empty path where a repository-relative path is required")
    } else if p.starts_with('/') {
        Some("an absolute path where a repository-relative path is required")
    } else if p.starts_with('~') {
        Some("a home-relative path where a repository-relative path is required")
    } else if p.contains('\\') {
        Some("a backslash in a repository-relative path")
    } else if p.contains(':') {
        Some("a colon in a repository-relative path")
    } else if p.split('/').any(|segment| segment == "..") {
        Some("a .. segment in a repository-relative path")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Device, HandoverPart, Record, Source, TaskIntent, SCHEMA};
    use serde_json::json;

    /// A realistic, clean record.
    fn record() -> Record {
        Record {
            schema: SCHEMA.into(),
            repository: "0123456789abcdef0123456789abcdef".into(),
            device: Device { node: "fedcba9876543210fedcba9876543210".into(), label: "macbook-pro".into() },
            session: Some("20260903T200000Z-4f2a".into()),
            episode: "open".into(),
            line: Some("ab".repeat(32)),
            parent: Some("cd".repeat(32)),
            published_at: "2026-09-03T20:00:00Z".into(),
            producer: "git-majordomus/0.1.0".into(),
            source: Source {
                branch: Some("feature/auth-callback".into()),
                head: Some("4b825dc642cb6eb9a060e54bf8d69288fbee4904".into()),
                working_tree: "dirty".into(),
                changed: vec![
                    "lib/auth/callback.rs".into(),
                    "src/home/page.rs".into(),
                    "docs/tmp/notes.md".into(),
                    "sockets/app.sock".into(),
                ],
                changed_total: 4,
                fingerprint: Some("0123456789abcdef0123456789abcdef".into()),
            },
            task: Some(TaskIntent {
                id: "auth-callback".into(),
                title: "Rotate the session token on login".into(),
                profile: Some("default".into()),
                scope: vec!["lib/auth".into(), ".".into()],
                outcome: None,
            }),
            decisions: vec![],
            questions: vec![],
            ends: Vec::new(),
            handover: HandoverPart {
                id: "00".repeat(16),
                task: Some("auth-callback".into()),
                issue: Some("#184".into()),
                milestone: None,
                branch: Some("feature/auth-callback".into()),
                head: Some("4b825dc642cb6eb9a060e54bf8d69288fbee4904".into()),
                created_at: Some("2026-09-03T19:55:12Z".into()),
                name: Some("20260903T195512Z--handover.md".into()),
                body: PROSE.into(),
                citations: Vec::new(),
            },
        }
    }

    const PROSE: &str = "# Objective\n\
        Rotate the session token after login; the token must never be logged.\n\
        The refresh token flow lives in lib/auth/callback.rs and src/auth/token_store.rs.\n\
        Commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904 fixed it; record \
        abababababababababababababababababababababababababababababababab continues it.\n\
        Token: rotated on every login. token_expires_at: 2026-09-03T20:00:00Z\n\
        Authorization: Bearer <token> is sent by the client; Authorization: Basic authentication is off.\n\
        Headers use `Authorization: Bearer ${GITHUB_TOKEN}`; password = ${DB_PASSWORD}; api_key: <your key here>.\n\
        See https://github.com/org/repo/pull/12 and git@github.com:org/repo.git and ssh://git@host/x.git.\n\
        Keep the task-scoped risk-averse approach; the desk-sk-proj path is fine. Paths: ../shared, ~/notes.\n\
        A machine learning login password is not a netrc line. Run at 2026-09-03T20:00:00+02:00.\n\
        The cache key: 4b825dc642cb6eb9a060e54bf8d69288fbee4904 and key id: 0123456789abcdef.\n\
        Tokens: lib/auth/oauth2_callback.rs; auth: src/auth/v2/mod.rs; secret: MY_DEPLOY_TOKEN_VALUE\n\
        -----BEGIN PUBLIC KEY----- is fine, and so is -----BEGIN CERTIFICATE-----.\n";

    fn value() -> Value {
        serde_json::to_value(record()).unwrap()
    }

    /// The record with `body` as its handover body.
    fn with_body(body: &str) -> Value {
        let mut v = value();
        v["handover"]["body"] = Value::from(body);
        v
    }

    /// The reasons reported for `/handover/body` by admission, with the value checked absent.
    fn body_reasons(body: &str, secret: &str) -> Vec<(Code, String)> {
        let leaks = scan_admission(&with_body(body));
        assert_not_echoed(&leaks, secret);
        leaks.into_iter().filter(|l| l.pointer == "/handover/body").map(|l| (l.code, l.reason)).collect()
    }

    fn assert_not_echoed(leaks: &[Leak], secret: &str) {
        for l in leaks {
            assert!(!l.reason.contains(secret) && !l.to_string().contains(secret), "{l} echoes the value");
            assert!(!serde_json::to_string(l).unwrap().contains(secret));
        }
    }

    fn assert_secret(body: &str, secret: &str, what: &str) {
        let reasons = body_reasons(body, secret);
        assert!(reasons.contains(&(SECRET, what.to_owned())), "{what} not found in {body:?}: {reasons:?}");
    }

    fn assert_nonportable(body: &str, what: &str) {
        let reasons = body_reasons(body, "\u{0}");
        assert!(reasons.contains(&(NONPORTABLE, what.to_owned())), "{what} not found in {body:?}: {reasons:?}");
    }

    /// Test tokens are assembled at run time so this file holds no credential-shaped literal.
    fn tok(prefix: &str, tail: &str, n: usize) -> String {
        let tail: String = tail.chars().cycle().take(n).collect();
        format!("{prefix}{tail}")
    }

    #[test]
    fn a_clean_realistic_record_has_no_leak() {
        assert_eq!(scan_admission(&value()), vec![]);
        let env = vec![
            ("HOME".into(), "/Users/alice".into()),
            ("GIT_TOKEN_HELPER".into(), "some-helper-value".into()),
            ("LANG".into(), "en_US.UTF-8".into()),
        ];
        assert_eq!(scan_publish(&value(), &env, "/work/main"), vec![]);
    }

    #[test]
    fn prose_about_tokens_is_not_a_secret() {
        for body in [
            "the token is refreshed; pass a token to the API and the password prompt appears",
            "GITHUB_TOKEN=$GITHUB_TOKEN and TOKEN: ${{ secrets.TOKEN }}",
            "password: correct horse battery staple",
            "api_key = \"YOUR_API_KEY_GOES_HERE\"",
            "secret_key: ~/.config/majordomus/key2.json",
            "access_token = response.access_token2",
            "token_url: https://auth.example.com/oauth2/token",
            "eyJhbGciOi is the start of a header, not a token",
            "sk-learn and risk-0123456789abcdefghijklmnopqrstuvwxyz",
            "ghp_short and AKIA_SOMETHING and AKIAlowercase000000000",
        ] {
            assert_eq!(body_reasons(body, "\u{0}"), vec![], "{body}");
        }
    }

    #[test]
    fn ids_shas_and_timestamps_are_not_secrets() {
        let sha = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
        let id = "ab".repeat(32);
        let body = format!("head {sha}\nparent: {id}\nline={id}\nat 2026-09-03T20:00:00Z\ntoken_issued: 2026-09-03T20:00:00.123+02:00\n");
        assert_eq!(body_reasons(&body, "\u{0}"), vec![]);
    }

    #[test]
    fn github_tokens() {
        for p in ["ghp_", "gho_", "ghs_", "ghu_"] {
            let t = tok(p, "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYz12", 36);
            assert_secret(&format!("use {t} for CI"), &t, GITHUB);
        }
        let t = tok("github_pat_", "11ABCDEFG0_abcdefghijklmnop", 82);
        assert_secret(&format!("pat={t}"), &t, GITHUB);
    }

    #[test]
    fn gitlab_aws_google_slack_stripe() {
        let cases = [
            (tok("glpat-", "xY9_zW8-vU7tS6rQ5pO4", 20), "a GitLab token"),
            (tok("AKIA", "IOSFODNN7EXAMPLE", 16), AWS),
            (tok("ASIA", "Q2W3E4R5T6Y7U8I9", 16), AWS),
            (tok("AIza", "SyA-1b2C3d4E5f6G7h8I9j0K_lMnOpQrStU", 35), "a Google API key"),
            (tok("xoxb-", "1234567890-abcdefABCDEF", 40), SLACK),
            (tok("xoxp-", "9876-5432-zyx", 30), SLACK),
            (tok("xoxa-", "2-abcdef012345", 14), SLACK),
            (tok("xoxr-", "r3fr35h70k3n", 24), SLACK),
            (tok("sk_live_", "4eC39HqLyjWDarjtT1zdp7dc", 24), STRIPE),
            (tok("rk_live_", "51H8abcDEF0123456789", 30), STRIPE),
        ];
        for (t, what) in cases {
            assert_secret(&format!("value \"{t}\" here"), &t, what);
        }
    }

    #[test]
    fn model_provider_keys() {
        for t in [
            tok("sk-proj-", "Ab_cD-eF", 48),
            tok("sk-ant-api03-", "xYz987-Q_w", 90),
            tok("sk-", "T3BlbkFJ0aB1cD2eF3gH4iJ5", 48),
        ] {
            assert_secret(&format!("export OPENAI={t}\n"), &t, MODEL);
        }
    }

    #[test]
    fn jwt_pem_authorization_netrc_url() {
        let jwt = format!(
            "{}.{}.{}",
            tok("eyJ", "hbGciOiJIUzI1NiJ9", 17),
            tok("eyJ", "zdWIiOiIxMjM0NTY3ODkwIn0", 24),
            tok("", "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", 43)
        );
        assert_secret(&format!("cookie {jwt}"), &jwt, "a JSON Web Token");
        for label in
            ["RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY"]
        {
            let pem = format!("-----BEGIN {label}-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END {label}-----");
            assert_secret(&pem, "b3BlbnNzaC1rZXktdjEAAAAA", "a PEM private key");
        }
        let bearer = "dXNlcjpwYXNz0w9x.Q1w2";
        assert_secret(
            &format!("curl -H 'Authorization: Bearer {bearer}' x"),
            bearer,
            "an Authorization header credential",
        );
        assert_secret(&format!("\"authorization\": \"token {bearer}\""), bearer, "an Authorization header credential");
        let pw = "hunter2";
        assert_secret(&format!("machine api.example.com login alice password {pw}\n"), pw, "a .netrc password");
        assert_secret(&format!("machine example.com\n  login bob\n  password {pw}\n"), pw, "a .netrc password");
        assert_secret(
            &format!("remote https://alice:{pw}@example.com/repo.git"),
            pw,
            "a URL with embedded credentials",
        );
        assert_secret(&format!("DATABASE_URL=postgres://app:{pw}@db:5432/app"), pw, "a URL with embedded credentials");
    }

    #[test]
    fn opaque_values_assigned_to_secret_names() {
        const WHAT: &str = "a long opaque value assigned to a key, token, password or secret name";
        let v = "q8Zr3vN1xK7mP2sT9wY4";
        for body in [
            format!("api_key = \"{v}\""),
            format!("TOKEN: {v}"),
            format!("\"client_secret\": \"{v}\""),
            format!("export DB_PASSWORD={v}"),
            format!("apiKey: '{v}'"),
            format!("X-Auth-Token: {v}"),
            format!("config.private_key := {v}"),
        ] {
            assert_secret(&body, v, WHAT);
        }
        let seed = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert_secret(&format!("\"secret_key\": \"{seed}\""), seed, WHAT);
        // Too short, or the name's last word is not a secret word.
        assert_eq!(body_reasons("token: a1b2c3d4e5", "\u{0}"), vec![]);
        assert_eq!(body_reasons(&format!("token_file: {v}"), "\u{0}"), vec![]);
    }

    #[test]
    fn command_line_passwords() {
        const CLI: &str = "a password on a command line";
        for (body, secret) in [
            ("curl -u admin:S3cr3tPass123 https://api.example.com", "S3cr3tPass123"),
            ("curl --user 'admin:hunter2' https://x", "hunter2"),
            ("curl -uadmin:hunter2 https://x", "hunter2"),
            ("mysql -h db -pWr0ngH0rse app", "Wr0ngH0rse"),
            ("/usr/bin/mysql -pshort app", "short"),
            ("mysqldump -uroot -pS3cr3t app", "S3cr3t"),
            ("run `-uroot -pS3cr3t` against it", "S3cr3t"),
            ("tool -pQ8zr3vN1xK7m", "Q8zr3vN1xK7m"),
            ("docker login -u ci -p dckr9Xq2LmZ7 registry", "dckr9Xq2LmZ7"),
            ("docker login -p \"hunter2\" registry", "hunter2"),
            ("psql --password=Tr0ub4dor3", "Tr0ub4dor3"),
            ("wget --http-password=hunter22 https://x", "hunter22"),
            ("app --db-pass hunter2! start", "hunter2!"),
        ] {
            assert_secret(body, secret, CLI);
        }
        for body in [
            "gcc -pthread -O2 -o app main.c",
            "ssh -p2222 deploy@host and ssh -p 2222 host",
            "cp -pr src dst && mkdir -p build && git log -p",
            "docker run -p 8080:80 -u 1000:1000 image",
            "docker login -u ci --password-stdin registry",
            "curl -u $USER:$TOKEN https://x and curl -u admin https://x",
            "mysql -uroot -p app and mysql -p",
            "pass --password to log in; --password=<secret>; --password=$PW",
            "gcc -print-file-name=libc.so -platform_version macos 11.0",
            "- [unresolved] t-1 — a question (2026-01-01)",
            "docker login -p $TOKEN registry",
        ] {
            assert_eq!(body_reasons(body, "\u{0}"), vec![], "{body}");
        }
    }

    #[test]
    fn env_style_pass_and_pwd_names() {
        const WHAT: &str = "a long opaque value assigned to a key, token, password or secret name";
        assert_secret("DB_PASS=S3cr3tP4ssw0rdValue", "S3cr3tP4ssw0rdValue", WHAT);
        assert_secret("export SMTP_PWD=q8Zr3vN1xK", "q8Zr3vN1xK", WHAT);
        for body in ["PWD=/srv/app", "DB_PASS=$DB_PASS", "bypass: q8Zr3vN1xK7mP2sT9wY4", "ALL_TESTS_PASS=yes"] {
            assert_eq!(body_reasons(body, "\u{0}"), vec![], "{body}");
        }
    }

    #[test]
    fn invisible_characters_and_line_wraps_do_not_hide_a_token() {
        let t = tok("ghp_", "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYz12", 36);
        for zw in ['\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}', '\u{AD}'] {
            let split = format!("use {}{zw}{} now", &t[..12], &t[12..]);
            assert_secret(&split, &t[12..], GITHUB);
            let prefix = format!("use g{zw}hp_{} now", &t[4..]);
            assert_secret(&prefix, &t[4..], GITHUB);
        }
        for nl in ["\n", "\r\n"] {
            let wrapped = format!("token {}{nl}{}\nnext line", &t[..20], &t[20..]);
            assert_secret(&wrapped, &t[20..], GITHUB);
            let thrice = format!("{}{nl}{}{nl}{}", &t[..10], &t[10..20], &t[20..]);
            assert_secret(&thrice, &t[20..], GITHUB);
        }
        // A fixed-length key followed by a word on the next line is still the key; a short
        // prefix-named word followed by text is no token.
        let aws = tok("AKIA", "IOSFODNN7EXAMPLE", 16);
        assert_secret(&format!("{aws}\nNext"), &aws, AWS);
        for body in ["tokens start with ghp_\nand gho_", "ghp_abc\ndef", "sk-learn\nmodel"] {
            assert_eq!(body_reasons(body, "\u{0}"), vec![], "{body:?}");
        }
        // The shapes alone, for tracked files.
        assert_eq!(credential_shapes_in(&format!("x {t} and /home/u/x")), vec![GITHUB]);
    }

    #[test]
    fn command_lines_scan_in_linear_time() {
        for unit in [
            " -p",
            " -u",
            " --pass",
            " -pS3",
            "mysql -p\u{e9}",
            " -uX -pXyZw",
            " --user a:b",
            "\n-p x",
            "sk-x\n",
            "ghp_a\r\n",
            "AKIA\n",
        ] {
            let text = unit.repeat(200_000 / unit.len());
            let started = std::time::Instant::now();
            let _ = credential_shapes_in(&text);
            assert!(started.elapsed() < std::time::Duration::from_secs(5), "{unit:?}: {:?}", started.elapsed());
        }
        assert!(credential_shapes_in("/home/u/x and /tmp/y").is_empty());
    }

    #[test]
    fn home_temp_and_socket_paths() {
        for (body, what) in [
            ("log at /Users/alice/project/x.log", HOME),
            ("cd /home/bob/src && make", HOME),
            ("(/root/.cargo/bin)", HOME),
            ("C:\\Users\\carol\\repo", HOME),
            ("D:/users/dave/repo", HOME),
            ("file:///home/erin/notes.md", HOME),
            ("PATH=/usr/bin:/home/frank/bin", HOME),
            ("wrote /tmp/majordomus-1234/out.json", TEMP),
            ("/var/folders/xy/abc123/T/tmp.x", TEMP),
            ("at /private/var/db/x", TEMP),
            ("the agent at /run/user/1000/gnupg/S.gpg-agent", SOCKET),
            ("DOCKER_HOST=unix:///var/run/docker.sock", SOCKET),
            ("ssh-agent at /opt/agent.sock.", SOCKET),
        ] {
            assert_nonportable(body, what);
        }
    }

    #[test]
    fn ordinary_relative_paths_are_portable() {
        for body in [
            "src/home/page.rs docs/tmp/notes.md sockets/app.sock lib/auth/callback.rs",
            "~/tmp/x $HOME/tmp/x ${TMPDIR}/tmp/x ../home/x",
            "/home and /tmp are directories",
            "https://example.com/home/user/x",
        ] {
            assert_eq!(body_reasons(body, "\u{0}"), vec![], "{body}");
        }
    }

    #[test]
    fn listed_paths_must_be_repository_relative() {
        let cases = [
            ("", "an empty path where a repository-relative path is required"),
            ("/etc/hosts", "an absolute path where a repository-relative path is required"),
            ("~/notes.md", "a home-relative path where a repository-relative path is required"),
            ("src\\lib.rs", "a backslash in a repository-relative path"),
            ("C:lib.rs", "a colon in a repository-relative path"),
            ("src/../../etc", "a .. segment in a repository-relative path"),
            ("..", "a .. segment in a repository-relative path"),
        ];
        for (path, reason) in cases {
            let mut v = value();
            v["source"]["changed"][1] = Value::from(path);
            v["task"]["scope"][0] = Value::from(path);
            let leaks = scan_admission(&v);
            for pointer in ["/source/changed/1", "/task/scope/0"] {
                assert!(
                    leaks.contains(&Leak { code: NONPORTABLE, pointer: pointer.into(), reason: reason.into() }),
                    "{path}: {leaks:?}"
                );
            }
        }
        // The same values elsewhere are not subject to the relative-path rules.
        let leaks = scan_admission(
            &json!({ "task": { "title": "src/../x", "scope_note": "C:x" }, "source": { "changed_total": 1 } }),
        );
        assert_eq!(leaks, vec![]);
    }

    #[test]
    fn secret_env_names() {
        for name in [
            "MY_DEPLOY_TOKEN",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
            "FTP_PASSWD",
            "OPENAI_APIKEY",
            "GCP_CREDENTIAL",
            "SESSION_COOKIE",
            "NPM_AUTH",
            "AUTH",
            "OPENAI_API_KEY",
            "SSH_PRIVATE_KEY",
            "AWS_ACCESS_KEY",
            "my_deploy_token",
        ] {
            assert!(is_secret_env_name(name), "{name}");
        }
        for name in [
            "GIT_ASKPASS_TOKEN",
            "XDG_SECRET_DIR",
            "DBUS_SESSION_AUTH",
            "MAJORDOMUS_TOKEN",
            "HOME",
            "TOKENIZER_PATH",
            "AUTHOR",
            "KEY",
            "API",
            "KEY_API_PRIVATE",
            "AUTHORITY_URL",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "PUBLIC_KEY",
        ] {
            assert!(!is_secret_env_name(name), "{name}");
        }
    }

    #[test]
    fn env_values_are_checked_at_publish_only() {
        let secret = "s3cr3t-deploy-value";
        let v = with_body(&format!("deploy with {secret} tomorrow"));
        let env = vec![
            ("MY_DEPLOY_TOKEN".to_owned(), secret.to_owned()),
            ("SHORT_TOKEN".to_owned(), "deploy".to_owned()),
            ("GIT_TOKEN".to_owned(), secret.to_owned()),
            ("EDITOR".to_owned(), "tomorrow-vim".to_owned()),
        ];
        let leaks = scan_publish(&v, &env, "/work/main");
        assert_eq!(
            leaks,
            vec![Leak {
                code: SECRET,
                pointer: "/handover/body".into(),
                reason: "the value of environment variable MY_DEPLOY_TOKEN".into()
            }]
        );
        assert_not_echoed(&leaks, secret);
        assert_eq!(scan_admission(&v), vec![]);
        for (name, value) in [("DB_API_KEY", "3cr3t-de"), ("AUTH", "tomorrow")] {
            let leaks = scan_publish(&v, &[(name.to_owned(), value.to_owned())], "");
            assert_eq!(leaks.len(), 1, "{name}: {leaks:?}");
            assert_not_echoed(&leaks, value);
        }
    }

    #[test]
    fn checkout_path_is_checked_at_publish_only() {
        let v = with_body(
            "built in /work/main/target; /work/main2 and /other/work/main are other paths; src/work/main too",
        );
        let leaks = scan_publish(&v, &[], "/work/main/");
        assert_eq!(
            leaks,
            vec![Leak {
                code: NONPORTABLE,
                pointer: "/handover/body".into(),
                reason: "this checkout's absolute path".into()
            }]
        );
        assert_eq!(scan_admission(&v), vec![]);
        let v = with_body("only /work/main2/x and /work/mainline");
        assert_eq!(scan_publish(&v, &[], "/work/main"), vec![]);
        assert_eq!(
            scan_publish(&with_body("at /work/main."), &[], "/work/main"),
            scan_publish(&with_body("at /work/main"), &[], "/work/main")
        );
        assert_eq!(scan_publish(&with_body("anything / at all"), &[], "/"), vec![]);
    }

    #[test]
    fn scenario_826_publish_refusal_lines() {
        let token = tok("ghp_", "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa", 36);
        let env_secret = "deploy-0f9e8d7c6b5a";
        let body = format!("# Objective\nship it with {token} and {env_secret}\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\nlogs in /home/alice/work/x.log\n");
        let mut v = with_body(&body);
        v["task"]["title"] = Value::from(format!("deploy {token}"));
        v["source"]["changed"][1] = Value::from("/home/alice/x");
        let env = vec![("MY_DEPLOY_TOKEN".to_owned(), env_secret.to_owned())];
        let leaks = scan_publish(&v, &env, "/work/main");
        let lines: Vec<String> = leaks.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "continuity.nonportable_field /handover/body: an absolute home path",
                "continuity.secret /handover/body: a GitHub token",
                "continuity.secret /handover/body: a PEM private key",
                "continuity.secret /handover/body: the value of environment variable MY_DEPLOY_TOKEN",
                "continuity.nonportable_field /source/changed/1: an absolute home path",
                "continuity.nonportable_field /source/changed/1: an absolute path where a repository-relative path is required",
                "continuity.secret /task/title: a GitHub token",
            ]
        );
        for secret in [token.as_str(), env_secret, "/home/alice"] {
            assert_not_echoed(&leaks, secret);
        }
    }

    #[test]
    fn leaks_are_sorted_and_deduplicated() {
        let a = tok("ghp_", "a1B2c3D4e5", 36);
        let b = tok("gho_", "Q9w8E7r6T5", 40);
        let v =
            json!({ "z": format!("{a} {b} {a}"), "a": [format!("/tmp/x /tmp/y {a}")], "handover": { "body": "ok" } });
        let leaks = scan_admission(&v);
        let keys: Vec<(&str, Code, &str)> =
            leaks.iter().map(|l| (l.pointer.as_str(), l.code, l.reason.as_str())).collect();
        assert_eq!(keys, [("/a/0", NONPORTABLE, TEMP), ("/a/0", SECRET, GITHUB), ("/z", SECRET, GITHUB)]);
    }

    #[test]
    fn edges_and_multibyte_text_never_panic() {
        let edges = [
            "",
            ":",
            "=",
            "://",
            "eyJ",
            "eyJaaaaaaaaaa.",
            "-----BEGIN ",
            "authorization",
            "Authorization:",
            "Authorization: Bearer",
            "C:",
            ":\\users\\x",
            ":/users/x",
            "machine",
            "machine h password",
            "token=",
            "é/home/é",
            "ключ: значение/tmp/é",
            "é:/Users/é",
            "/",
            "x.sock",
            "/é.sock",
            "ghp_",
            "AKIA",
        ];
        for text in edges {
            let _ = scan_publish(
                &json!({ "source": { "changed": [text] }, "s": text }),
                &[("A_TOKEN".into(), "é".repeat(8))],
                "/é/ö",
            );
        }
        assert_eq!(body_reasons("logs in /home/josé/x", "josé").len(), 1);
    }

    #[test]
    fn pointers_escape_keys() {
        let v = json!({ "a/b": { "c~d": ["/home/u/x"] } });
        assert_eq!(scan_admission(&v)[0].pointer, "/a~1b/c~0d/0");
    }

    #[test]
    fn name_words_split_identifiers() {
        assert_eq!(name_words("X-Api-Key"), ["x", "api", "key"]);
        assert_eq!(name_words("clientSecret"), ["client", "secret"]);
        assert_eq!(name_words("cfg.DB_PASSWORD"), ["cfg", "db", "password"]);
        assert!(
            is_secret_name("apiKey")
                && is_secret_name("AUTH_TOKEN")
                && !is_secret_name("cache_key")
                && !is_secret_name("key")
                && !is_secret_name("token_expires")
        );
    }
}
