#!/bin/sh
# tests/fuzz/seeds-elf.sh: the seed inputs of the elf_module fuzz target (tests/fuzz/README.md).
#
# usage: sh tests/fuzz/seeds-elf.sh FIXTURES OUTDIR
#   FIXTURES  a tree built by tests/elf/build-fixtures.sh (e.g. BUILD/elf-fixtures)
#   OUTDIR    gets one file per seed, named after the fixture's path ('/' as '_')
#
# Copies a selection of the ELF fixtures (every layout and table kind, a few broken files), and
# builds the cross-target libraries again with 4 KiB pages (the fixtures' 64 KiB pages make them
# 68-133 KiB of mostly zeros; a seed should stay under 64 KiB). Needs clang + lld and, for the
# ppc64 ELFv1 library, powerpc64-linux-gnu-ld; what cannot be built is left out with a note.
set -eu

if [ $# -ne 2 ]; then
	sed -n '4,6s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
fx=$1 out=$2
src=$(cd "$(dirname "$0")/../../fixtures/elf" && pwd)
mkdir -p "$out"

for f in gnu/prog gnu/prog-nopie gnu/prog-noid gnu/prog-gz gnu/libfx.so gnu/libplt.so \
	gnu/libplt-ibt.so gnu/libplt-now.so stripped/prog stripped/libfx.so dl-beside/prog.debug \
	minidebug/prog lld/prog lld/libfx.so lld/libplt.so m32/libfx.so m32/libplt.so \
	cross/aarch64/libplt.so sunw/libfx.so compressed/libfx-symtab-zlib.so \
	compressed/libfx-symtab-zstd.so broken/note-align broken/symtab-entsize \
	broken/symtab-link broken/strtab-short broken/debugdata-garbage broken/debugdata-trunc \
	broken/debuglink-nonul broken/plt-symidx broken/trunc-half broken/shnum-huge; do
	if [ -f "$fx/$f" ]; then
		cp "$fx/$f" "$out/$(echo "$f" | tr / _)"
	else
		echo "seeds-elf: $f was not built (see $fx/SKIPPED)" >&2
	fi
done

# cross-target libraries: lib.c + the symbol zoo, as tests/elf/build-fixtures.sh links them
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t2f-seeds-elf.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for t in i686-linux-gnu powerpc64-linux-gnu powerpc-linux-gnu mips-linux-gnu \
	aarch64_be-linux-gnu armv7a-linux-gnueabihf; do
	extra=
	[ "$t" = armv7a-linux-gnueabihf ] && extra=-mthumb
	# shellcheck disable=SC2086 # extra: zero or one word
	clang -O1 --target="$t" $extra -fPIC -shared -nostdlib -fuse-ld=lld -Wl,--build-id \
		-Wl,-z,max-page-size=4096 -o "$out/cross-$t-libfx.so" "$src/lib.c" "$src/zoo.c" \
		-Wl,-T,"$src/pin-lld.ld" 2>>"$tmp/log" || echo "seeds-elf: no $t library" >&2
done
if command -v powerpc64-linux-gnu-ld >/dev/null &&
	clang -O1 --target=powerpc64-linux-gnu -mabi=elfv1 -fPIC -c -o "$tmp/lib.o" "$src/lib.c" &&
	clang -O1 --target=powerpc64-linux-gnu -mabi=elfv1 -fPIC -c -o "$tmp/zoo.o" "$src/zoo.c"; then
	powerpc64-linux-gnu-ld -shared --build-id=sha1 -z max-page-size=4096 \
		-z common-page-size=4096 -T "$src/pin-gnu.ld" -o "$out/cross-ppc64-elfv1-libfx.so" \
		"$tmp/lib.o" "$tmp/zoo.o"
else
	echo "seeds-elf: no ppc64 ELFv1 library" >&2
fi
ls -l "$out" | awk 'NR > 1 { n++; s += $5 } END { printf "seeds-elf: %d files, %d bytes\n", n, s }'
