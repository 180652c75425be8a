# The two commands of the README:
#   make demo   set up, build, encrypt and decrypt a generated 1 GiB file, print the rate
#   make test   set up, build, run every test this machine can run
# Both install missing system packages first (scripts/setup.sh, apt-get).

BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all setup configure build test demo bench clean

all: build

setup:
	@./scripts/setup.sh

configure: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) > $(BUILD).configure.log 2>&1 \
		|| (cat $(BUILD).configure.log; exit 1)
	@grep "bulkcrypt backends" $(BUILD).configure.log || true

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS); status=$$?; \
		echo "== why tests were skipped (from the tests' own output):"; \
		grep -h "^ *skipped: " Testing/Temporary/LastTest.log | sed 's/^ *//' | sort | uniq -c | sort -rn; \
		exit $$status

demo: build
	@./scripts/demo.sh $(BUILD)

bench: build
	@./scripts/bench_cpu.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD).configure.log
