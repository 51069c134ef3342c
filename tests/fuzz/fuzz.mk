# fuzz.mk - builds the libFuzzer targets tests/fuzz/fuzz_*.c and the seed
# writer gen_seeds.c with clang, ASan and UBSan (run.sh runs it from the
# repository root: make -f tests/fuzz/fuzz.mk B=build-fuzz). The library
# code (src/ but cli/ and *_test.c) is compiled once with coverage
# instrumentation into $(B)/librv.a; each target links what it needs from
# it. Header changes are tracked (-MMD). RV_HAVE_LIBPFM is left undefined:
# no target drives the perf source.
B       ?= build-fuzz
CC      := clang
MODULES := base yaml catalog derive collect record features detect explain pipeline config remote \
           select
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
BLAS_CFLAGS := $(shell pkg-config --cflags openblas 2>/dev/null)
BLAS_LIBS   := $(shell pkg-config --libs openblas 2>/dev/null || echo -lopenblas)
CFLAGS  := -g -O1 -std=c11 -D_GNU_SOURCE -DREVEAL_VERSION=\"fuzz\" -Isrc -I$(B)/gen $(BLAS_CFLAGS) \
           -Wall -Wextra -Wno-unused-parameter -MMD -MP
LIBS    := -lz -lm -lpthread -ldl -lyaml $(BLAS_LIBS) -llapacke -llapack -lprotobuf-c -lsnappy

LIBSRC  := $(filter-out %_test.c,$(wildcard $(patsubst %,src/%/*.c,$(MODULES))))
# share/reveal/rules.yaml as C (explain/kb.c: rv_kb_builtin_text), made
# the way CMakeLists.txt makes it.
RULES_C := $(B)/gen/rules_yaml.c
# src/remote/remote_write.proto as C (remote/rwrite.c), by protoc-c as in
# CMakeLists.txt.
RW_PB   := $(B)/gen/remote_write.pb-c.c
LIBOBJ  := $(patsubst src/%.c,$(B)/obj/%.o,$(LIBSRC)) $(B)/obj/gen/rules_yaml.o \
           $(B)/obj/gen/remote_write.pb-c.o
TARGETS := $(patsubst tests/fuzz/%.c,$(B)/%,$(wildcard tests/fuzz/fuzz_*.c))

.PHONY: all
all: $(TARGETS) $(B)/gen_seeds

$(B)/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fsanitize=fuzzer-no-link $(SAN) -c $< -o $@

$(RULES_C): share/reveal/rules.yaml scripts/embed-text.sh
	@mkdir -p $(@D)
	sh scripts/embed-text.sh $< $@ rv_kb_rules_yaml

$(B)/obj/gen/rules_yaml.o: $(RULES_C)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fsanitize=fuzzer-no-link $(SAN) -c $< -o $@

$(RW_PB): src/remote/remote_write.proto
	@mkdir -p $(@D)
	protoc-c --c_out=$(@D) -Isrc/remote $<

$(B)/obj/remote/rwrite.o: $(RW_PB)

$(B)/obj/gen/remote_write.pb-c.o: $(RW_PB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fsanitize=fuzzer-no-link $(SAN) -c $< -o $@

$(B)/librv.a: $(LIBOBJ)
	@rm -f $@
	ar rcs $@ $(LIBOBJ)

$(B)/fuzz_%: tests/fuzz/fuzz_%.c $(B)/librv.a
	$(CC) $(CFLAGS) -Wmissing-prototypes -fsanitize=fuzzer $(SAN) $< $(B)/librv.a $(LIBS) -o $@

$(B)/gen_seeds: tests/fuzz/gen_seeds.c $(B)/librv.a
	$(CC) $(CFLAGS) $(SAN) $< $(B)/librv.a $(LIBS) -o $@

-include $(LIBOBJ:.o=.d) $(TARGETS:=.d) $(B)/gen_seeds.d
