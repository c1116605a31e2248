# git-majordomus — build, install, demo, test.
#
#   make demo              build, then run the everyday lifecycle in a scratch repository
#   make test              the whole test suite (needs the Rust toolchain, git and python3)
#   make install           binary, man pages and completions under $(PREFIX)
#   make install PREFIX=/usr/local
#   make dist              the release archive and SHA256SUMS in target/dist (contrib/dist.sh; TAG=v...)
#   make lint              clippy with warnings as errors, rustfmt check
#   make fuzz              libFuzzer over every parser of hostile input, 60 s a target (FUZZ_SECONDS)
#   make fuzz-smoke        the bounded libFuzzer run of `make test`: one binary, 3 s a target
#   make bench             every command on a large and a tiny fixture, the git floor, the growth curve,
#                          and the cost of the pre-push hook on a `git push` with nothing pending
#   make uninstall / make clean

PREFIX  ?= $(HOME)/.cargo
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR  ?= $(DATADIR)/man
# DESTDIR is prepended to every installed path (for packagers); empty by default.
DESTDIR ?=

CARGO   ?= cargo
# Where cargo builds: $(CARGO_TARGET_DIR) when set (relative to this directory, as cargo reads
# it here), else ./target.
TARGET_DIR := $(abspath $(if $(CARGO_TARGET_DIR),$(CARGO_TARGET_DIR),target))
BIN     := $(TARGET_DIR)/release/git-majordomus
GEN     := $(TARGET_DIR)/release/generated

BASH_COMPLETION := $(DATADIR)/bash-completion/completions/git-majordomus
ZSH_COMPLETION  := $(DATADIR)/zsh/site-functions/_git-majordomus
FISH_COMPLETION := $(DATADIR)/fish/vendor_completions.d/git-majordomus.fish
# git-majordomus.1 (what `git majordomus --help` opens) and one page per command beside it
# (git-majordomus-start.1, git-majordomus-continuity-sync.1, ...).
MAN_PAGES       := $(MANDIR)/man1/git-majordomus.1 $(MANDIR)/man1/git-majordomus-*.1

.PHONY: all build generated install uninstall dist demo test bench lint fuzz fuzz-smoke clean help

all: build

help:
	@sed -n '2,14s/^# \{0,1\}//p' Makefile

# Cargo decides whether anything needs rebuilding, so this always asks it.
build:
	$(CARGO) build --release

# The man pages and the three completion scripts, written by the binary itself.
generated: build
	@rm -rf $(GEN)/man
	@mkdir -p $(GEN)
	$(BIN) generate man $(GEN)/man > /dev/null
	$(BIN) generate bash > $(GEN)/git-majordomus.bash
	$(BIN) generate zsh  > $(GEN)/_git-majordomus
	$(BIN) generate fish > $(GEN)/git-majordomus.fish

install: generated
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(dir $(BASH_COMPLETION)) $(DESTDIR)$(dir $(ZSH_COMPLETION)) $(DESTDIR)$(dir $(FISH_COMPLETION))
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/git-majordomus
	install -m 644 $(GEN)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(GEN)/git-majordomus.bash $(DESTDIR)$(BASH_COMPLETION)
	install -m 644 $(GEN)/_git-majordomus $(DESTDIR)$(ZSH_COMPLETION)
	install -m 644 $(GEN)/git-majordomus.fish $(DESTDIR)$(FISH_COMPLETION)
	@echo "installed: $(DESTDIR)$(BINDIR)/git-majordomus"
	@echo "           $(DESTDIR)$(MANDIR)/man1/git-majordomus*.1"
	@echo "           $(DESTDIR)$(BASH_COMPLETION)"
	@echo "           $(DESTDIR)$(ZSH_COMPLETION)"
	@echo "           $(DESTDIR)$(FISH_COMPLETION)"
	@case ":$$PATH:" in *":$(BINDIR):"*) ;; \
	  *) echo "note: $(BINDIR) is not on PATH; add it so 'git majordomus' (and man, via $(BINDIR)/../share/man) find the tool";; esac
	@case "$(DATADIR)" in /usr/share|/usr/local/share) ;; \
	  *) echo "note: bash-completion before 2.12 does not look in $(DATADIR); for 'git majordomus <TAB>' there, run"; \
	     echo "      mkdir -p ~/.local/share/bash-completion/completions && ln -sf $(BASH_COMPLETION) ~/.local/share/bash-completion/completions/";; esac
	@if [ -n "$${MANPATH-}" ]; then case "$$MANPATH" in :*|*:|*::*) ;; *) case ":$$MANPATH:" in *":$(MANDIR):"*) ;; \
	  *) echo "note: MANPATH is set and does not include $(MANDIR); add it so 'git majordomus --help' finds the man page";; \
	  esac;; esac; fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/git-majordomus $(addprefix $(DESTDIR),$(MAN_PAGES)) \
		$(DESTDIR)$(BASH_COMPLETION) $(DESTDIR)$(ZSH_COMPLETION) $(DESTDIR)$(FISH_COMPLETION)

# The archive contrib/ci/action.yml installs, and its SHA256SUMS, in $(TARGET_DIR)/dist.
dist: build
	BIN="$(BIN)" DIST_DIR="$(TARGET_DIR)/dist" TAG="$(TAG)" contrib/dist.sh

demo: build
	MAJORDOMUS_BIN_DIR="$(TARGET_DIR)/release" contrib/demo.sh

# The whole suite: unit tests, the end-to-end binary (tests/cli), tests/architecture.rs, doc
# tests (which --all-targets does not run), then the bounded libFuzzer run.
test:
	contrib/test-deps.sh
	$(CARGO) test --workspace --all-targets
	$(CARGO) test --workspace --doc
	@$(MAKE) --no-print-directory fuzz-smoke

# Fixtures are cached under target/bench/fixtures/ (rebuilt when the generator changes); the
# table is written to target/bench/report.md. BENCH_MILLION=1 adds the 1,000,000-record point.
bench: build
	$(CARGO) build --release --example bench_fixture
	GEN="$(TARGET_DIR)/release/examples/bench_fixture" bench/bench.sh "$(BIN)"
	bench/pre-push.sh "$(BIN)"

# cargo-fuzz (installed by contrib/fuzz-deps.sh) on the stable toolchain, every target 60 s.
# `make test` runs the same entry points over the seeds and a generated stream (crates/fuzzing/tests/hostile.rs)
# and libFuzzer for a few seconds each through one binary built with plain cargo (fuzz-smoke,
# in its own target dir; a crash fails it).
fuzz:
	contrib/fuzz.sh

fuzz-smoke:
	FUZZ_SMOKE_DIR="$(TARGET_DIR)/fuzz-smoke" contrib/fuzz-smoke.sh

lint:
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) fmt --all --check

clean:
	$(CARGO) clean
