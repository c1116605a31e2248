//! Writes that cannot be half-done: new files by temp + hard link, replacements (and moves) by rename,
//! read-modify-write under a lock file, and the guard against writing through symlinks.
//! Must not touch: record semantics, gix, the network, stdout.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::keep::{mirror, Op};
use crate::{Error, Result};

/// How many fresh names a new record gets before the write gives up (exit 13).
const NAME_TRIES: usize = 10;

pub use crate::STAGING_PREFIX;

fn temp_in(dir: &Path, mode: u32) -> Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(STAGING_PREFIX)
        .rand_bytes(6)
        .permissions(fs::Permissions::from_mode(mode))
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))
}

/// The mode a new file `target` is created with (docs/REFERENCE.md#modes): what names this machine
/// — anything under `.ai/local/` — is private to this user, `0600`; every other file (the
/// shared `.ai/repo/` layer, `.gitignore`, caches under the git directory, exports) is created
/// as git creates files, `0666` less the umask (the kernel applies it). The device key, outside
/// the layout, asks for `0600` itself ([`replace_mode`], [`create_if_absent_mode`]).
fn new_mode(target: &Path) -> u32 {
    let parts: Vec<_> = target.components().map(|c| c.as_os_str()).collect();
    if parts.windows(2).any(|w| w[0] == ".ai" && w[1] == "local") {
        0o600
    } else {
        0o666
    }
}

/// The staging files under `dir`, at any depth, sorted: what a write killed between creating
/// its temp file and renaming it leaves behind (a running write's own for milliseconds).
pub fn staging_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let rd = match fs::read_dir(&d) {
            Ok(rd) => rd,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(&d, e)),
        };
        for e in rd {
            let e = e.map_err(|e| Error::io(&d, e))?;
            let kind = e.file_type().map_err(|err| Error::io(&e.path(), err))?;
            if kind.is_dir() {
                dirs.push(e.path());
            } else if e.file_name().to_str().is_some_and(|n| n.starts_with(STAGING_PREFIX)) {
                found.push(e.path());
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Creates the directory and its parents.
pub fn ensure_dir(dir: &Path) -> Result<()> {
    confined(dir)?;
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))
}

/// Refuses to write in the directory `path` of the `.ai/` layer when it or a directory on the way — `.ai`,
/// `.ai/local`, `.ai/local/state`, `.ai/repo` or any below — is a symlink that leads outside
/// the checkout or nowhere (docs/SECURITY.md): the checkout is the directory holding
/// the path's last `.ai` component. An upstream commit can carry such a symlink (`git add -f`);
/// following it would put the ledger, the task record and the locks anywhere. A path outside a
/// layer (the git directory's caches, the device key) is not checked here. A symlink that stays
/// inside the checkout is followed, as [`guard`] follows one for a file.
pub fn confined(path: &Path) -> Result<()> {
    let parts: Vec<_> = path.components().collect();
    // The layer's `.ai` is the last one, and only `.ai`, `.ai/local/…` and `.ai/repo/…` are the
    // layer's (a checkout that itself lies under some `.ai/` directory is not judged by it).
    let layer = |at: usize| {
        parts[at].as_os_str() == ".ai"
            && parts.get(at + 1).is_none_or(|c| c.as_os_str() == "local" || c.as_os_str() == "repo")
    };
    let Some(ai) = (0..parts.len()).rev().find(|&at| layer(at)) else { return Ok(()) };
    let root: PathBuf = parts[..ai].iter().collect();
    let mut at = root.clone();
    for part in &parts[ai..] {
        at.push(part);
        let Ok(meta) = fs::symlink_metadata(&at) else { return Ok(()) };
        if !meta.file_type().is_symlink() {
            continue;
        }
        let inside = match (fs::canonicalize(&at), fs::canonicalize(&root)) {
            (Ok(target), Ok(root)) => target.starts_with(&root),
            _ => false,
        };
        if !inside {
            return Err(Error::SymlinkedDirectory { path: at.strip_prefix(&root).unwrap_or(&at).to_path_buf() });
        }
    }
    Ok(())
}

/// Refuses a path that is a symlink leading outside `root` (or dangling).
pub fn guard(root: &Path, path: &Path) -> Result<()> {
    let Ok(meta) = fs::symlink_metadata(path) else { return Ok(()) };
    if !meta.file_type().is_symlink() {
        return Ok(());
    }
    match fs::canonicalize(path) {
        Ok(target) if target.starts_with(root) => Ok(()),
        _ => Err(Error::SymlinkedFile { path: path.strip_prefix(root).unwrap_or(path).to_path_buf() }),
    }
}

