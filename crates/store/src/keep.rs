//! The kept copy of a checkout's `.ai/local/` under the common git directory, and the identity
//! of a checkout that survives a move (docs/REFERENCE.md#kept-records, D60).
//!
//! `.ai/local/` is ignored by git, so `git worktree remove` deletes it without asking and no
//! git hook fires. Every write of this crate's [`crate::atomic`] under a registered checkout's
//! `.ai/local/` is therefore also made to `<common dir>/majordomus/worktrees/<id>/local/`, the
//! same relative path. `<id>` is the checkout's own: 16 hex written once to
//! `<its git dir>/majordomus/worktree-id` — a linked worktree's git dir is
//! `<common dir>/worktrees/<name>/`, which `git worktree move` keeps and `git worktree remove`
//! deletes; the main checkout's is the common dir, which moves with it. Beside the copy,
//! `checkout.json` lists every toplevel and common dir the checkout was seen at: a record naming
//! any of them is this checkout's (its identity survives a move; a record written before the
//! first copy names the path it was written at, the fallback).
//!
//! Owns: the id file, the copy's layout and `checkout.json`, mirroring one write, listing the
//! copies and which are live. Must not touch: gix, stdout, what a record means.
//!
//! A copy is best effort: a write of the checkout's own file that succeeded stays a success when
//! its copy fails; the failure is kept for the edge to print ([`take_failures`]).

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::STAGING_PREFIX;

/// Where the copies live, under the common git directory.
pub const DIR: &str = "majordomus/worktrees";
/// The id file, under a worktree's own git directory.
pub const ID_FILE: &str = "majordomus/worktree-id";
/// The checkout's description beside its copy.
pub const CHECKOUT: &str = "checkout.json";
/// The copy of `.ai/local/` inside a checkout's directory.
pub const LOCAL: &str = "local";

/// What `checkout.json` holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Checkout {
    /// The checkout's id (the directory's name).
    pub id: String,
    /// Git's name of a linked worktree (its admin directory); `None` for the main checkout.
    #[serde(default)]
    pub name: Option<String>,
    /// Every toplevel the checkout was seen at, oldest first.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Every common git directory it was seen under, oldest first.
    #[serde(default)]
    pub common_dirs: Vec<String>,
    /// The ids of copies adopted into this checkout: their paths are this checkout's too.
    #[serde(default)]
    pub adopted: Vec<String>,
    /// The checkout this copy was adopted into.
    #[serde(default)]
    pub adopted_into: Option<String>,
}

impl Checkout {
    /// The path it was last seen at.
    pub fn last_path(&self) -> &str {
        self.paths.last().map(String::as_str).unwrap_or("")
    }
}

/// The paths by which records name this checkout and its repository: the current ones, every
/// earlier one `checkout.json` lists, and those of copies adopted into it.
#[derive(Debug, Clone, Default)]
pub struct Here {
    /// Toplevels that are this checkout.
    pub worktrees: Vec<String>,
    /// Common git directories that are this repository.
    pub repositories: Vec<String>,
}

impl Here {
    /// Whether a record's `worktree` names this checkout.
    pub fn is_worktree(&self, w: &str) -> bool {
        self.worktrees.iter().any(|p| p == w)
    }
    /// Whether a record's `repository_id` names this repository.
    pub fn is_repository(&self, r: &str) -> bool {
        self.repositories.iter().any(|p| p == r)
    }
    /// The current toplevel (the first).
    pub fn worktree(&self) -> &str {
        self.worktrees.first().map(String::as_str).unwrap_or("")
    }
}

/// One checkout's place: its toplevel, its own git directory and the common one.
#[derive(Debug, Clone)]
pub struct Place {
    /// Absolute toplevel.
    pub root: PathBuf,
    /// Its git directory (the common one for the main checkout).
    pub git_dir: PathBuf,
    /// The common git directory.
    pub common_dir: PathBuf,
}

impl Place {
    fn local(&self) -> PathBuf {
        self.root.join(".ai/local")
    }
    fn name(&self) -> Option<String> {
        (self.git_dir != self.common_dir).then(|| self.git_dir.file_name().map(|n| n.to_string_lossy().into_owned()))?
    }
    /// This checkout's id, when one was written.
    pub fn id(&self) -> Option<String> {
        read_id(&self.git_dir)
    }
    /// The directory of this checkout's copy (`None` before its id exists).
    pub fn dir(&self) -> Option<PathBuf> {
        self.id().map(|id| self.common_dir.join(DIR).join(id))
    }
    /// The paths that name this checkout and its repository.
    pub fn here(&self) -> Here {
        let mut here = Here {
            worktrees: vec![self.root.display().to_string()],
            repositories: vec![self.common_dir.display().to_string()],
        };
        let Some(id) = self.id() else { return here };
        let Some(me) = read_checkout(&self.common_dir, &id) else { return here };
        let mut all = vec![me.clone()];
        all.extend(me.adopted.iter().filter_map(|a| read_checkout(&self.common_dir, a)));
        for c in all {
            push_new(&mut here.worktrees, c.paths);
            push_new(&mut here.repositories, c.common_dirs);
        }
        here
    }
}

