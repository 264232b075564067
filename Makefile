# The two commands of the README: `make run` and `make test`. Both install what they need.
SWIFT ?= swift
OUT ?= out

.PHONY: run test deps build bench clean

deps:
	@scripts/install-deps.sh build

build: deps
	$(SWIFT) build -c release --product tactus

# The box's main job for now: render a click track to a WAV file and say where it went.
run: build
	@mkdir -p $(OUT)
	$$($(SWIFT) build -c release --show-bin-path)/tactus render --bpm 120 --meter 4/4 --subdivisions 2 --bars 8 \
		--events $(OUT)/click.jsonl -o $(OUT)/click.wav

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Speed and allocation figures (not part of `make test`).
bench:
	@scripts/install-deps.sh bench
	$(SWIFT) run -c release tactus-bench

clean:
	rm -rf .build Benchmarks/.build $(OUT)
