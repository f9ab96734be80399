# A thin wrapper over meson.  `make run` runs the main job (the demo, built
# for speed: release, no debug checks), `make test` the whole suite (gcc,
# clang ASan+UBSan and QSBR builds).  Both first install any missing Debian
# package (scripts/deps.sh).

.PHONY: all deps build run test clean

all: build

deps:
	@scripts/deps.sh

build: deps
	@[ -f build/build.ninja ] || meson setup build >/dev/null
	@ninja -C build >/dev/null

run: deps
	@[ -f build-release/build.ninja ] || \
		meson setup build-release -Dbuildtype=release -Ddebug_checks=false >/dev/null
	@ninja -C build-release >/dev/null
	build-release/tools/rcuproc demo

test: deps
	@scripts/test.sh

clean:
	rm -rf build build-release build-asan build-qsbr
