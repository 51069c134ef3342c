# Thin wrapper around CMake. The two commands of README.md:
#   make run    install what is missing, build, start the main job
#   make test   install, build release + ASan/UBSan, run every test, then
#               every fuzz target for FUZZ_SECONDS (5) each: the stages
#               deps, test-release, test-san, test-fuzz, each one run even
#               when an earlier one failed (scripts/test-stages.sh); fails
#               at the end naming every stage that failed
#   make fuzz   the fuzz targets alone, FUZZ_SECONDS (10) each
#   make deb    the Debian package $(BUILD)/reveal_VERSION_ARCH.deb of
#               $(BUILD)/reveal, built first when out of date
#               (scripts/build-deb.sh; README.md, "Install from a package")
# Each stage also runs alone: make test-release, make test-san,
# make test-fuzz. BUILD=dir / BUILD_SAN=dir choose other build folders.
BUILD      ?= build
BUILD_SAN  ?= build-san
BUILD_FUZZ ?= build-fuzz
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all build deps run test test-release test-san test-fuzz fuzz bench eval eval-dev deb clean

all: build

build:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

deps:
	@scripts/install-deps.sh

run: deps build
	@scripts/run-agent.sh $(BUILD)/reveal

test:
	@MAKE="$(MAKE)" BUILD="$(BUILD)" BUILD_SAN="$(BUILD_SAN)" \
		scripts/test-stages.sh deps test-release test-san test-fuzz

# A test that runs in one build only (CMakeLists.txt: RV_TESTS_RELEASE_ONLY,
# RV_TESTS_SAN_ONLY) is not registered in the other; tests-elsewhere.txt
# of that build names it and where it runs, printed before ctest.
test-release: build
	@cat $(BUILD)/tests-elsewhere.txt
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-san:
	@cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=Debug -DREVEAL_SANITIZE=ON >/dev/null
	@cmake --build $(BUILD_SAN) -j $(JOBS)
	@cat $(BUILD_SAN)/tests-elsewhere.txt
	@cd $(BUILD_SAN) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)

# libFuzzer targets of every parser (tests/fuzz/README.md): `make fuzz`
# alone, 10 s per target; 5 s in `make test`; FUZZ_SECONDS=N overrides.
# Without clang and libFuzzer run.sh skips with exit 0, and the skip is
# shown in a banner, never passed over in silence.
define run_fuzz
	@mkdir -p $(BUILD_FUZZ); o=$(BUILD_FUZZ)/make.$$$$; \
	{ FUZZ_SECONDS=$${FUZZ_SECONDS:-$(1)} FUZZ_BUILD=$(BUILD_FUZZ) FUZZ_JOBS=$(JOBS) \
		tests/fuzz/run.sh 2>&1; echo $$? >$$o.rc; } | tee $$o.out; \
	if grep -q '^fuzz: skipped' $$o.out; then \
		echo '****************************************************************'; \
		echo '*** FUZZ TARGETS NOT RUN'; \
		grep '^fuzz: skipped' $$o.out | sed 's/^/*** /'; \
		echo '*** install clang 14+ (libFuzzer) and run: make fuzz'; \
		echo '****************************************************************'; \
	fi; rc=$$(cat $$o.rc); rm -f $$o.rc $$o.out; exit $$rc
endef

fuzz:
	$(call run_fuzz,10)

test-fuzz:
	$(call run_fuzz,5)

bench: build
	@/usr/bin/python3 bench/bench.py

# The fault-injection evaluation on this host (eval/faultinject.py, about
# 66 min, root): the table of docs/EVALUATION.md. eval-dev: offline quality
# on the labelled DEV data sets of ../shared. EVAL_ARGS passes more options,
# e.g. EVAL_ARGS="--agent-set collect.metric_set=$$PWD/ms.yaml" (a metric set).
EVAL_ARGS ?=
eval: deps build
	@/usr/bin/python3 eval/faultinject.py --markdown $(BUILD)/eval-live.md $(EVAL_ARGS)

eval-dev: build
	@scripts/install-deps.sh --eval
	@/usr/bin/python3 scripts/eval-dev.py --ablations

deb:
	@JOBS=$(JOBS) scripts/build-deb.sh --build $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD_SAN) $(BUILD_FUZZ)

# The live evaluation on top of a steady, bursty background CPU load of about
# 40 % of one core (docs/EVALUATION.md, "Background load"; about 66 min, root).
.PHONY: eval-bg
eval-bg: deps build
	@/usr/bin/python3 eval/faultinject.py --background 40 --markdown $(BUILD)/eval-live-bg.md $(EVAL_ARGS)
