# SPDX-License-Identifier: GPL-3.0-or-later
# The two commands of the README: `make run` and `make test`. Both install what they need.
SWIFT ?= swift

.PHONY: all run test test-quick test-unit test-vm test-vm-backends deps build bench clean install uninstall test-install deb fuzz fuzz-smoke voices

# `make` alone: the release build (with the voice sets).
all: build

# GPIO backend (Sources/LinuxHAL/GPIO). Empty: the libgpiod pkg-config finds (1.6 on Debian 12
# and Raspberry Pi OS bookworm, 2.x on trixie; Package.swift reads its version). 2: libgpiod 2
# from bookworm-backports, unpacked into .build-deps/libgpiod2 by `scripts/install-deps.sh
# gpiod2` (it cannot be installed beside libgpiod 1), built in its own scratch path.
GPIOD ?=
ifeq ($(GPIOD),2)
# Release with the Swift runtime linked in, as the VM suite and the package use it, so one
# build in .build-gpiod2 serves make build, make test-vm and make deb (scripts/build-release.sh).
BUILD = scripts/build-release.sh 2
BUILD_DEPS := gpiod2
# That binary links libgpiod.so.3, which is not installed beside libgpiod 1.
RUN_BINARY = LD_LIBRARY_PATH=.build-deps/libgpiod2/usr/lib/$$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch) .build-gpiod2/release/tactus
else ifeq ($(GPIOD),)
BUILD = $(SWIFT) build -c release --product tactus
BUILD_DEPS :=
RUN_BINARY = $$($(SWIFT) build -c release --show-bin-path)/tactus
else
$(error GPIOD=$(GPIOD): use GPIOD=2 (libgpiod 2 from bookworm-backports) or leave it empty (the system's libgpiod))
endif
# The system's libgpiod major version: where it is already 2 (trixie), `make test` runs the
# VM suite once.
SYSTEM_GPIOD_MAJOR := $(shell pkg-config --modversion libgpiod 2>/dev/null | cut -d. -f1)

# `make install` / `make uninstall` (scripts/install.sh does the work; see docs/install.md).
PREFIX ?= /usr/local
DESTDIR ?=
# Compiled overlays go here, only when the folder exists (a Raspberry Pi).
OVERLAY_DIR ?= /boot/firmware/overlays
# An already built binary to install instead of running the release build.
TACTUS_BINARY ?=
# The companion's binary to install (default: the tactus-web beside TACTUS_BINARY, else built).
TACTUS_WEB_BINARY ?=
INSTALL_ENV = SWIFT='$(SWIFT)' PREFIX='$(PREFIX)' DESTDIR='$(DESTDIR)' OVERLAY_DIR='$(OVERLAY_DIR)' TACTUS_BINARY='$(TACTUS_BINARY)' TACTUS_WEB_BINARY='$(TACTUS_WEB_BINARY)'

deps:
	@scripts/install-deps.sh build
	@$(if $(BUILD_DEPS),scripts/install-deps.sh $(BUILD_DEPS))

# The spoken counts: voices/voice-LANG folders (WAVs + voice.toml) made from espeak-ng by
# scripts/make-voices.py; rebuilt when the script changes. Generated, so not in git.
VOICES_DONE := voices/.complete
voices: $(VOICES_DONE)
$(VOICES_DONE): scripts/make-voices.py
	@scripts/install-deps.sh build
	python3 scripts/make-voices.py voices
	@touch $@

build: deps voices
	SWIFT='$(SWIFT)' $(BUILD)

# The box on this machine: the interactive simulator (screen, LEDs, keys, sound).
# `make run WEB=127.0.0.1:8080` starts the browser companion too (tactus-web, built beside
# tactus) and prints `web: http://127.0.0.1:8080 pairing code NNNNNN` (also shown under the
# screen); open the address and type the code. Headless on the real clock, with a script:
#   tactus simulate --headless --realtime --script FILE --out DIR --web 127.0.0.1:8080
# STATE: the state folder (settings, songs, uploads, practice log), kept between runs; by
# default .state/ here (git-ignored). `make run STATE=DIR` picks another.
STATE ?= .state
run: build
	$(if $(WEB),$(SWIFT) build -c release --product tactus-web)
	@mkdir -p '$(STATE)'
	@echo "make run: the binary is $(RUN_BINARY); state in $(STATE)/"
	$(RUN_BINARY) simulate --board boards/pi4b.toml --state '$(STATE)' $(if $(WEB),--web $(WEB))

test: test-unit test-vm-backends

# klick too: the tempo-map tests compare against `klick -W` where it is installed. The Link
# tests run real-time boxes: the release build (the VM suite builds it next anyway) keeps
# them on time on a busy machine.
# TACTUS_REQUIRE_VOICES: the voice tests fail (instead of skipping) without voices/.
test-unit: deps voices
	@scripts/install-deps.sh test
	@scripts/install-deps.sh bench
	$(SWIFT) build --build-tests --explicit-target-dependency-import-check error
	TACTUS_REQUIRE_VOICES=1 $(SWIFT) test --skip-build
	Tests/install/run.sh
	$(SWIFT) build -c release --product tactus
	$(SWIFT) build -c release --product tactus-link-peer
	python3 Tests/Link/run.py $$($(SWIFT) build -c release --show-bin-path)
	SWIFT='$(SWIFT)' Tests/Web/run.sh
	@$(MAKE) --no-print-directory fuzz-smoke

# The quick subset for the edit-build-test loop: the pure core, the engine and the box on
# simulated time (no browser, Link, VM, fuzzing or install test). docs/dev/CONTRIBUTING.md gives its time.
test-quick:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter 'TactusArithmeticTests|MIDIWireTests|TactusMusicTests|TactusTimelineTests|TactusInstrumentTests|ClickEngineTests|TactusAppTests|PackageRulesTests'

# Coverage-guided fuzzing (libFuzzer, -sanitize=fuzzer,address) of every reader of outside
# input, FUZZ_SECONDS each (FUZZ_TARGETS: some of them; FUZZ_JOBS=2: two at once). New
# coverage is kept in Fuzz/corpus/, findings in Fuzz/crashes/; both replay in `make test`
# (FuzzTests). scripts/fuzz.sh does the work.
FUZZ_SECONDS ?= 180
FUZZ_TARGETS ?=
FUZZ_JOBS ?= 1
fuzz: deps
	FUZZ_JOBS=$(FUZZ_JOBS) SWIFT='$(SWIFT)' scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# make test's share: every target 6 s from 16 of its corpus inputs (15 targets: about 120 s after the build).
fuzz-smoke:
	FUZZ_SMOKE=1 SWIFT='$(SWIFT)' scripts/fuzz.sh 6

# Release build, then binaries (tactus, tactus-web), boards, overlays, the companion's pages,
# both units and (if missing) /etc/tactus/config.toml.
install:
	@$(if $(TACTUS_BINARY),,scripts/install-deps.sh install)
	@$(INSTALL_ENV) scripts/install.sh install

# Removes what install added; keeps /etc/tactus (your config) and /var/lib/tactus (settings).
uninstall:
	@$(INSTALL_ENV) scripts/install.sh uninstall

# The install test alone (stub binary, temporary DESTDIR; no build).
test-install:
	Tests/install/run.sh

# The real kernel interfaces: gpio-sim, i2c-stub and snd-aloop in a QEMU VM (Tests/VM/README.md).
# Skips loudly where no VM can run; TACTUS_VM_REQUIRE=1 makes that a failure.
test-vm: deps
	SWIFT=$(SWIFT) TACTUS_VM_GPIOD=$(GPIOD) Tests/VM/run-with-retry.sh

# The VM suite on both GPIO backends (sharing its kernel, module and base initramfs cache);
# both run even when the first fails.
test-vm-backends:
	@rc=0; $(MAKE) --no-print-directory test-vm GPIOD= || rc=1; \
	if [ "$(SYSTEM_GPIOD_MAJOR)" = 1 ] || [ -z "$(SYSTEM_GPIOD_MAJOR)" ]; then \
	  $(MAKE) --no-print-directory test-vm GPIOD=2 || rc=1; \
	else echo "test-vm: the system's libgpiod is already $(SYSTEM_GPIOD_MAJOR).x: one VM run covers the libgpiod 2 backend"; fi; \
	exit $$rc

# dist/tactus_VERSION_ARCH.deb from the release binary (GPIOD=2: built against libgpiod 2,
# depending on libgpiod3); scripts/make-deb.sh, docs/install.md. TACTUS_BINARY packages an
# already built binary instead.
deb: voices
	@scripts/install-deps.sh deb
	@$(if $(BUILD_DEPS),scripts/install-deps.sh $(BUILD_DEPS))
	SWIFT='$(SWIFT)' GPIOD='$(GPIOD)' TACTUS_BINARY='$(TACTUS_BINARY)' scripts/make-deb.sh

# Speed and allocation figures (not part of `make test`).
# compare-klick.sh: tactus render and klick -W as whole processes, on the binary users install.
bench:
	@scripts/install-deps.sh bench
	Benchmarks/compare-klick.sh "$$(SWIFT='$(SWIFT)' scripts/build-release.sh)"
	$(SWIFT) run -c release tactus-bench
	$(SWIFT) run -c release tactus-wheel-bench
	$(SWIFT) run -c release tactus-midi-bench
	$(SWIFT) run -c release tactus-follow-bench
	$(SWIFT) run -c release tactus-coach-bench
	@# The coach and tuned aubio on the same 112 takes from sampled drum kits (made once into
	@# .build/drum-takes by scripts/make-drum-kits.py; figures, not a gate: the bench goes on).
	bin="$$(SWIFT='$(SWIFT)' scripts/build-release.sh)" && \
	  scripts/make-drum-kits.py --out .build/drum-takes/bench --set bench --seed 1 --tactus "$$bin" && \
	  { scripts/score-coach.py .build/drum-takes/bench --compare "$$bin" || echo "bench: the coach misses the issue's figures (FAIL lines above)"; }
	@# The companion under load (30 s; too slow for make test): 20 live views + 200 requests/s.
	scripts/install-deps.sh web
	$(SWIFT) build --product tactus && $(SWIFT) build --product tactus-web
	python3 Tests/Web/load.py

clean:
	rm -rf .build .build-static .build-vm .build-gpiod2 .build-deps .build-fuzz dist voices
