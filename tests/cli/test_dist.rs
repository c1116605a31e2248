//! The release archive (issue 25 item 6): `contrib/dist.sh` packs the binary under test as a
//! GitHub release publishes it (`<site>/releases/download/<tag>/`), and the "Install
//! git-majordomus" step of `contrib/ci/action.yml`, run as GitHub runs it, installs it from a
//! `file://` copy of that site — and refuses a tampered archive when SHA256SUMS is beside it.
//! No network: curl reads `file://`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{have, Output, Tool};

const TRIPLE: &str = "x86_64-unknown-linux-gnu";

/// A fixed archive time (2026-01-01T00:00:00Z), so two runs can be compared byte for byte.
const EPOCH: &str = "1767225600";

fn tag() -> String {
    format!("v{}", env!("CARGO_PKG_VERSION"))
}

fn asset() -> String {
    format!("git-majordomus-{}-{TRIPLE}.tar.gz", tag())
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn output(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("spawn");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `PATH` without any directory holding a `git-majordomus`, so the install step cannot find one.
fn path_without_the_tool() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::env::split_paths(&path).filter(|d| !d.join("git-majordomus").exists());
    std::env::join_paths(dirs).unwrap().to_str().unwrap().to_string()
}

/// A copy of what `contrib/dist.sh` reads: the script, Cargo.toml, README.md and the license
/// files — the repository's own when it has them, else placeholders (the script refuses to pack
/// without them; see `dist_refuses_a_missing_license_and_a_binary_of_another_version`).
fn source_copy(dir: &Path) -> PathBuf {
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("contrib")).unwrap();
    for f in ["Cargo.toml", "README.md", "contrib/dist.sh"] {
        std::fs::copy(manifest_dir().join(f), src.join(f)).unwrap();
    }
    for f in ["LICENSE-MIT", "LICENSE-APACHE"] {
        let theirs = manifest_dir().join(f);
        if theirs.is_file() {
            std::fs::copy(theirs, src.join(f)).unwrap();
        } else {
            std::fs::write(src.join(f), format!("{f} placeholder of tests/cli/test_dist.rs\n")).unwrap();
        }
    }
    src
}

/// Runs `<src>/contrib/dist.sh` on the binary under test into `out`, in a cleared environment.
fn dist(src: &Path, out: &Path, extra: &[(&str, &str)]) -> Output {
    output(
        Command::new("bash")
            .arg(src.join("contrib/dist.sh"))
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", src)
            .env("TZ", "UTC")
            .env("LC_ALL", "C")
            .env("BIN", env!("CARGO_BIN_EXE_git-majordomus"))
            .env("DIST_DIR", out)
            .env("SOURCE_DATE_EPOCH", EPOCH)
            // The debug binary is 250 MB: gzip -9 would take half a minute a run.
            .env("DIST_GZIP_LEVEL", "1")
            .envs(extra.iter().copied())
            .current_dir(src),
    )
}

/// The `run:` script of the action's "Install git-majordomus" step, after checking that the
/// step is bash and gets the variables [`install`] sets from the inputs of those names.
fn install_step() -> String {
    let text = std::fs::read_to_string(manifest_dir().join("contrib/ci/action.yml")).unwrap();
    let action: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let steps = action["runs"]["steps"].as_sequence().unwrap();
    let step = steps
        .iter()
        .find(|s| s["name"].as_str() == Some("Install git-majordomus"))
        .expect("action.yml has an \"Install git-majordomus\" step");
    assert_eq!(step["shell"].as_str(), Some("bash"));
    for (var, input) in [("VERSION", "version"), ("SOURCE", "source"), ("REF", "ref")] {
        assert_eq!(step["env"][var].as_str(), Some(format!("${{{{ inputs.{input} }}}}").as_str()), "{var}");
    }
    step["run"].as_str().unwrap().to_string()
}

/// What one run of the install step left behind.
struct Installed {
    out: Output,
    bin: PathBuf,
    github_path: String,
    home: PathBuf,
}

/// Runs the install step as GitHub does (`bash --noprofile --norc -eo pipefail <file>`) with
/// `version: <tag>`, `source: file://<site>`, its own HOME and GITHUB_PATH.
fn install(dir: &Path, site: &Path, name: &str) -> Installed {
    let script = dir.join("install-step.sh");
    std::fs::write(&script, install_step()).unwrap();
    let home = dir.join(name);
    std::fs::create_dir_all(&home).unwrap();
    let github_path = dir.join(format!("{name}.github_path"));
    std::fs::write(&github_path, "").unwrap();
    let out = output(
        Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script)
            .env_clear()
            .env("PATH", path_without_the_tool())
            .env("HOME", &home)
            .env("LC_ALL", "C")
            .env("GITHUB_PATH", &github_path)
            .env("VERSION", tag())
            .env("SOURCE", format!("file://{}", site.display()))
            .env("REF", "")
            .current_dir(dir),
    );
    Installed {
        out,
        bin: home.join(".local/bin/git-majordomus"),
        github_path: std::fs::read_to_string(&github_path).unwrap(),
        home,
    }
}

fn tar_list(tarball: &Path, verbose: bool) -> Vec<String> {
    let flags = if verbose { "--numeric-owner -tvzf" } else { "-tzf" };
    let out =
        output(Command::new("sh").arg("-c").arg(format!("tar {flags} \"$1\"")).arg("sh").arg(tarball).env("TZ", "UTC"))
            .ok();
    out.stdout.lines().map(str::to_string).collect()
}

