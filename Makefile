# The two commands of the README: `make run` and `make test`. Both install what they need.
SWIFT ?= swift
OUT ?= out

.PHONY: run test test-unit test-vm deps build bench clean clean-vm

deps:
	@scripts/install-deps.sh build

build: deps
	$(SWIFT) build -c release --product tactus

# The box's main job for now: render a click track to a WAV file and say where it went.
run: build
	@mkdir -p $(OUT)
	$$($(SWIFT) build -c release --show-bin-path)/tactus render --bpm 120 --meter 4/4 --subdivisions 2 --bars 8 \
		--events $(OUT)/click.jsonl -o $(OUT)/click.wav

test: test-unit test-vm

test-unit: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# The real kernel interfaces: gpio-sim, i2c-stub and snd-aloop in a QEMU VM (Tests/VM/README.md).
# Skips loudly where no VM can run; TACTUS_VM_REQUIRE=1 makes that a failure.
test-vm: deps
	SWIFT=$(SWIFT) Tests/VM/run.sh

# Speed and allocation figures (not part of `make test`).
bench:
	@scripts/install-deps.sh bench
	$(SWIFT) run -c release tactus-bench

clean:
	rm -rf .build .build-static Benchmarks/.build $(OUT)

# The VM suite's cache (kernel, debs, gpio-sim module: ~700 MB, slow to refetch) is kept by
# `clean`; remove it on purpose.
clean-vm:
	rm -rf .build-vm
