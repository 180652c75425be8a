# The two commands of the README:
#   make demo   set up, build, encrypt and decrypt a generated 1 GiB file, print the rate
#   make test   set up, build, run every test this machine can run
# Both install missing system packages first (scripts/setup.sh, apt-get).

BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# The Python environment scripts/setup.sh makes: the package is built for its interpreter.
VENV ?= .venv
PYTHON := $(abspath $(VENV))/bin/python

.PHONY: all setup configure build wheel test demo bench clean

all: build

setup:
	@BC_VENV=$(VENV) ./scripts/setup.sh

configure: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(PYTHON) \
		-DBC_BUILD_TESTS=ON -DBC_BUILD_BENCH=ON -DBC_BUILD_CLI=ON $(CMAKE_FLAGS) > $(BUILD).configure.log 2>&1 \
		|| (cat $(BUILD).configure.log; exit 1)
	@grep "bulkcrypt backends" $(BUILD).configure.log || true

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The Python wheel, from the build above (scikit-build-core reuses its folder, so nothing
# is compiled twice); the python_wheel test installs it into a fresh environment.
wheel: build
	@rm -rf $(BUILD)/dist
	@CMAKE_GENERATOR="Unix Makefiles" $(PYTHON) -m pip wheel -q --no-deps --no-build-isolation \
		-C build-dir=$(BUILD) -C cmake.define.BC_BUILD_TESTS=ON -C cmake.define.BC_BUILD_BENCH=ON \
		-C cmake.define.BC_BUILD_CLI=ON -w $(BUILD)/dist . > $(BUILD).wheel.log 2>&1 \
		|| (cat $(BUILD).wheel.log; exit 1)
	@ls $(BUILD)/dist/*.whl

test: wheel
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