fn push_new(into: &mut Vec<String>, from: Vec<String>) {
    for p in from {
        if !into.contains(&p) {
            into.push(p);
        }
    }
}

/// The id in `<git_dir>/majordomus/worktree-id`, when it holds one.
pub fn read_id(git_dir: &Path) -> Option<String> {
    let text = fs::read_to_string(git_dir.join(ID_FILE)).ok()?;
    let id = text.trim();
    (id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit())).then(|| id.to_string())
}

/// `checkout.json` of copy `id`, when it parses.
pub fn read_checkout(common_dir: &Path, id: &str) -> Option<Checkout> {
    let text = fs::read(common_dir.join(DIR).join(id).join(CHECKOUT)).ok()?;
    serde_json::from_slice(&text).ok()
}

/// Writes `checkout.json` of `c` (temp file and rename).
pub fn write_checkout(common_dir: &Path, c: &Checkout) -> std::io::Result<()> {
    let dir = common_dir.join(DIR).join(&c.id);
    let mut text = serde_json::to_vec_pretty(c).map_err(std::io::Error::other)?;
    text.push(b'\n');
    put(&dir.join(CHECKOUT), &text)
}

/// Every copy under the common dir, with whether its checkout still exists (its id is in a
/// live git directory: the common dir itself or one of `<common dir>/worktrees/*`), sorted by
/// the path last seen.
pub fn list(common_dir: &Path) -> Vec<(Checkout, bool)> {
    let mut live: Vec<String> = read_id(common_dir).into_iter().collect();
    if let Ok(rd) = fs::read_dir(common_dir.join("worktrees")) {
        live.extend(rd.flatten().filter_map(|e| read_id(&e.path())));
    }
    let Ok(rd) = fs::read_dir(common_dir.join(DIR)) else { return Vec::new() };
    let mut v: Vec<(Checkout, bool)> = rd
        .flatten()
        .filter_map(|e| read_checkout(common_dir, &e.file_name().to_string_lossy()))
        .map(|c| {
            let alive = live.contains(&c.id);
            (c, alive)
        })
        .collect();
    v.sort_by(|a, b| a.0.last_path().cmp(b.0.last_path()).then(a.0.id.cmp(&b.0.id)));
    v
}

/// The copies whose checkout is gone and that no checkout adopted.
pub fn orphans(common_dir: &Path) -> Vec<Checkout> {
    list(common_dir).into_iter().filter(|(c, alive)| !alive && c.adopted_into.is_none()).map(|(c, _)| c).collect()
}

/// Writes `bytes` to `path` by a temp file and rename, creating the directories (mode 0600, as
/// `.ai/local/`; not synced: the checkout's own file is the one that was).
fn put(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().ok_or_else(|| std::io::Error::other("no parent"))?;
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(STAGING_PREFIX).rand_bytes(6).tempfile_in(dir)?;
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file().set_permissions(fs::Permissions::from_mode(0o600))?;
    }
    tmp.write_all(bytes)?;
    tmp.persist(path).map(drop).map_err(|e| e.error)
}

/// A registered checkout: where its `.ai/local/` is copied to, set up at its first write.
struct Registered {
    place: Place,
    /// The copy's `local/` once set up; `None` before.
    copy: Option<PathBuf>,
}

static REGISTERED: Mutex<Vec<Registered>> = Mutex::new(Vec::new());
static FAILURES: Mutex<Vec<crate::Error>> = Mutex::new(Vec::new());

/// Keeps a copy of what is written under `place`'s `.ai/local/` from now on in this process.
pub fn register(place: Place) {
    let mut r = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
    if !r.iter().any(|x| x.place.root == place.root) {
        r.push(Registered { place, copy: None });
    }
}

/// The failures of copies since the last call ([`crate::Error::NotKept`], each one line naming
/// the file).
pub fn take_failures() -> Vec<crate::Error> {
    std::mem::take(&mut *FAILURES.lock().unwrap_or_else(|e| e.into_inner()))
}