#[test]
fn dist_packs_a_release_the_action_installs_and_a_tampered_archive_is_refused() {
    if !have(Tool::Curl) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(tmp.path()).unwrap();
    let src = source_copy(&dir);
    let site = dir.join("site");
    let release = site.join("releases/download").join(tag());

    // The archive and its checksum, where a GitHub release serves them.
    let out = dist(&src, &release, &[]).ok();
    let tarball = release.join(asset());
    assert_eq!(
        out.stdout,
        format!("{}\n{}\n", tarball.display(), release.join("SHA256SUMS").display()),
        "{}",
        out.stderr
    );
    let mut names: Vec<String> =
        std::fs::read_dir(&release).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["SHA256SUMS".to_string(), asset()]);
    let sums = std::fs::read_to_string(release.join("SHA256SUMS")).unwrap();
    let (hash, file) = sums.trim_end().split_once("  ").expect("sha256sum format");
    assert_eq!((hash.len(), file, sums.lines().count()), (64, asset().as_str(), 1), "{sums}");

    // Its members: exactly the binary, the licenses, the README, the three completions and one
    // man page per command (the binary's own `generate man <dir>`), in byte order.
    let pages =
        output(Command::new(env!("CARGO_BIN_EXE_git-majordomus")).arg("generate").arg("man").arg(dir.join("pages")))
            .ok();
    let mut want: Vec<String> =
        ["LICENSE-APACHE", "LICENSE-MIT", "README.md", "completions/", "git-majordomus", "man/"]
            .into_iter()
            .chain([
                "completions/_git-majordomus",
                "completions/git-majordomus.bash",
                "completions/git-majordomus.fish",
            ])
            .map(str::to_string)
            .chain(pages.stdout.lines().map(|p| format!("man/{}", Path::new(p).file_name().unwrap().to_str().unwrap())))
            .collect();
    want.sort();
    for page in ["man/git-majordomus.1", "man/git-majordomus-start.1", "man/git-majordomus-continuity-sync.1"] {
        assert!(want.iter().any(|w| w == page), "{page} in {want:?}");
    }
    assert_eq!(tar_list(&tarball, false), want);
    // Owner and group 0, the fixed time, 755 for the binary and directories, 644 for the rest.
    for line in tar_list(&tarball, true) {
        let exec = line.ends_with(" git-majordomus") || line.ends_with('/');
        let mode = if exec { "rwxr-xr-x" } else { "rw-r--r--" };
        assert!(line[1..].starts_with(&format!("{mode} 0/0 ")) && line.contains(" 2026-01-01 00:00 "), "{line}");
    }
    // Reproducible: a second run writes the same bytes.
    dist(&src, &dir.join("again"), &[]).ok();
    assert!(
        std::fs::read(&tarball).unwrap() == std::fs::read(dir.join("again").join(asset())).unwrap(),
        "two runs differ"
    );

    // The action's install step, from file://: the binary in ~/.local/bin, its version, GITHUB_PATH.
    let ok = install(&dir, &site, "home");
    assert_eq!(ok.out.code, 0, "{}{}", ok.out.stdout, ok.out.stderr);
    assert!(ok.out.stdout.contains(&format!("{}: OK", asset())), "checked against SHA256SUMS: {}", ok.out.stdout);
    let version = output(Command::new(&ok.bin).arg("--version")).ok();
    assert_eq!(version.stdout, format!("git-majordomus {}\n", env!("CARGO_PKG_VERSION")));
    assert!(std::fs::read(&ok.bin).unwrap() == std::fs::read(env!("CARGO_BIN_EXE_git-majordomus")).unwrap());
    assert_eq!(ok.github_path, format!("{}/.local/bin\n", ok.home.display()));

    // One byte of the archive changed: the step fails on SHA256SUMS and installs nothing.
    let good = std::fs::read(&tarball).unwrap();
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0x01;
    std::fs::write(&tarball, &bad).unwrap();
    let refused = install(&dir, &site, "tampered");
    assert_ne!(refused.out.code, 0, "{}{}", refused.out.stdout, refused.out.stderr);
    assert!(refused.out.stdout.contains("does not match the SHA256SUMS published beside it"), "{}", refused.out.stdout);
    assert!(refused.out.stdout.contains(&format!("{}: FAILED", asset())), "{}", refused.out.stdout);
    assert!(!refused.bin.exists());
    assert_eq!(refused.github_path, "");

    // No SHA256SUMS published (an older release): installed, with a warning that nothing was checked.
    std::fs::write(&tarball, &good).unwrap();
    std::fs::remove_file(release.join("SHA256SUMS")).unwrap();
    let unchecked = install(&dir, &site, "unchecked");
    assert_eq!(unchecked.out.code, 0, "{}{}", unchecked.out.stdout, unchecked.out.stderr);
    assert!(unchecked.out.stdout.contains("::warning::no SHA256SUMS beside"), "{}", unchecked.out.stdout);
    assert!(unchecked.bin.is_file());
}

#[test]
fn dist_refuses_a_missing_license_and_a_binary_of_another_version() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(tmp.path()).unwrap();
    let src = source_copy(&dir);
    let out = dir.join("out");

    let wrong = dist(&src, &out, &[("TAG", "v999.0.0")]);
    assert_eq!(wrong.code, 1, "{}", wrong.stderr);
    assert!(
        wrong
            .stderr
            .contains(&format!("says \"git-majordomus {}\", but the tag is v999.0.0", env!("CARGO_PKG_VERSION"))),
        "{}",
        wrong.stderr
    );

    std::fs::remove_file(src.join("LICENSE-APACHE")).unwrap();
    let missing = dist(&src, &out, &[]);
    assert_eq!(missing.code, 1, "{}", missing.stderr);
    assert!(missing.stderr.contains("LICENSE-APACHE is missing"), "{}", missing.stderr);
    assert!(!out.join(asset()).exists() && !out.join("SHA256SUMS").exists());
}
