# Thin wrapper around CMake. The two commands of README.md:
#   make run    install what is missing, build, start the main job
#   make test   install, build release + ASan/UBSan, run every test
BUILD      ?= build
BUILD_SAN  ?= build-san
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all build deps run test test-release test-san bench eval clean

all: build

build:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

deps:
	@scripts/install-deps.sh

run: deps build
	@scripts/run-demo.sh $(BUILD)/reveal

test: deps test-release test-san

test-release: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-san:
	@cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=Debug -DREVEAL_SANITIZE=ON >/dev/null
	@cmake --build $(BUILD_SAN) -j $(JOBS)
	@cd $(BUILD_SAN) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)

bench: build
	@/usr/bin/python3 bench/bench.py

eval: build
	@scripts/install-deps.sh --eval
	@/usr/bin/python3 scripts/eval-dev.py --ablations

clean:
	rm -rf $(BUILD) $(BUILD_SAN)