/// A temp file in `dir` that `fill` wrote and that is synced to disk, with the mode `target`
/// gets: an existing file's own, else `new` less the umask. `fill`'s error is the caller's
/// (`E`); the store's own failures convert into it.
fn staged<E: From<Error>>(
    dir: &Path,
    target: &Path,
    new: u32,
    fill: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<tempfile::NamedTempFile, E> {
    ensure_dir(dir)?;
    let existing = fs::metadata(target).ok().filter(|m| m.is_file()).map(|m| m.permissions().mode() & 0o7777);
    let mut tmp = temp_in(dir, existing.unwrap_or(new))?;
    if let Some(mode) = existing {
        // chmod(2) is not subject to the umask: the file keeps exactly the mode it had.
        tmp.as_file().set_permissions(fs::Permissions::from_mode(mode)).map_err(|e| Error::io(tmp.path(), e))?;
    }
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        fill(&mut w)?;
        w.flush().map_err(|e| Error::io(dir, e))?;
    }
    tmp.as_file().sync_all().map_err(|e| Error::io(tmp.path(), e))?;
    Ok(tmp)
}

fn parent(path: &Path) -> Result<&Path> {
    path.parent().ok_or_else(|| Error::NoParent { path: path.to_path_buf() })
}

/// Writes `bytes` through `w`, naming `path` in the error.
pub fn write_to(w: &mut dyn Write, path: &Path, bytes: &[u8]) -> Result<()> {
    w.write_all(bytes).map_err(|e| Error::io(path, e))
}

/// Writes a new file whose name `name()` proposes, never overwriting: temp file in the same
/// directory (mode as [`new_mode`] says), then `link(2)` to the final name, retrying with a new
/// name on collision.
pub fn create_new(dir: &Path, mut name: impl FnMut() -> String, bytes: &[u8]) -> Result<PathBuf> {
    let staging = dir.join(STAGING_PREFIX);
    let tmp = staged(dir, &staging, new_mode(&staging), |w| write_to(w, dir, bytes))?;
    for _ in 0..NAME_TRIES {
        let target = dir.join(name());
        match fs::hard_link(tmp.path(), &target) {
            Ok(()) => {
                mirror(&target, Op::Written);
                return Ok(target);
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(&target, e)),
        }
    }
    Err(Error::NoFreeName { dir: dir.to_path_buf(), tries: NAME_TRIES })
}

/// Replaces (or creates) `path` atomically: temp file in the same directory, then `rename(2)`.
pub fn replace(path: &Path, bytes: &[u8]) -> Result<()> {
    replace_with(path, |w| write_to(w, path, bytes))
}

/// [`replace`] with the mode a new file gets chosen by the caller (`new`, less the umask): a git
/// hook (`0777`), the device key (`0600`). An existing file keeps its mode.
pub fn replace_mode(path: &Path, bytes: &[u8], new: u32) -> Result<()> {
    let tmp = staged(parent(path)?, path, new, |w| write_to(w, path, bytes))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    mirror(path, Op::Written);
    Ok(())
}

/// [`replace`] with the content streamed by `fill`, whose error (`E`) is the caller's.
pub fn replace_with<E: From<Error>>(path: &Path, fill: impl FnOnce(&mut dyn Write) -> Result<(), E>) -> Result<(), E> {
    replace_with_file(path, fill).map(drop)
}

