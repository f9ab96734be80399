# A thin wrapper over meson.  `make run` runs the main job (the demo, built
# as installed: release, no debug checks), `make test` the whole suite (gcc,
# clang ASan+UBSan and QSBR debug builds, scripts/test.sh).  Each first
# installs the Debian packages it needs and are missing (scripts/deps.sh).

.PHONY: all build run test clean

all: build

# The library and the command as `meson install` installs them.
build:
	@scripts/deps.sh run
	@[ -f build-release/build.ninja ] || meson setup build-release >/dev/null
	@ninja -C build-release >/dev/null

run: build
	build-release/tools/rcuproc demo

test:
	@scripts/deps.sh test
	@scripts/test.sh

clean:
	rm -rf build build-release build-asan build-qsbr