/// This checkout's own `checkout.json`, its copy set up now when no write of this process has
/// (the id written, `.ai/local/` copied whole the first time).
pub fn own(place: &Place) -> std::io::Result<Checkout> {
    register(place.clone());
    let mut reg = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
    let r =
        reg.iter_mut().find(|r| r.place.root == place.root).ok_or_else(|| std::io::Error::other("not registered"))?;
    setup(r)?;
    let id = read_id(&place.git_dir).ok_or_else(|| std::io::Error::other("no worktree id"))?;
    read_checkout(&place.common_dir, &id).ok_or_else(|| std::io::Error::other("no checkout.json"))
}

/// Records that copy `theirs` was adopted into `mine` (this checkout, whose `checkout.json`
/// then lists it: the paths it was seen at are this checkout's from now on).
pub fn adopt(place: &Place, theirs: &mut Checkout) -> std::io::Result<()> {
    let mut mine = own(place)?;
    theirs.adopted_into = Some(mine.id.clone());
    write_checkout(&place.common_dir, theirs)?;
    if !mine.adopted.contains(&theirs.id) {
        mine.adopted.push(theirs.id.clone());
        write_checkout(&place.common_dir, &mine)?;
    }
    Ok(())
}

/// The directory of copy `id`'s `.ai/local/`.
pub fn local_of(common_dir: &Path, id: &str) -> PathBuf {
    common_dir.join(DIR).join(id).join(LOCAL)
}

/// What happened to a file of the checkout.
pub(crate) enum Op<'a> {
    /// It was written whole (created or replaced).
    Written,
    /// `bytes` were appended (after `torn` bytes of a torn tail were cut).
    Appended { bytes: &'a [u8], torn: bool },
    /// It was moved to this path.
    Moved(&'a Path),
    /// It was removed.
    Removed,
}

/// Mirrors `op` on `path` into the copy of the registered checkout holding it (nothing for a
/// path outside every registered `.ai/local/`, a lock, a staging file or the episode pointer).
pub(crate) fn mirror(path: &Path, op: Op<'_>) {
    let mut reg = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
    let Some(r) = reg.iter_mut().find(|r| path.starts_with(r.place.local())) else { return };
    let Some(rel) = kept_rel(&r.place.local(), path) else { return };
    let result = setup(r).and_then(|copy| apply(&copy, &r.place.local(), &rel, op));
    if let Err(source) = result {
        FAILURES.lock().unwrap_or_else(|e| e.into_inner()).push(crate::Error::NotKept { path: rel, source });
    }
}

/// The path of `path` relative to `local`, when it is a file the copy keeps.
fn kept_rel(local: &Path, path: &Path) -> Option<PathBuf> {
    let rel = path.strip_prefix(local).ok()?;
    let name = rel.file_name()?.to_str()?;
    let skip = rel.starts_with("state/locks")
        || name.starts_with(STAGING_PREFIX)
        || name.starts_with('.')
        || rel == Path::new("state/session-current.yaml");
    (!skip).then(|| rel.to_path_buf())
}

fn apply(copy: &Path, local: &Path, rel: &Path, op: Op<'_>) -> std::io::Result<()> {
    let dst = copy.join(rel);
    let whole = || match fs::read(local.join(rel)) {
        Ok(b) => put(&dst, &b),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    };
    match op {
        Op::Written => whole(),
        Op::Appended { bytes, torn } => {
            let src_len = fs::metadata(local.join(rel))?.len();
            let dst_len = fs::metadata(&dst).map(|m| m.len()).unwrap_or(u64::MAX);
            if torn || dst_len.checked_add(bytes.len() as u64) != Some(src_len) {
                return whole();
            }
            let mut f = fs::OpenOptions::new().append(true).open(&dst)?;
            f.write_all(bytes)
        }
        Op::Moved(to) => {
            let Some(to_rel) = kept_rel(local, to) else { return Ok(()) };
            let to_dst = copy.join(&to_rel);
            if let Some(d) = to_dst.parent() {
                fs::create_dir_all(d)?;
            }
            match fs::rename(&dst, &to_dst) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == ErrorKind::NotFound => match fs::read(to) {
                    Ok(b) => put(&to_dst, &b),
                    Err(e) => Err(e),
                },
                Err(e) => Err(e),
            }
        }
        Op::Removed => match fs::remove_file(&dst) {
            Err(e) if e.kind() != ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        },
    }
}

