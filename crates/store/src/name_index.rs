//! The name index of a record directory: its record-shaped file names grouped by the branch key
//! they carry ([`record_name_key`]), kept in a cache file so that a reader need not list a
//! directory of thousands of records on every run, and reads only the names of the keys it asks
//! for (docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow).
//!
//! Owns: the index file's format, when an index may answer instead of the directory, and when a
//! listing may be kept as one. Must not touch: the records' contents, gix, stdout.
//!
//! A cache, never a source of truth (the rule of docs/REFERENCE.md#read-model): deleting it changes no answer, and a
//! missing, damaged or outdated index is ignored and rebuilt from the directory. An index
//! answers only while the directory's device, inode and modification time are those it was
//! built at: a name created, removed or renamed changes the directory's modification time. A
//! listing is kept as an index only when that time was settled before the listing began — at
//! least [`SETTLED`] older than a file created just before it (the index's own temporary file,
//! stamped by the same file-system clock) — so that a change made during or after the listing
//! cannot leave the directory with the time the index recorded (a coarse clock stamps changes
//! made within one tick with the same time). Writing the index is best effort: a directory
//! that cannot hold it leaves every read listing the directory.

use std::collections::BTreeMap;
use std::fs::{self, Metadata};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::Duration;

use super::atomic::STAGING_PREFIX;
use super::records::names_where;
use super::Error as StoreError;
use crate::model::record::record_name_key;
use crate::Result;

/// The first word of an index file; the number after it is the format.
const MAGIC: &str = "majordomus-names 2";

/// How much older than the moment its listing began a directory's modification time must be
/// for the listing to be kept: well above a coarse clock's tick and a 2 s file-system
/// granularity.
pub const SETTLED: Duration = Duration::from_secs(2);

/// What identifies one state of a directory: device, inode, modification time (s, ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DirStamp(u64, u64, i64, i64);

impl DirStamp {
    fn of(m: &Metadata) -> DirStamp {
        DirStamp(m.dev(), m.ino(), m.mtime(), m.mtime_nsec())
    }
}

/// The record-shaped file names of `dir` whose branch key ([`record_name_key`], `None` for a
/// name it cannot cut) `keep` accepts, sorted — what [`names_where`] answers with that filter —
/// read from the index file `index` while it describes `dir` as it is, else from the directory
/// (then kept in `index` when the directory's time is settled). None when `dir` is absent; a
/// directory that cannot be read is an error, never a shorter list.
pub fn record_names_where(dir: &Path, index: &Path, mut keep: impl FnMut(Option<&str>) -> bool) -> Result<Vec<String>> {
    let meta = match fs::metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io(dir, e)),
    };
    if let Ok(text) = fs::read_to_string(index) {
        if let Some(sections) = indexed(&text, DirStamp::of(&meta)) {
            let mut v: Vec<String> = sections
                .into_iter()
                .filter(|(key, _)| keep(*key))
                .flat_map(|(_, names)| names.split_terminator('\n'))
                .map(str::to_string)
                .collect();
            v.sort_unstable();
            return Ok(v);
        }
    }
    let all = rebuild(dir, index)?;
    Ok(all.into_iter().filter(|n| keep(record_name_key(n))).collect())
}

/// The sections of an index file built at `stamp` — each a branch key (`None`: names it cannot
/// cut) and its names, one a line — when the file is whole.
fn indexed(text: &str, stamp: DirStamp) -> Option<Vec<(Option<&str>, &str)>> {
    let (header, mut rest) = text.split_once('\n')?;
    let mut words = header.strip_prefix(MAGIC)?.strip_prefix(' ')?.split(' ');
    let mut num = || words.next().and_then(|w| w.parse::<i128>().ok());
    let (dev, ino, secs, nanos, bytes) = (num()?, num()?, num()?, num()?, num()?);
    let built = DirStamp(dev.try_into().ok()?, ino.try_into().ok()?, secs.try_into().ok()?, nanos.try_into().ok()?);
    if built != stamp || usize::try_from(bytes).ok()? != rest.len() {
        return None;
    }
    let mut sections = Vec::new();
    while !rest.is_empty() {
        // `S <bytes> <key>` or `N <bytes>`, then <bytes> of names, each ending with a newline.
        let (line, after) = rest.split_once('\n')?;
        let (kind, line) = line.split_at_checked(2)?;
        let (len, key) = match kind {
            "S " => line.split_once(' ').map(|(n, k)| (n, Some(k)))?,
            "N " => (line, None),
            _ => return None,
        };
        let len: usize = len.parse().ok()?;
        let names = after.get(..len)?;
        if names.is_empty() || !names.ends_with('\n') {
            return None;
        }
        sections.push((key, names));
        rest = &after[len..];
    }
    Some(sections)
}

