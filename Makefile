# A thin wrapper over meson.  `make run` runs the main job, `make test` the
# whole suite (a gcc build and an ASan+UBSan clang build).  Both first install
# any missing Debian package (scripts/deps.sh).

.PHONY: all deps build run test clean

all: build

deps:
	@scripts/deps.sh

build: deps
	@[ -f build/build.ninja ] || meson setup build >/dev/null
	@ninja -C build >/dev/null

run: build
	build/tools/rcuproc selfcheck

test: deps
	@scripts/test.sh

clean:
	rm -rf build build-asan build-qsbr
