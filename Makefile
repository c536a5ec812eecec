# gnnscope - plain Makefile. `make` builds ./gnnscope; `make test` runs the
# suite; `make run` trains on the shipped dataset; `make asan` builds the
# sanitizer variant. Missing Debian packages are installed by `make deps`.

CC       ?= gcc
PREFIX   ?= /usr/local
ARCH     ?= -march=native
OPT      ?= -O3
WARN     := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wno-format-truncation
SAN      ?=
CFLAGS   += $(OPT) $(ARCH) $(SAN) -std=c11 -D_GNU_SOURCE -pthread -g $(WARN) -MMD -MP \
            -I$(CURDIR) -DGS_DATADIR='"$(CURDIR)/datasets"' -DGS_PLUGINDIR='"$(CURDIR)/build"' -DGS_DEMODIR='"$(CURDIR)/demos"'
ifeq ($(WERROR),1)
CFLAGS   += -Werror
endif
LDLIBS   := -lopenblas -lmetis -lncursesw -lreadline -lz -lm -ldl -pthread

SRC_LIB  := $(wildcard base/*.c engine/*/*.c engine/program/models/*.c datasets/*.c profiler/*.c views/*.c)
SRC_APP  := $(wildcard app/*.c)
BUILD    ?= build
OBJ_LIB  := $(SRC_LIB:%.c=$(BUILD)/%.o)
OBJ_APP  := $(SRC_APP:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libgnnscope.a
TESTS    := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
TESTS_GPU := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/gpu/test_*.c))

# ---- optional parts: probed, never required ----
HAVE_NVCC  := $(shell command -v nvcc >/dev/null 2>&1 || test -x /usr/local/cuda/bin/nvcc && echo 1)
HAVE_MPI   := $(shell command -v mpicc >/dev/null 2>&1 && echo 1)
HAVE_CUPTI := $(shell test -f /usr/local/cuda/extras/CUPTI/include/cupti.h -o -f /usr/local/cuda/include/cupti.h && echo 1)
mark = $(if $(1),✓,✗)
# MPI (the distributed engine): compiled in when mpicc is there, else --ranks says it is missing
ifeq ($(HAVE_MPI),1)
CFLAGS   += -DGS_HAVE_MPI $(shell mpicc -showme:compile)
LDLIBS   += $(shell mpicc -showme:link)
endif

.PHONY: all run test asan test-asan tsan test-tsan test-cuda-cpu cuda-cpu-asan cuda-cpu-tsan deps bench-deps fuzz fuzz-ci fuzz-build fuzzers summary format clean install plugin test-gpu test-width
all: summary gnnscope plugin

# ---- the CUDA plugin: built when nvcc is present, skipped with NO_CUDA=1 ----
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(if $(shell command -v nvcc 2>/dev/null),nvcc,$(CUDA_HOME)/bin/nvcc)
CUDA_ARCH ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=[sm_80,compute_80]
NVFLAGS   := -O3 -std=c++17 $(CUDA_ARCH) -I$(CURDIR) -Xcompiler -fPIC,-fvisibility=hidden,-Wall -I$(CUDA_HOME)/extras/CUPTI/include -MMD -MP
CUDA_RPATH := $(CUDA_HOME)/lib64:$(CUDA_HOME)/extras/CUPTI/lib64:$$ORIGIN
SRC_CU    := $(wildcard cuda/*.cu)
OBJ_CU    := $(SRC_CU:%.cu=build/%.o) build/cuda/error.o
PLUGIN    := build/libgnnscope_cuda.so
ifeq ($(NO_CUDA)$(HAVE_NVCC),1)
plugin: $(PLUGIN)
else
plugin:
	@echo "CUDA plugin skipped ($(if $(NO_CUDA),NO_CUDA=1,no nvcc))"
endif

build/cuda/%.o: cuda/%.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -c -o $@ $<

build/cuda/error.o: base/error.c base/error.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(PLUGIN): $(OBJ_CU)
	$(NVCC) -shared -o $@ $^ -cudart static -lcublas -lcupti -L$(CUDA_HOME)/extras/CUPTI/lib64 \
	  -Xlinker --enable-new-dtags -Xlinker -rpath,'$(CUDA_RPATH)'

# ---- the same plugin sources on the CPU test double of the CUDA runtime
# (cuda/cpu_runtime/): for make test-cuda-cpu only. Built into the
# sanitizer folders under another name, so no search for the real plugin
# finds it; it answers only with GNNSCOPE_CUDA_TEST_DOUBLE=1.
CXX       ?= g++
SRC_CPURT := $(wildcard cuda/cpu_runtime/*.cc)
OBJ_CUCPU := $(SRC_CU:cuda/%.cu=$(BUILD)/cuda-cpu/%.o) $(SRC_CPURT:cuda/cpu_runtime/%.cc=$(BUILD)/cuda-cpu/rt_%.o) \
             $(BUILD)/cuda-cpu/error.o
PLUGIN_CUCPU := $(BUILD)/cuda-cpu/libgnnscope_cuda_cpu.so
CXXFLAGS_CUCPU = -std=c++17 $(OPT) -g -fPIC -fvisibility=hidden $(SAN) -Wall -Wextra -Wno-unknown-pragmas \
                 $(if $(filter 1,$(WERROR)),-Werror) -I$(CURDIR)/cuda/cpu_runtime -I$(CURDIR) -MMD -MP

$(BUILD)/cuda-cpu/%.o: cuda/%.cu
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_CUCPU) -x c++ -c -o $@ $<

$(BUILD)/cuda-cpu/rt_%.o: cuda/cpu_runtime/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_CUCPU) -c -o $@ $<

$(BUILD)/cuda-cpu/error.o: base/error.c base/error.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(PLUGIN_CUCPU): $(OBJ_CUCPU)
	@echo "linking the CUDA plugin on the CPU test double of the CUDA runtime: a test build, not a GPU and not a performance model"
	$(CXX) -shared $(SAN) -o $@ $^ -lopenblas -pthread

summary:
	@echo "gnnscope build: cpu backend ✓  nvcc $(call mark,$(HAVE_NVCC))  MPI $(call mark,$(HAVE_MPI))  CUPTI $(call mark,$(HAVE_CUPTI))"

gnnscope: $(OBJ_APP) $(LIB)
	$(CC) $(CFLAGS) -o $@ $(OBJ_APP) $(LIB) $(LDLIBS)

$(LIB): $(OBJ_LIB)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# the kernels' elementwise loops (fast_math.h's exp and sigmoid) vectorise
# only when FP compares may be if-converted, and Adam's sqrtf only when it
# need not set errno: gnnscope never traps on FP exceptions nor reads
# errno after math, and values are unchanged (no reassociation, NaN kept)
$(BUILD)/engine/kernels/%.o: CFLAGS += -fno-trapping-math -fno-math-errno

# tests link archives, so each takes only the objects it uses: the engine
# and, for the session and console tests, the app's (all but main)
OBJ_APP_NOMAIN := $(filter-out $(BUILD)/app/main.o,$(OBJ_APP))
APP_LIB  := $(BUILD)/libgnnscope_app.a
$(APP_LIB): $(OBJ_APP_NOMAIN)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/tests/%: tests/%.c $(LIB) $(APP_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(APP_LIB) $(LIB) $(LDLIBS) -lcmocka

deps:
	@scripts/deps.sh

# the benchmarks' CPU peer (PyTorch, ~850 MB): only for bench/
bench-deps:
	@scripts/deps.sh --bench
	@scripts/bench_venvs.sh

# run and test install what is missing first, so they work on a fresh machine
run:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory gnnscope
	./gnnscope

test:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory gnnscope tests plugin $(TESTS_GPU)
	@tests/run.sh $(BUILD)

# GPU tests: reported as skipped (exit 0, "skipped") where no GPU answers
test-gpu:
	@$(MAKE) --no-print-directory gnnscope plugin $(TESTS_GPU)
	@tests/run.sh $(BUILD) gpu

tests: $(TESTS)

ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer
asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 SAN='$(ASAN_FLAGS)' gnnscope-asan

gnnscope-asan: $(OBJ_APP) $(LIB) $(TESTS)
	$(CC) $(CFLAGS) -o $@ $(OBJ_APP) $(LIB) $(LDLIBS)

test-asan: asan
	@tests/run.sh build-asan asan

# ThreadSanitizer: the threaded parts (session, streaming, profiler, TUI) under it
tsan:
	@$(MAKE) --no-print-directory BUILD=build-tsan OPT=-O1 SAN='$(TSAN_FLAGS)' gnnscope-tsan

gnnscope-tsan: $(OBJ_APP) $(LIB) $(TESTS)
	$(CC) $(CFLAGS) -o $@ $(OBJ_APP) $(LIB) $(LDLIBS)

test-tsan: tsan
	@tests/run.sh build-tsan tsan

# The CUDA plugin's code on the CPU test double of the CUDA runtime, under
# ASan/UBSan and under TSan: tests/gpu through the sanitized binaries, with
# no test allowed to skip (make test-gpu is the same suite on a real GPU).
cuda-cpu-asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 SAN='$(ASAN_FLAGS)' gnnscope-asan \
	  build-asan/cuda-cpu/libgnnscope_cuda_cpu.so $(TESTS_GPU:build/%=build-asan/%)

cuda-cpu-tsan:
	@$(MAKE) --no-print-directory BUILD=build-tsan OPT=-O1 SAN='$(TSAN_FLAGS)' gnnscope-tsan \
	  build-tsan/cuda-cpu/libgnnscope_cuda_cpu.so $(TESTS_GPU:build/%=build-tsan/%)

test-cuda-cpu: cuda-cpu-asan cuda-cpu-tsan
	@tests/run.sh build-asan cuda-cpu-asan
	@tests/run.sh build-tsan cuda-cpu-tsan

# The host kernels at the vector width this machine's build does not use
# (GS_VN in engine/kernels/fast_math_v8.h: 16 lanes with AVX-512, 8
# otherwise): their bit-exactness tests, so both layouts stay checked
# whichever CPU CI runs on.
OTHER_VN = $(shell $(CC) $(ARCH) -dM -E - </dev/null | grep -q __AVX512F__ && echo 8 || echo 16)
test-width:
	@$(MAKE) --no-print-directory BUILD=build-vn OPT=-O2 ARCH='$(ARCH) -DGS_VN=$(OTHER_VN)' \
	  build-vn/tests/unit/test_kernels build-vn/tests/unit/test_gradcheck
	@echo "GS_VN=$(OTHER_VN):" && build-vn/tests/unit/test_kernels && build-vn/tests/unit/test_gradcheck

# libFuzzer harnesses (clang; tests/fuzz/): every parser of outside input.
# `make fuzz` runs each for FUZZ_TIME seconds (default 600), `make fuzz-ci`
# for 30 on the seed corpus (10 harnesses: about 5 minutes, keeping .ci/run under 30 minutes); tests/fuzz/run.sh reports execs/s and coverage.
FUZZERS   := $(patsubst tests/fuzz/%.c,build-fuzz/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TIME ?= 600
fuzz-build:
	@scripts/deps.sh --fuzz
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang OPT=-O1 ARCH= \
	  SAN='-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -Wno-unknown-warning-option' \
	  fuzzers

fuzzers: $(FUZZERS)

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_util.h $(LIB) $(APP_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(APP_LIB) $(LIB) $(LDLIBS)

fuzz: fuzz-build
	@tests/fuzz/run.sh $(FUZZ_TIME)

fuzz-ci: fuzz-build
	@tests/fuzz/run.sh 30

format:
	clang-format -i $(SRC_LIB) $(SRC_APP) $(wildcard base/*.h engine/*/*.h engine/program/models/*.h datasets/*.h profiler/*.h views/*.h app/*.h tests/*/*.c)

install: gnnscope
	install -D -m 755 gnnscope $(DESTDIR)$(PREFIX)/bin/gnnscope
	mkdir -p $(DESTDIR)$(PREFIX)/share/gnnscope/datasets
	cp -r datasets/cora $(DESTDIR)$(PREFIX)/share/gnnscope/datasets/
	mkdir -p $(DESTDIR)$(PREFIX)/share/gnnscope/demos
	cp demos/*.gs $(DESTDIR)$(PREFIX)/share/gnnscope/demos/

clean:
	rm -rf build build-asan build-tsan build-vn gnnscope gnnscope-asan gnnscope-tsan

-include $(OBJ_LIB:.o=.d) $(OBJ_APP:.o=.d) $(TESTS:=.d) $(OBJ_CU:.o=.d) $(OBJ_CUCPU:.o=.d)