/// [`replace_with`], returning the file written (open for reading and writing): what was
/// written can be read from it whatever replaces `path` afterwards.
pub fn replace_with_file<E: From<Error>>(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<File, E> {
    let tmp = staged(parent(path)?, path, new_mode(path), fill)?;
    let file = tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    mirror(path, Op::Written);
    Ok(file)
}

/// Creates `path` with `bytes` only if it does not exist; returns whether it was created.
pub fn create_if_absent(path: &Path, bytes: &[u8]) -> Result<bool> {
    create_if_absent_with(path, |w| write_to(w, path, bytes))
}

/// [`create_if_absent`] with the mode chosen by the caller, as [`replace_mode`].
pub fn create_if_absent_mode(path: &Path, bytes: &[u8], new: u32) -> Result<bool> {
    create_if_absent_in(path, new, |w| write_to(w, path, bytes))
}

/// [`create_if_absent`] with the content streamed by `fill`, whose error (`E`) is the caller's.
pub fn create_if_absent_with<E: From<Error>>(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<bool, E> {
    create_if_absent_in(path, new_mode(path), fill)
}

fn create_if_absent_in<E: From<Error>>(
    path: &Path,
    new: u32,
    fill: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<bool, E> {
    let dir = parent(path)?;
    if fs::symlink_metadata(path).is_ok() {
        return Ok(false);
    }
    let tmp = staged(dir, path, new, fill)?;
    match fs::hard_link(tmp.path(), path) {
        Ok(()) => {
            mirror(path, Op::Written);
            Ok(true)
        }
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(Error::io(path, e).into()),
    }
}

/// Moves `from` to `to` in one step (`rename(2)`, replacing `to`); both in the same directory
/// tree of the checkout, so on one file system.
pub fn rename(from: &Path, to: &Path) -> Result<()> {
    confined(parent(from)?)?;
    confined(parent(to)?)?;
    fs::rename(from, to).map_err(|e| Error::io(from, e))?;
    mirror(from, Op::Moved(to));
    Ok(())
}

/// Removes the file `path` (absent already: done).
pub fn remove(path: &Path) -> Result<()> {
    confined(parent(path)?)?;
    match fs::remove_file(path) {
        Err(e) if e.kind() != ErrorKind::NotFound => return Err(Error::io(path, e)),
        _ => {}
    }
    mirror(path, Op::Removed);
    Ok(())
}

/// An exclusive advisory lock on `<locks>/<name>.lock`, released on drop.
pub struct Lock {
    file: File,
}

impl Lock {
    /// Blocks until the named lock (`<locks>/<name>.lock`) is held.
    pub fn acquire(locks: &Path, name: &str) -> Result<Lock> {
        Self::acquire_file(locks, &format!("{name}.lock"))
    }

    /// Blocks until the lock file `<locks>/<file>` is held.
    pub fn acquire_file(locks: &Path, file: &str) -> Result<Lock> {
        ensure_dir(locks)?;
        let path = locks.join(file);
        let file =
            OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(|e| Error::io(&path, e))?;
        file.lock().map_err(|e| Error::io(&path, e))?;
        Ok(Lock { file })
    }
}

impl Lock {
    /// The file-system time now, read by writing to the held lock file (its modification time):
    /// the clock lock files are judged by, never the process clock (which tests pin).
    pub fn now(&self) -> Option<std::time::SystemTime> {
        use std::os::unix::fs::FileExt;
        self.file.write_at(b"\n", 0).ok()?;
        self.file.metadata().and_then(|m| m.modified()).ok()
    }
}

/// Removes the lock files in `locks` whose names start with one of `prefixes` and that were last
/// used more than `age` before `now` (file-system time, [`Lock::now`]): the per-episode locks
/// of episodes long closed. No writer holds a lock that long (a hook runs for seconds), so none
/// is removed under a waiting writer. Best effort: what cannot be removed stays.
pub fn sweep_locks(locks: &Path, prefixes: &[&str], now: std::time::SystemTime, age: std::time::Duration) -> usize {
    let Ok(rd) = fs::read_dir(locks) else { return 0 };
    let mut n = 0;
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if !prefixes.iter().any(|p| name.starts_with(p)) {
            continue;
        }
        let old = e.metadata().and_then(|m| m.modified()).is_ok_and(|t| now.duration_since(t).is_ok_and(|d| d > age));
        if old && fs::remove_file(e.path()).is_ok() {
            n += 1;
        }
    }
    n
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Closing the descriptor releases the lock as well; unlocking first is only tidier.
        let _ = self.file.unlock();
    }
}

/// Appends `bytes` to `path` (created 0600 when absent) with one `write` call.
pub fn append(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    confined(parent(path)?)?;
    let mut f = OpenOptions::new().create(true).append(true).mode(0o600).open(path).map_err(|e| Error::io(path, e))?;
    f.write_all(bytes).map_err(|e| Error::io(path, e))?;
    mirror(path, Op::Appended { bytes, torn: false });
    Ok(())
}

/// Appends `line` (whole lines, ending `\n`) to the line file at `path` so that no line is ever
/// appended onto a torn one (issue 41 item 5). The caller holds the file's lock.
///
/// - A tail after the last newline (a write cut short by a kill, a full disk or a file-size
///   limit) is moved aside first: appended, with a newline, to `aside`, then cut from `path`.
///   Complete lines are never rewritten.
/// - A write that fails part way is rolled back to the length before it, then reported: no
///   partial line is ever kept.
///
/// Returns how many bytes of a torn tail were moved aside.
pub fn append_lines(path: &Path, aside: &Path, line: &[u8]) -> Result<u64> {
    use std::os::unix::fs::{FileExt, OpenOptionsExt};
    confined(parent(path)?)?;
    let f = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let len = f.metadata().map_err(|e| Error::io(path, e))?.len();
    let mut moved = 0;
    if len > 0 {
        let keep = after_last_newline(&f, len).map_err(|e| Error::io(path, e))?;
        if keep < len {
            let mut torn = vec![0u8; (len - keep) as usize];
            f.read_exact_at(&mut torn, keep).map_err(|e| Error::io(path, e))?;
            torn.push(b'\n');
            append(aside, &torn)?;
            f.set_len(keep).map_err(|e| Error::io(path, e))?;
            moved = len - keep;
        }
    }
    let before = f.metadata().map_err(|e| Error::io(path, e))?.len();
    if majordomus_core::inject::named("ledger.mid-line") {
        let _ = (&f).write_all(&line[..line.len() / 2]);
        majordomus_core::inject::stop_at("ledger.mid-line");
    }
    if let Err(e) = (&f).write_all(line) {
        let _ = f.set_len(before);
        return Err(Error::io(path, e));
    }
    mirror(path, Op::Appended { bytes: line, torn: moved > 0 });
    Ok(moved)
}

/// The offset just after the last `\n` of the first `len` bytes of `f` (0 when there is none),
/// read backwards a page at a time.
fn after_last_newline(f: &File, len: u64) -> std::io::Result<u64> {
    use std::os::unix::fs::FileExt;
    let mut end = len;
    let mut page = vec![0u8; 4096];
    while end > 0 {
        let start = end.saturating_sub(page.len() as u64);
        let chunk = &mut page[..(end - start) as usize];
        f.read_exact_at(chunk, start)?;
        if let Some(i) = chunk.iter().rposition(|b| *b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// Reads a file to a string; `Ok(None)` when it does not exist; invalid UTF-8 is an error naming the file.
pub fn read_opt(path: &Path) -> Result<Option<String>> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| Error::NotUtf8 { path: path.to_path_buf() }),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layer_directory_symlinked_outside_is_refused_inside_is_followed() {
        let t = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(t.path()).unwrap().join("r");
        let outside = t.path().join("outside");
        fs::create_dir_all(root.join(".ai/local")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink("../../../outside", root.join(".ai/local/state")).unwrap();
        let locks = root.join(".ai/local/state/locks");
        let e = ensure_dir(&locks).unwrap_err();
        assert_eq!(
            e.to_string(),
            ".ai/local/state is a symlink pointing outside the checkout; refusing to write through it"
        );
        assert!(replace(&root.join(".ai/local/state/current.yaml"), b"x").is_err());
        assert!(append(&root.join(".ai/local/state/ledger.jsonl"), b"x").is_err());
        assert!(Lock::acquire(&locks, "x").is_err());
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
        // Dangling is refused too; a path outside any layer is not this guard's.
        fs::remove_file(root.join(".ai/local/state")).unwrap();
        std::os::unix::fs::symlink("nowhere", root.join(".ai/local/state")).unwrap();
        assert!(ensure_dir(&locks).is_err());
        assert!(confined(&outside.join("x")).is_ok());
        // A directory named .ai above the checkout is not the layer's.
        let above = t.path().join("home/.ai");
        fs::create_dir_all(&above).unwrap();
        std::os::unix::fs::symlink(&outside, above.join("link")).unwrap();
        assert!(confined(&above.join("link/proj/.git/majordomus")).is_ok());
        // A symlink that stays inside the checkout is followed.
        fs::remove_file(root.join(".ai/local/state")).unwrap();
        fs::create_dir_all(root.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink("../../elsewhere", root.join(".ai/local/state")).unwrap();
        ensure_dir(&locks).unwrap();
        assert!(root.join("elsewhere/locks").is_dir());
    }
}
