# The two commands of the README: `make run` and `make test`. Both install what they need.
SWIFT ?= swift

.PHONY: run test test-unit test-vm deps build bench clean install uninstall test-install

# `make install` / `make uninstall` (scripts/install.sh does the work; see docs/install.md).
PREFIX ?= /usr/local
DESTDIR ?=
# Compiled overlays go here, only when the folder exists (a Raspberry Pi).
OVERLAY_DIR ?= /boot/firmware/overlays
# An already built binary to install instead of running the release build.
TACTUS_BINARY ?=
INSTALL_ENV = SWIFT='$(SWIFT)' PREFIX='$(PREFIX)' DESTDIR='$(DESTDIR)' OVERLAY_DIR='$(OVERLAY_DIR)' TACTUS_BINARY='$(TACTUS_BINARY)'

deps:
	@scripts/install-deps.sh build

build: deps
	$(SWIFT) build -c release --product tactus

# The box on this machine: the interactive simulator (screen, LEDs, keys, sound).
run: build
	$$($(SWIFT) build -c release --show-bin-path)/tactus simulate --board boards/pi4b.toml

test: test-unit test-vm

test-unit: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	Tests/install/run.sh

# Release build, then binary, boards, overlays, unit and (if missing) /etc/tactus/config.toml.
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
	SWIFT=$(SWIFT) Tests/VM/run.sh

# Speed and allocation figures (not part of `make test`).
bench:
	@scripts/install-deps.sh bench
	$(SWIFT) run -c release tactus-bench
	$(SWIFT) run -c release tactus-wheel-bench

clean:
	rm -rf .build .build-static .build-vm