/// The copy's `local/` of `r`, set up once per process: the id written when absent, a whole
/// copy of `.ai/local/` made before `checkout.json` first exists (so a copy cut short is made
/// again), this place's paths added to `checkout.json`.
fn setup(r: &mut Registered) -> std::io::Result<PathBuf> {
    if let Some(c) = &r.copy {
        return Ok(c.clone());
    }
    let place = &r.place;
    let id = match read_id(&place.git_dir) {
        Some(id) => id,
        None => {
            let id = crate::records::random_hex(16);
            let file = place.git_dir.join(ID_FILE);
            put(&file, format!("{id}\n").as_bytes())?;
            id
        }
    };
    let dir = place.common_dir.join(DIR).join(&id);
    let copy = dir.join(LOCAL);
    let mut me = match read_checkout(&place.common_dir, &id) {
        Some(c) => c,
        None => {
            copy_tree(&place.local(), &copy, &place.local())?;
            Checkout { id: id.clone(), name: place.name(), ..Checkout::default() }
        }
    };
    let (root, common) = (place.root.display().to_string(), place.common_dir.display().to_string());
    let name = place.name();
    if !me.paths.contains(&root) || !me.common_dirs.contains(&common) || me.name != name {
        push_new(&mut me.paths, vec![root]);
        push_new(&mut me.common_dirs, vec![common]);
        me.name = name;
        write_checkout(&place.common_dir, &me)?;
    }
    r.copy = Some(copy.clone());
    Ok(copy)
}

/// Copies every kept file under `from` (a directory of `local`) to the same place under `to`.
fn copy_tree(from: &Path, to: &Path, local: &Path) -> std::io::Result<()> {
    let rd = match fs::read_dir(from) {
        Ok(rd) => rd,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for e in rd {
        let e = e?;
        let kind = e.file_type()?;
        let path = e.path();
        if kind.is_dir() {
            copy_tree(&path, to, local)?;
        } else if kind.is_file() {
            if let Some(rel) = kept_rel(local, &path) {
                put(&to.join(rel), &fs::read(&path)?)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(t: &Path, wt: &str) -> Place {
        let common = t.join("main/.git");
        let (root, git_dir) = if wt == "main" {
            (t.join("main"), common.clone())
        } else {
            (t.join(wt), common.join("worktrees").join(wt))
        };
        fs::create_dir_all(root.join(".ai/local/state")).unwrap();
        fs::create_dir_all(&git_dir).unwrap();
        Place { root, git_dir, common_dir: common }
    }

    #[test]
    fn writes_are_kept_and_a_moved_checkout_is_the_same_one() {
        let t = tempfile::tempdir().unwrap();
        let t = fs::canonicalize(t.path()).unwrap();
        let wt = place(&t, "wt");
        fs::write(wt.local().join("state/old.md"), "before").unwrap();
        register(wt.clone());
        let cur = wt.local().join("state/current.yaml");
        crate::atomic::replace(&cur, b"task: a\n").unwrap();
        crate::atomic::append(&wt.local().join("state/ledger.jsonl"), b"{}\n").unwrap();
        crate::atomic::append(&wt.local().join("state/ledger.jsonl"), b"{\"a\":1}\n").unwrap();
        crate::atomic::Lock::acquire(&wt.local().join("state/locks"), "task").unwrap();
        let copy = wt.dir().unwrap_or_else(|| panic!("{:?}", take_failures())).join(LOCAL);
        assert_eq!(fs::read_to_string(copy.join("state/old.md")).unwrap(), "before");
        assert_eq!(fs::read_to_string(copy.join("state/current.yaml")).unwrap(), "task: a\n");
        assert_eq!(fs::read_to_string(copy.join("state/ledger.jsonl")).unwrap(), "{}\n{\"a\":1}\n");
        assert!(!copy.join("state/locks").exists());
        crate::atomic::rename(&cur, &wt.local().join("state/archive.yaml")).unwrap();
        assert!(!copy.join("state/current.yaml").exists());
        assert!(copy.join("state/archive.yaml").is_file());
        assert!(take_failures().is_empty());

        // Listed as live while its git dir holds the id; gone when git removes it.
        assert_eq!(
            list(&wt.common_dir).iter().map(|(c, live)| (c.name.clone(), *live)).collect::<Vec<_>>(),
            [(Some("wt".into()), true)]
        );
        assert!(orphans(&wt.common_dir).is_empty());

        // Moved: a new toplevel, the same git dir: both paths are this checkout.
        let moved = Place { root: t.join("moved"), ..wt.clone() };
        fs::create_dir_all(moved.local().join("state")).unwrap();
        register(moved.clone());
        crate::atomic::replace(&moved.local().join("state/x.md"), b"x").unwrap();
        let here = moved.here();
        assert!(here.is_worktree(&t.join("wt").display().to_string()));
        assert!(here.is_worktree(&t.join("moved").display().to_string()));
        assert!(!here.is_worktree(&t.join("other").display().to_string()));

        fs::remove_dir_all(&wt.git_dir).unwrap();
        assert_eq!(orphans(&wt.common_dir).len(), 1);
    }
}