/// Lists `dir` and keeps the listing in `index` when the directory's time is settled (and no
/// name holds a newline, which the index cannot hold).
fn rebuild(dir: &Path, index: &Path) -> Result<Vec<String>> {
    // The temporary file is created first: its time, stamped by the file-system clock, is a
    // moment before the listing begins.
    let staged = index.parent().and_then(|d| {
        fs::create_dir_all(d).ok()?;
        let tmp = tempfile::Builder::new().prefix(STAGING_PREFIX).rand_bytes(6).tempfile_in(d).ok()?;
        let before = tmp.as_file().metadata().and_then(|m| m.modified()).ok()?;
        Some((tmp, before))
    });
    let meta = match fs::metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io(dir, e)),
    };
    let all = names_where(dir, |_| true)?;
    if let Some((mut tmp, before)) = staged {
        let settled = meta.modified().ok().and_then(|m| m.checked_add(SETTLED)).is_some_and(|m| m < before);
        let plain = all.iter().all(|n| !n.contains('\n'));
        // Best effort: an index that cannot be written only leaves the next read listing.
        if settled && plain && tmp.write_all(render(DirStamp::of(&meta), &all).as_bytes()).is_ok() {
            let _ = tmp.persist(index);
        }
    }
    Ok(all)
}

/// The index file of `names` listed at `stamp`: one section per branch key.
fn render(stamp: DirStamp, names: &[String]) -> String {
    let mut by_key: BTreeMap<Option<&str>, String> = BTreeMap::new();
    for n in names {
        let body = by_key.entry(record_name_key(n)).or_default();
        body.push_str(n);
        body.push('\n');
    }
    let mut body = String::new();
    for (key, names) in by_key {
        match key {
            Some(k) => body.push_str(&format!("S {} {k}\n", names.len())),
            None => body.push_str(&format!("N {}\n", names.len())),
        }
        body.push_str(&names);
    }
    let DirStamp(dev, ino, secs, nanos) = stamp;
    format!("{MAGIC} {dev} {ino} {secs} {nanos} {}\n{body}", body.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;
    use std::time::SystemTime;

    const A: &str = "20260903T201455Z--main--9b1e2d4--c0ffee12c0ffee12.md";
    const B: &str = "20260904T201455Z--feat-x--9b1e2d4--c0ffee12c0ffee13.md";
    const C: &str = "20260905T201455Z--main--9b1e2d4--c0ffee12c0ffee14.md";
    /// A record name whose branch key cannot be cut.
    const D: &str = "20260906T201455Z--main--c0ffee12c0ffee15.md";

    /// A directory holding `names` (and a file that is no record), its time settled.
    fn settled_dir(names: &[&str]) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("handovers");
        fs::create_dir(&dir).unwrap();
        for n in names.iter().chain(&["notes.txt"]) {
            fs::write(dir.join(n), "x").unwrap();
        }
        age(&dir);
        let index = t.path().join("index/handovers");
        (t, dir, index)
    }

    /// Sets the directory's time to 2023-11-14, long settled.
    fn age(dir: &Path) {
        File::open(dir).unwrap().set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)).unwrap();
    }

    fn all(dir: &Path, index: &Path) -> Vec<String> {
        record_names_where(dir, index, |_| true).unwrap()
    }

    fn main(dir: &Path, index: &Path) -> Vec<String> {
        record_names_where(dir, index, |k| k == Some("main")).unwrap()
    }

    #[test]
    fn a_settled_listing_is_kept_and_answers_the_next_read() {
        let (_t, dir, index) = settled_dir(&[A, B]);
        assert_eq!(all(&dir, &index), [A, B]);
        assert!(index.exists(), "the listing of a settled directory is kept");
        // The index, not the directory, answers while the directory is unchanged: a name planted
        // in the index shows, which a listing would never give.
        let text = fs::read_to_string(&index).unwrap();
        let planted = text.replacen(&format!("{A}\n"), &format!("{C}\n"), 1);
        fs::write(&index, planted).unwrap();
        assert_eq!(all(&dir, &index), [B, C]);
        assert_eq!(main(&dir, &index), [C]);
    }

    #[test]
    fn the_index_answers_by_branch_key_as_the_listing_does() {
        let (_t, dir, index) = settled_dir(&[A, B, C, D]);
        let by_key = |dir: &Path| {
            let none = record_names_where(dir, &index, |k| k.is_none()).unwrap();
            (main(dir, &index), none, all(dir, &index))
        };
        let listed = by_key(&dir);
        assert_eq!(
            listed,
            (
                vec![A.to_string(), C.to_string()],
                vec![D.to_string()],
                vec![A.to_string(), B.to_string(), C.to_string(), D.to_string()]
            )
        );
        assert!(index.exists());
        assert_eq!(by_key(&dir), listed, "from the index");
    }

    #[test]
    fn a_name_holding_a_newline_is_never_kept() {
        let odd = "20260903T201455Z--ma\nin--9b1e2d4--c0ffee12c0ffee12.md";
        let (_t, dir, index) = settled_dir(&[odd, B]);
        assert_eq!(all(&dir, &index), [odd, B]);
        assert!(!index.exists());
    }

    #[test]
    fn a_change_to_the_directory_is_listed_again() {
        let (_t, dir, index) = settled_dir(&[A, B]);
        assert_eq!(all(&dir, &index), [A, B]);
        fs::write(dir.join(C), "x").unwrap();
        assert_eq!(all(&dir, &index), [A, B, C], "a created name");
        fs::remove_file(dir.join(A)).unwrap();
        assert_eq!(all(&dir, &index), [B, C], "a removed name");
    }

    #[test]
    fn a_directory_changed_just_now_is_listed_every_time_and_never_kept() {
        let (_t, dir, index) = settled_dir(&[A]);
        fs::write(dir.join(B), "x").unwrap();
        assert_eq!(all(&dir, &index), [A, B]);
        assert!(!index.exists(), "a time within {SETTLED:?} of now is not settled");
        // Not settled: a change in the same clock tick keeps the time; the next read lists.
        fs::write(dir.join(C), "x").unwrap();
        assert_eq!(all(&dir, &index), [A, B, C]);
    }

    #[test]
    fn a_copy_with_the_same_time_is_another_directory() {
        let (t, dir, index) = settled_dir(&[A, B]);
        assert_eq!(all(&dir, &index), [A, B]);
        // Another directory with the same time (as `cp -a` leaves it) and other names.
        let other = t.path().join("copy");
        fs::create_dir(&other).unwrap();
        fs::write(other.join(C), "x").unwrap();
        let time = fs::metadata(&dir).unwrap().modified().unwrap();
        File::open(&other).unwrap().set_modified(time).unwrap();
        fs::remove_dir_all(&dir).unwrap();
        fs::rename(&other, &dir).unwrap();
        File::open(&dir).unwrap().set_modified(time).unwrap();
        assert_eq!(all(&dir, &index), [C]);
    }

    #[test]
    fn a_damaged_index_is_ignored_and_an_absent_directory_has_no_names() {
        let (_t, dir, index) = settled_dir(&[A, B]);
        assert_eq!(all(&dir, &index), [A, B]);
        let text = fs::read_to_string(&index).unwrap();
        let bad_length = text.replacen("S 54 main", "S 53 main", 1);
        for damaged in [&text[..text.len() - 3], &text[..text.len() - 1], "", "majordomus-names 1\n", &bad_length] {
            fs::write(&index, damaged).unwrap();
            assert_eq!(all(&dir, &index), [A, B], "{damaged:?}");
        }
        fs::remove_dir_all(&dir).unwrap();
        assert!(all(&dir, &index).is_empty());
    }
}
