# nfvd: thin wrapper over meson/ninja. Every target that needs packages or
# hugepages sets them up itself.
BUILD ?= build
ASAN_BUILD ?= build-asan
PYTHON ?= /usr/bin/python3
SECONDS_TO_RUN ?= 10

.PHONY: all deps build run test test-unit test-pkt test-smoke test-asan test-fuzz bench clean hugepages

all: build

deps:
	@bash scripts/deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) --buildtype=release

# Modules are found when meson configures: a module folder added since then
# makes the build reconfigure.
MODULES := $(sort $(wildcard src/modules/*/meson.build))

build: $(BUILD)/build.ninja
	@if [ "$$(cat $(BUILD)/.nfv-modules 2>/dev/null)" != "$(MODULES)" ]; then \
		meson setup --reconfigure $(BUILD) >/dev/null && echo "$(MODULES)" > $(BUILD)/.nfv-modules; \
	fi
	ninja -C $(BUILD)

hugepages:
	@bash scripts/hugepages.sh

# The main job: forwards generated traffic between virtual ports for
# SECONDS_TO_RUN seconds. Real NICs: make run CONFIG=my.conf EAL="-l 0-3 -a 0000:03:00.0"
run: deps build hugepages
	@bash scripts/run.sh

test: deps build hugepages test-unit test-pkt test-smoke test-asan test-fuzz
	@echo "make test: all suites passed"

test-unit: build
	meson test -C $(BUILD) --print-errorlogs

test-pkt: build
	NFVD_BUILD=$(BUILD) $(PYTHON) -m pytest -q tests/pkt

# run.sh is the router's namespace test; each feature adds its own
# namespace suite as tests/smoke/suites/NAME.sh (exit status 0 = pass).
test-smoke: build
	NFVD_BUILD=$(BUILD) bash tests/smoke/run.sh
	@set -e; for s in tests/smoke/suites/*.sh; do \
		[ -e "$$s" ] || continue; \
		echo "== smoke suite $$s"; \
		NFVD_BUILD=$(BUILD) bash "$$s"; \
	done

# Unit and packet tests again on an AddressSanitizer/UBSan build.
test-asan:
	@bash scripts/test-asan.sh

# 60 s of libFuzzer over the whole graph (FUZZ_SECONDS=N for longer).
test-fuzz:
	@bash scripts/fuzz.sh

bench: deps build hugepages
	bash bench/run.sh

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz run
