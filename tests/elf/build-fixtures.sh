#!/bin/sh
# tests/elf/build-fixtures.sh OUTDIR: builds the ELF fixtures of the symbolizer tests from the C
# sources in fixtures/elf/ (fixtures/elf/README.md lists every file, how it is made and what it
# tests). Registered as the ctest test elf/build-fixtures (FIXTURES_SETUP "elf").
#
# The build goes to OUTDIR.new.PID and replaces OUTDIR only when done, so a rerun gives the same
# tree (paths are mapped with -ffile-prefix-map, so the build-ids are reproducible). Fixtures
# come in groups, "parts", each built by a child run of this script (--part NAME DIR) under
# `set -e`, the optional ones in parallel. A part whose tools are missing or whose build fails is
# skipped and listed in OUTDIR/SKIPPED ("part<TAB>reason", read by the tests) and on stderr;
# OUTDIR/build.log has the parts' output. The script installs nothing (tools/quickstart does).
# Exit status: 0 when the core part "gnu" (gcc + GNU ld) was built, 1 otherwise, 2 on misuse.
#
# Expected values come from binutils, not from our code: every fixture FILE gets FILE.expect:
#   class 32|64 / data le|be / type N / machine N / flags N   ELF header (decimal)
#   buildid HEX                                               readelf -n
#   load OFFSET VADDR FILESZ MEMSZ PF                         readelf -l (PF: R 4, W 2, X 1)
#   debuglink NAME CRC                                        the .gnu_debuglink bytes
#   crc32 CRC                                                 zlib CRC-32 of FILE (gzip's), for
#                                                             the files a debuglink points to
#   sym TABLE VALUE SIZE TYPE BIND FIXED NAME                 readelf -Ws: see EXPECT_AWK
# Numbers are hex (VALUE, SIZE and FIXED without 0x).
# shellcheck disable=SC2317 # the part_* functions are called as "part_$name"
set -eu

SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
SRC=$(cd "$(dirname "$0")/../../fixtures/elf" && pwd)
# A pyenv shim on PATH costs a second per call: prefer the system python.
if [ -z "${PYTHON3:-}" ]; then
	if [ -x /usr/bin/python3 ]; then PYTHON3=/usr/bin/python3; else PYTHON3=python3; fi
fi

# --- helpers (used by the parts) -------------------------------------------------------------
# Process starts cost 10-20 ms on the machines this runs on, so the work is batched: one
# readelf, one od and one awk per sidecar, one python per list of patches.

# EXPECT_AWK: reads `readelf -lnSWs --sym-base=16 FILE` output (first file) and `od -An -tu1 -v
# FILE` (second file); prints the .expect lines (only the sym lines when -v syms=1).
# Symbol rows follow docs/design.md §5 with sizeless symbols kept: type FUNC or GNU_IFUNC
# (readelf says IFUNC, or "<OS specific>: 10" when EI_OSABI is not GNU), Ndx not UND/ABS/COM,
# value != 0; .dynsym names lose readelf's @VER suffix; the table name gets the prefix -v pre.
# FIXED is the address a lookup must use: bit 0 cleared on EM_ARM (Thumb), the code address
# read from the .opd entry for ppc64 ELFv1 (e_flags ABI != 2 and an .opd section), else VALUE.
# shellcheck disable=SC2016 # an awk program
EXPECT_AWK='
function num(h,   i, n) {
	h = tolower(h); sub(/^0x/, "", h); n = 0
	for (i = 1; i <= length(h); i++) n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return n
}
function u(off, len,   v, i) {
	v = 0
	for (i = 0; i < len; i++) v = v * 256 + (be ? B[off + i] : B[off + len - 1 - i])
	return v
}
function hx(off, len,   s, i) {
	s = ""
	for (i = 0; i < len; i++) s = s sprintf("%02x", be ? B[off + i] : B[off + len - 1 - i])
	return s
}
BEGIN { ns = nl = nb = 0 }
FILENAME == ARGV[1] {
	if ($1 == "LOAD") {
		pf = 0
		for (i = 7; i < NF; i++) { if ($i ~ /R/) pf += 4; if ($i ~ /W/) pf += 2; if ($i ~ /E/) pf += 1 }
		load[nl++] = "load " $2 " " $3 " " $5 " " $6 " " pf
	} else if ($0 ~ /^ *\[ *[0-9]+\] /) {
		l = $0; sub(/^ *\[ *[0-9]+\] /, "", l); split(l, a, " ")
		if (!(a[1] in soff)) { saddr[a[1]] = num(a[3]); soff[a[1]] = num(a[4]); ssize[a[1]] = num(a[5]) }
	} else if ($0 ~ /Build ID:/) {
		if (bid == "") bid = $NF
	} else if ($0 ~ /^Symbol table /) {
		tab = $3; gsub("\047", "", tab)
	} else if ($1 ~ /^[0-9]+:$/) {
		l = $0; sub(/<OS specific>: 10/, "IFUNC", l)
		n = split(l, a, " ")
		i = 7
		if (a[i] ~ /^\[/) { while (i < n && a[i] !~ /\]$/) i++; i++ }
		if (a[4] != "FUNC" && a[4] != "IFUNC") next
		if (a[i] == "UND" || a[i] == "ABS" || a[i] == "COM" || a[2] ~ /^0+$/) next
		name = a[i + 1]
		if (tab == ".dynsym") sub(/@.*/, "", name)
		size = a[3]; sub(/^0x/, "", size)
		st[ns] = tab; sv[ns] = a[2]; ss[ns] = size; sy[ns] = a[4]; sb[ns] = a[5]; sn[ns++] = name
	}
	next
}
{ for (i = 1; i <= NF; i++) B[nb++] = $i }
END {
	be = B[5] == 2; c64 = B[4] == 2
	mach = u(18, 2); flags = c64 ? u(48, 4) : u(36, 4)
	if (!syms) {
		print "class " (c64 ? 64 : 32); print "data " (be ? "be" : "le")
		print "type " u(16, 2); print "machine " mach; print "flags " flags
		if (bid != "") print "buildid " bid
		for (i = 0; i < nl; i++) print load[i]
		if (".gnu_debuglink" in soff) {
			o = soff[".gnu_debuglink"]; n = ssize[".gnu_debuglink"]; name = ""
			for (i = 0; i < n && B[o + i] != 0; i++) name = name sprintf("%c", B[o + i])
			if (i < n && n >= 8) print "debuglink " name " " hx(o + n - 4, 4)
		}
	}
	elfv1 = mach == 21 && flags % 4 != 2 && (".opd" in soff)
	for (k = 0; k < ns; k++) {
		fixed = sv[k]; v = num(sv[k])
		if (mach == 40) {
			d = index("0123456789abcdef", substr(fixed, length(fixed), 1)) - 1
			fixed = substr(fixed, 1, length(fixed) - 1) substr("0123456789abcdef", d - d % 2 + 1, 1)
		} else if (elfv1 && v >= saddr[".opd"] && v < saddr[".opd"] + ssize[".opd"]) {
			fixed = hx(soff[".opd"] + v - saddr[".opd"], 8)
		}
		print "sym " pre st[k] " " sv[k] " " ss[k] " " sy[k] " " sb[k] " " fixed " " sn[k]
	}
}'

# expect [-c] FILE [OUT]: writes FILE.expect (or OUT); -c adds the crc32 line.
expect() {
	_crc=0
	if [ "$1" = -c ]; then
		_crc=1
		shift
	fi
	_f=$1 _out=${2:-$1.expect}
	readelf -lnSWs --sym-base=16 "$_f" >"$_out.re" 2>/dev/null || :
	od -An -tu1 -v "$_f" >"$_out.od"
	awk "$EXPECT_AWK" "$_out.re" "$_out.od" >"$_out"
	rm "$_out.re" "$_out.od"
	[ "$_crc" = 0 ] || echo "crc32 $(crc32 "$_f")" >>"$_out"
}

# expect_syms FILE PREFIX: only the sym lines, table names prefixed with PREFIX.
expect_syms() {
	readelf -lnSWs --sym-base=16 "$1" >"$1.re" 2>/dev/null || :
	od -An -tu1 -v "$1" >"$1.od"
	awk -v syms=1 -v pre="$2" "$EXPECT_AWK" "$1.re" "$1.od"
	rm "$1.re" "$1.od"
}

# a2l_expect FILE: FILE.a2l, one "ADDR NAME" line (hex address, no 0x) per byte of the zoo
# (ZOO_BASE 0x2000000 to 0x2000200): the function binutils' addr2line names there ("??" for
# none), from the symbols alone (the zoo's code has no DWARF).
a2l_expect() {
	awk 'BEGIN { for (a = 0; a < 512; a++) printf "0x%x\n", 33554432 + a }' |
		addr2line -a -f -e "$1" | paste - - - |
		awk '{ a = $1; sub(/^0x0*/, "", a); print a, $2 }' >"$1.a2l"
	[ "$(wc -l <"$1.a2l")" -eq 512 ]
}

# plt_expect FILE [OBJDUMP]: FILE.plt, one "ADDR NAME" line (hex address, no 0x) per PLT stub
# the disassembler labels in .plt / .plt.sec: objdump names a stub SYMBOL@plt after its GOT
# slot's relocation, an IRELATIVE one *ABS*+0xADDEND@plt (kept: no name must be found there);
# the PLT0 header ("<x@plt-0x10>", "<.plt>") is left out. OBJDUMP: llvm-objdump for aarch64.
plt_expect() {
	_secs="-j .plt"
	readelf -SW "$1" | grep -q ' \.plt\.sec ' && _secs="$_secs -j .plt.sec"
	# shellcheck disable=SC2086
	${2:-objdump} -d $_secs "$1" |
		awk '/^[0-9a-f]+ <[^>]*@plt>:$/ { n = $2; gsub(/^<|>:$/, "", n); a = $1
			sub(/^0+/, "", a); print a, n }' >"$1.plt"
	[ -s "$1.plt" ]
}

# plt_lib CC ARGS... -o OUT: plt.c as a freestanding shared library.
plt_lib() {
	_cc=$1
	shift
	# shellcheck disable=SC2046
	"$_cc" $(cflags) -fPIC -shared -nostdlib "$@" "$SRC/plt.c"
}

# crc32 FILE: zlib CRC-32 of the file as 8 hex digits (gzip's trailer stores it little-endian).
crc32() {
	gzip -c <"$1" | tail -c 8 | od -An -tx1 -N4 | awk '{ printf "%s%s%s%s\n", $4, $3, $2, $1 }'
}

# build_id FILE: the build-id in hex.
build_id() {
	readelf -nW "$1" | awk '/Build ID:/ { print $NF; exit }'
}

# split_debug FILE DEBUG STRIPPED: the docs/design.md §6 recipe: DEBUG keeps only the debug
# data (zlib-compressed debug sections); STRIPPED loses .symtab and gets a .gnu_debuglink to
# DEBUG (the link holds DEBUG's base name). DEBUG and STRIPPED are absolute paths.
split_debug() {
	mkdir -p "$(dirname "$2")" "$(dirname "$3")"
	objcopy --only-keep-debug --compress-debug-sections=zlib "$1" "$2"
	strip --remove-section=.comment --remove-section=.note --strip-unneeded -o "$3" "$1"
	(cd "$(dirname "$2")" && objcopy --add-gnu-debuglink="$(basename "$2")" "$3")
}

# bg CMD...: runs CMD in the background; join waits for them all and fails if one failed.
PIDS=""
bg() {
	"$@" &
	PIDS="$PIDS $!"
}
join() {
	_rc=0
	for _p in $PIDS; do
		wait "$_p" || _rc=1
	done
	PIDS=""
	return "$_rc"
}

# py CMD FILE ARGS [-- CMD FILE ARGS]...: the ELF patcher (python3, standard library only), one
# process for a list of commands:
#   cp FROM TO / cut FROM N TO          copy; copy the first N bytes
#   derive FROM TO CMD ARGS             cp FROM TO, then CMD TO ARGS
#   ehdr FILE FIELD=VALUE...            set ELF header fields (e_* names; ident4 = EI_CLASS)
#   shdr FILE SECTION FIELD=VALUE...    set section header fields (sh_* names); a VALUE may be
#                                       @shoff (e_shoff), @NAME (the index of section NAME),
#                                       @NAME.off or @NAME.size (its sh_offset / sh_size)
#   phdr FILE PTYPE FIELD=VALUE...      set fields (p_* names) of the first PTYPE program header
#   xnum FILE WHAT...                   extended numbering: WHAT shnum (e_shnum 0, the count in
#                                       section 0's sh_size), shstrndx (SHN_XINDEX, the index in
#                                       its sh_link), phnum (PN_XNUM, the count in its sh_info),
#                                       or sh_size/sh_link/sh_info=VALUE to overwrite section 0's
#   note FILE FIELD=VALUE...            set namesz/descsz/type of the .note.gnu.build-id note
#   bignote FILE DESCSZ                 a new build-id note of DESCSZ bytes at EOF, which the
#                                       section and the PT_NOTE holding the old one now point to
#   sunw FROM SYMS STRS ROWS            the LOCAL FUNC symbols of FROM's .symtab as a symbol table
#                                       (SYMS) and string table (STRS); their sym lines in ROWS
#   sunw-patch FILE                     makes .SUNW_ldynsym (added by objcopy) SHT_SUNW_LDYNSYM
#                                       (0x6ffffff3) linked to .fx_ldynstr (made SHT_STRTAB)
#   compress FILE zlib|zstd SECTION...  SHF_COMPRESSED copies of the sections, appended at EOF
py() {
	"$PYTHON3" - "$@" <<'EOF'
import struct, subprocess, sys, zlib

EH = ['e_type', 'e_machine', 'e_version', 'e_entry', 'e_phoff', 'e_shoff', 'e_flags', 'e_ehsize',
      'e_phentsize', 'e_phnum', 'e_shentsize', 'e_shnum', 'e_shstrndx']
SH = ['sh_name', 'sh_type', 'sh_flags', 'sh_addr', 'sh_offset', 'sh_size', 'sh_link', 'sh_info',
      'sh_addralign', 'sh_entsize']


class Elf:
    def __init__(self, path):
        self.path = path
        self.b = bytearray(open(path, 'rb').read())
        self.c64 = self.b[4] == 2
        self.e = '<' if self.b[5] == 1 else '>'
        self.ehf = self.e + ('HHIQQQIHHHHHH' if self.c64 else 'HHIIIIIHHHHHH')
        self.shf = self.e + ('IIQQQQIIQQ' if self.c64 else 'IIIIIIIIII')
        self.phf = self.e + ('IIQQQQQQ' if self.c64 else 'IIIIIIII')
        self.eh = dict(zip(EH, struct.unpack_from(self.ehf, self.b, 16)))
        self.names = {}
        strtab = self.shdr(self.eh['e_shstrndx'])
        for i in range(self.eh['e_shnum']):
            s = self.shdr(i)
            o = strtab['sh_offset'] + s['sh_name']
            self.names[self.b[o:self.b.index(0, o)].decode()] = i

    def save(self):
        struct.pack_into(self.ehf, self.b, 16, *[self.eh[k] for k in EH])
        open(self.path, 'wb').write(self.b)

    def shdr(self, i):
        return dict(zip(SH, struct.unpack_from(self.shf, self.b, self.eh['e_shoff'] + i * self.eh['e_shentsize'])))

    def set_shdr(self, i, s):
        struct.pack_into(self.shf, self.b, self.eh['e_shoff'] + i * self.eh['e_shentsize'], *[s[k] for k in SH])

    def sec(self, name):
        return self.names[name], self.shdr(self.names[name])

    def data(self, name):
        _, s = self.sec(name)
        return bytes(self.b[s['sh_offset']:s['sh_offset'] + s['sh_size']])

    def phdrs(self):
        for i in range(self.eh['e_phnum']):
            o = self.eh['e_phoff'] + i * self.eh['e_phentsize']
            v = struct.unpack_from(self.phf, self.b, o)
            if self.c64:
                p = dict(zip(['p_type', 'p_flags', 'p_offset', 'p_vaddr', 'p_paddr', 'p_filesz', 'p_memsz', 'p_align'], v))
            else:
                p = dict(zip(['p_type', 'p_offset', 'p_vaddr', 'p_paddr', 'p_filesz', 'p_memsz', 'p_flags', 'p_align'], v))
            yield o, p

    def set_phdr(self, o, p):
        if self.c64:
            v = [p[k] for k in ['p_type', 'p_flags', 'p_offset', 'p_vaddr', 'p_paddr', 'p_filesz', 'p_memsz', 'p_align']]
        else:
            v = [p[k] for k in ['p_type', 'p_offset', 'p_vaddr', 'p_paddr', 'p_filesz', 'p_memsz', 'p_flags', 'p_align']]
        struct.pack_into(self.phf, self.b, o, *v)

    def append(self, blob, align=8):
        while len(self.b) % align:
            self.b.append(0)
        off = len(self.b)
        self.b += blob
        return off

    def syms(self, name):
        _, s = self.sec(name)
        f = self.e + ('IBBHQQ' if self.c64 else 'IIIBBH')
        for i in range(s['sh_size'] // s['sh_entsize']):
            v = struct.unpack_from(f, self.b, s['sh_offset'] + i * s['sh_entsize'])
            if self.c64:
                yield dict(zip(['name', 'info', 'other', 'shndx', 'value', 'size'], v))
            else:
                yield dict(zip(['name', 'value', 'size', 'info', 'other', 'shndx'], v))

    def pack_sym(self, y):
        if self.c64:
            return struct.pack(self.e + 'IBBHQQ', y['name'], y['info'], y['other'], y['shndx'], y['value'], y['size'])
        return struct.pack(self.e + 'IIIBBH', y['name'], y['value'], y['size'], y['info'], y['other'], y['shndx'])


def value(elf, v):
    # a number, or @shoff (e_shoff), @NAME (section index), @NAME.off / @NAME.size
    if not v.startswith('@'):
        return int(v, 0)
    if v == '@shoff':
        return elf.eh['e_shoff']
    for suffix, key in (('.off', 'sh_offset'), ('.size', 'sh_size')):
        if v.endswith(suffix) and v[1:-len(suffix)] in elf.names:
            return elf.sec(v[1:-len(suffix)])[1][key]
    return elf.names[v[1:]]


def fields(args, elf=None):
    return [(a.split('=')[0], value(elf, a.split('=')[1])) for a in args]


def run(cmd, path, args):
    if cmd == 'cp':
        open(args[0], 'wb').write(open(path, 'rb').read())
        return
    if cmd == 'cut':
        open(args[1], 'wb').write(open(path, 'rb').read()[:int(args[0], 0)])
        return
    if cmd == 'derive':
        run('cp', path, args[:1])
        run(args[1], args[0], args[2:])
        return
    elf = Elf(path)
    if cmd == 'ehdr':
        for k, v in fields(args):
            if k == 'ident4':
                elf.b[4] = v
            else:
                elf.eh[k] = v
        elf.save()
    elif cmd == 'shdr':
        i, s = elf.sec(args[0])
        for k, v in fields(args[1:], elf):
            s[k] = v
        elf.set_shdr(i, s)
        elf.save()
    elif cmd == 'phdr':
        for o, p in elf.phdrs():
            if p['p_type'] == int(args[0], 0):
                for k, v in fields(args[1:], elf):
                    p[k] = v
                elf.set_phdr(o, p)
                break
        elf.save()
    elif cmd == 'xnum':
        s0 = elf.shdr(0)
        for what in args:
            if what == 'shnum':
                s0['sh_size'], elf.eh['e_shnum'] = elf.eh['e_shnum'], 0
            elif what == 'shstrndx':
                s0['sh_link'], elf.eh['e_shstrndx'] = elf.eh['e_shstrndx'], 0xffff
            elif what == 'phnum':
                s0['sh_info'], elf.eh['e_phnum'] = elf.eh['e_phnum'], 0xffff
            else:
                k, v = what.split('=')
                s0[k] = int(v, 0)
        elf.set_shdr(0, s0)
        elf.save()
    elif cmd == 'note':
        _, s = elf.sec('.note.gnu.build-id')
        n = dict(zip(['namesz', 'descsz', 'type'], struct.unpack_from(elf.e + 'III', elf.b, s['sh_offset'])))
        for k, v in fields(args):
            n[k] = v
        struct.pack_into(elf.e + 'III', elf.b, s['sh_offset'], n['namesz'], n['descsz'], n['type'])
        elf.save()
    elif cmd == 'bignote':
        descsz = int(args[0], 0)
        note = struct.pack(elf.e + 'III', 4, descsz, 3) + b'GNU\0' + bytes((i * 7 + 1) & 0xff for i in range(descsz))
        i, s = elf.sec('.note.gnu.build-id')
        old = s['sh_offset']
        off = elf.append(note, 4)
        for o, p in elf.phdrs():
            if p['p_type'] == 4 and p['p_offset'] <= old < p['p_offset'] + p['p_filesz']:
                p['p_offset'], p['p_filesz'], p['p_memsz'] = off, len(note), len(note)
                elf.set_phdr(o, p)
        s['sh_offset'], s['sh_size'] = off, len(note)
        elf.set_shdr(i, s)
        elf.save()
    elif cmd == 'sunw':
        strtab = elf.data('.strtab')
        syms, strs, lines = [elf.pack_sym(dict(name=0, info=0, other=0, shndx=0, value=0, size=0))], b'\0', []
        for y in elf.syms('.symtab'):
            if y['info'] == 0x02 and y['size'] and y['value'] and y['shndx']:   # LOCAL FUNC
                nm = strtab[y['name']:strtab.index(b'\0', y['name'])]
                syms.append(elf.pack_sym(dict(y, name=len(strs))))
                strs += nm + b'\0'
                w = 16 if elf.c64 else 8
                v = '%0*x' % (w, y['value'])
                lines.append('sym .SUNW_ldynsym %s %x FUNC LOCAL %s %s\n' % (v, y['size'], v, nm.decode()))
        open(args[0], 'wb').write(b''.join(syms))
        open(args[1], 'wb').write(strs)
        open(args[2], 'w').write(''.join(lines))
    elif cmd == 'sunw-patch':
        si, s = elf.sec('.SUNW_ldynsym')
        ti, t = elf.sec('.fx_ldynstr')
        ent = 24 if elf.c64 else 16
        s.update(sh_type=0x6ffffff3, sh_link=ti, sh_entsize=ent, sh_info=s['sh_size'] // ent, sh_addralign=8, sh_flags=0)
        t.update(sh_type=3, sh_addralign=1, sh_flags=0)
        elf.set_shdr(si, s)
        elf.set_shdr(ti, t)
        elf.save()
    elif cmd == 'compress':
        kind = args[0]
        for name in args[1:]:
            i, s = elf.sec(name)
            raw = elf.data(name)
            if kind == 'zlib':
                body, ch_type = zlib.compress(raw), 1
            else:
                body, ch_type = subprocess.run(['zstd', '-q', '-c'], input=raw, stdout=subprocess.PIPE, check=True).stdout, 2
            if elf.c64:
                chdr = struct.pack(elf.e + 'IIQQ', ch_type, 0, len(raw), s['sh_addralign'])
            else:
                chdr = struct.pack(elf.e + 'III', ch_type, len(raw), s['sh_addralign'])
            off = elf.append(chdr + body, 8)
            s.update(sh_offset=off, sh_size=len(chdr) + len(body), sh_flags=s['sh_flags'] | 0x800,
                     sh_addralign=8 if elf.c64 else 4)
            elf.set_shdr(i, s)
        elf.save()
    else:
        sys.exit('py: unknown command ' + cmd)


argv, cmds = sys.argv[1:] + ['--'], []
while argv:
    i = argv.index('--')
    if i:
        cmds.append(argv[:i])
    argv = argv[i + 1:]
for c in cmds:
    run(c[0], c[1], c[2:])
EOF
}

# --- parts ----------------------------------------------------------------------------------
# Each runs in OUT (the new tree) with set -e.

cflags() {
	echo "-O1 -g -ffile-prefix-map=$SRC=fixtures/elf -ffile-prefix-map=$OUT=."
}

# gnu (core): gcc + GNU ld programs and library, the stripped copies and every debug-file layout.
part_gnu() {
	mkdir -p gnu obj
	F=$(cflags)
	# shellcheck disable=SC2086
	{
		bg gcc $F -c -o obj/prog.o "$SRC/prog.c"
		bg gcc $F -c -DFX_VARIANT=2 -o obj/prog-v2.o "$SRC/prog.c"
		bg gcc $F -fPIC -c -o obj/lib.o "$SRC/lib.c"
		bg gcc $F -fPIC -c -o obj/zoo.o "$SRC/zoo.c"
		join
		O="obj/lib.o obj/zoo.o -Wl,-T,$SRC/pin-gnu.ld"
		bg gcc -Wl,--build-id=sha1 -o gnu/prog obj/prog.o $O
		bg gcc -Wl,--build-id=sha1 -no-pie -o gnu/prog-nopie obj/prog.o $O
		bg gcc -Wl,--build-id=sha1 -o gnu/prog-v2 obj/prog-v2.o $O
		bg gcc -Wl,--build-id=none -o gnu/prog-noid obj/prog.o $O
		bg gcc -Wl,--build-id=sha1 -shared -o gnu/libfx.so $O
		join
	}
	rm -r obj
	objcopy --compress-debug-sections=zlib gnu/prog gnu/prog-gz
	for f in prog prog-nopie prog-v2 prog-noid prog-gz libfx.so; do
		bg expect "gnu/$f"
	done
	bg a2l_expect gnu/prog
	bg a2l_expect gnu/libfx.so
	join

	# build-id tree + stripped binaries whose debuglink names <id[2:]>.debug (Debian's layout)
	id=$(build_id gnu/prog)
	idlib=$(build_id gnu/libfx.so)
	dbg=debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
	dbglib=debug/.build-id/$(echo "$idlib" | cut -c1-2)/$(echo "$idlib" | cut -c3-).debug
	bg split_debug gnu/prog "$OUT/$dbg" "$OUT/stripped/prog"
	bg split_debug gnu/libfx.so "$OUT/$dbglib" "$OUT/stripped/libfx.so"
	# debuglink beside the binary, in .debug/, and with a CRC mismatch (same build-id, one more
	# section added to the debug file after the link was made)
	bg split_debug gnu/prog "$OUT/dl-beside/prog.debug" "$OUT/dl-beside/prog"
	bg split_debug gnu/prog "$OUT/dl-dotdebug/.debug/prog.debug" "$OUT/dl-dotdebug/prog"
	bg split_debug gnu/prog "$OUT/dl-badcrc/prog.debug" "$OUT/dl-badcrc/prog"
	# wrong build-id: prog-v2's debug file where prog's is expected
	mkdir -p "$(dirname "wrongid/$dbg")"
	bg objcopy --only-keep-debug --compress-debug-sections=zlib gnu/prog-v2 "wrongid/$dbg"
	join
	echo "not the file the CRC was computed on" >dl-badcrc/junk.txt
	objcopy --add-section .fx_junk=dl-badcrc/junk.txt dl-badcrc/prog.debug
	rm dl-badcrc/junk.txt

	bg expect stripped/prog
	bg expect stripped/libfx.so
	bg a2l_expect stripped/libfx.so
	bg expect -c "$dbg" debug/prog.debug.expect
	bg expect -c "$dbglib" debug/libfx.so.debug.expect
	bg expect dl-beside/prog
	bg expect -c dl-beside/prog.debug
	bg expect dl-dotdebug/prog
	bg expect -c dl-dotdebug/.debug/prog.debug
	bg expect dl-badcrc/prog
	bg expect -c dl-badcrc/prog.debug
	bg expect -c "wrongid/$dbg" wrongid/prog.debug.expect
	join

	# debuginfod client cache, SSQP store, a directory of copied binaries
	mkdir -p "debuginfod/$id" "ssqp/_.debug/elf-buildid-sym-$id" "ssqp/prog/elf-buildid-$id" symdir
	cp "$dbg" "debuginfod/$id/debuginfo"
	cp stripped/prog "debuginfod/$id/executable"
	cp "$dbg" "ssqp/_.debug/elf-buildid-sym-$id/_.debug"
	cp gnu/prog "ssqp/prog/elf-buildid-$id/prog"
	cp gnu/prog symdir/prog
	{
		echo "gnu/prog $id"
		echo "gnu/prog-v2 $(build_id gnu/prog-v2)"
		echo "gnu/libfx.so $idlib"
	} >build-ids
}

# minidebug: MiniDebugInfo per the GDB manual: the functions that .dynsym does not have,
# xz-compressed into .gnu_debugdata of the stripped binary.
part_minidebug() {
	mkdir -p minidebug/work
	cd minidebug/work
	cp ../../gnu/prog prog
	nm -D prog --format=posix --defined-only | awk '{ print $1 }' | sort >dynsyms
	nm prog --format=posix --defined-only |
		awk '{ if ($2 == "T" || $2 == "t" || $2 == "D" || $2 == "i") print $1 }' | sort >funcsyms
	comm -13 dynsyms funcsyms >keep_symbols
	objcopy --only-keep-debug prog mini_debuginfo
	objcopy -S --remove-section .gdb_index --remove-section .comment \
		--keep-symbols=keep_symbols mini_debuginfo
	strip --strip-all -R .comment prog
	xz -c mini_debuginfo >mini_debuginfo.xz
	objcopy --add-section .gnu_debugdata=mini_debuginfo.xz prog
	mv prog ../prog
	cd ../..
	expect minidebug/prog
	expect_syms minidebug/work/mini_debuginfo .gnu_debugdata: >>minidebug/prog.expect
	rm -r minidebug/work
}

# lld: clang + lld, whose PT_LOADs have p_vaddr != p_offset; 8-byte ("fast") build-ids. prog and
# libfx.so keep lld's own layout; libfx-pinned.so has the zoo at 0x2000000.
part_lld() {
	mkdir -p lld obj-lld
	F=$(cflags)
	# shellcheck disable=SC2086
	{
		bg clang $F -c -o obj-lld/prog.o "$SRC/prog.c"
		bg clang $F -fPIC -c -o obj-lld/lib.o "$SRC/lib.c"
		bg clang $F -fPIC -c -o obj-lld/zoo.o "$SRC/zoo.c"
		join
		O="obj-lld/lib.o obj-lld/zoo.o"
		bg clang -fuse-ld=lld -Wl,--build-id -o lld/prog obj-lld/prog.o $O
		bg clang -fuse-ld=lld -Wl,--build-id -shared -o lld/libfx.so $O
		bg clang -fuse-ld=lld -Wl,--build-id -shared -o lld/libfx-pinned.so $O \
			-Wl,-T,"$SRC/pin-lld.ld"
		join
	}
	rm -r obj-lld
	for f in prog libfx.so libfx-pinned.so; do
		bg expect "lld/$f"
	done
	bg a2l_expect lld/libfx-pinned.so
	join
}

# m32: 32-bit i386 with gcc + GNU ld, freestanding (needs no gcc-multilib).
part_m32() {
	mkdir -p m32
	# shellcheck disable=SC2046
	gcc $(cflags) -m32 -fPIC -shared -nostdlib -Wl,--build-id=sha1 -o m32/libfx.so \
		"$SRC/lib.c" "$SRC/zoo.c" -Wl,-T,"$SRC/pin-gnu.ld"
	expect m32/libfx.so
}

# cross-NAME: clang --target=TRIPLE -nostdlib -shared with lld, the zoo pinned (no -g: only the
# symbol tables matter here).
cross() {
	_name=$1 _triple=$2
	shift 2
	mkdir -p "cross/$_name"
	clang -O1 --target="$_triple" "$@" -fPIC -shared -nostdlib -fuse-ld=lld \
		-Wl,--build-id -o "cross/$_name/libfx.so" "$SRC/lib.c" "$SRC/zoo.c" \
		-Wl,-T,"$SRC/pin-lld.ld"
	expect "cross/$_name/libfx.so"
}
part_cross_i686() { cross i686 i686-linux-gnu; }
part_cross_ppc64() { cross ppc64 powerpc64-linux-gnu; }
part_cross_ppc() { cross ppc powerpc-linux-gnu; }
part_cross_mips() { cross mips mips-linux-gnu; }
part_cross_aarch64_be() { cross aarch64_be aarch64_be-linux-gnu; }
part_cross_thumb() { cross thumb armv7a-linux-gnueabihf -mthumb; }

# cross-ppc64-elfv1: ELFv1 with function descriptors (.opd). lld links no ELFv1 (it writes an
# abiv2 file with an unfilled .opd), so clang compiles and the ppc64 GNU ld links.
part_cross_ppc64_elfv1() {
	mkdir -p cross/ppc64-elfv1
	for s in lib zoo; do
		bg clang -O1 --target=powerpc64-linux-gnu -mabi=elfv1 -fPIC -c \
			-o "cross/ppc64-elfv1/$s.o" "$SRC/$s.c"
	done
	join
	powerpc64-linux-gnu-ld -shared --build-id=sha1 -T "$SRC/pin-gnu.ld" \
		-o cross/ppc64-elfv1/libfx.so cross/ppc64-elfv1/lib.o cross/ppc64-elfv1/zoo.o
	rm cross/ppc64-elfv1/lib.o cross/ppc64-elfv1/zoo.o
	expect cross/ppc64-elfv1/libfx.so
}

# sunw: stripped libfx.so plus a .SUNW_ldynsym table (SHT 0x6ffffff3) holding the LOCAL
# functions of its .symtab, names in .fx_ldynstr. readelf does not dump that table: its sym lines
# come from the .symtab rows they were copied from.
part_sunw() {
	mkdir -p sunw
	strip --strip-unneeded -o sunw/libfx.so gnu/libfx.so
	py sunw gnu/libfx.so sunw/syms.bin sunw/strs.bin sunw/rows
	objcopy --add-section .SUNW_ldynsym=sunw/syms.bin --add-section .fx_ldynstr=sunw/strs.bin \
		sunw/libfx.so
	py sunw-patch sunw/libfx.so
	expect sunw/libfx.so
	cat sunw/rows >>sunw/libfx.so.expect
	rm sunw/syms.bin sunw/strs.bin sunw/rows
}

# compressed: libfx.so with SHF_COMPRESSED .symtab and .strtab, zlib (ch_type 1) and zstd
# (ch_type 2, which libelf 0.188 cannot decompress); the symbols are gnu/libfx.so's.
part_compressed() {
	mkdir -p compressed
	py cp gnu/libfx.so compressed/libfx-symtab-zlib.so \
		-- compress compressed/libfx-symtab-zlib.so zlib .symtab .strtab
	expect gnu/libfx.so compressed/libfx-symtab-zlib.so.expect
}
part_compressed_zstd() {
	mkdir -p compressed
	py cp gnu/libfx.so compressed/libfx-symtab-zstd.so \
		-- compress compressed/libfx-symtab-zstd.so zstd .symtab .strtab
	expect gnu/libfx.so compressed/libfx-symtab-zstd.so.expect
}

# broken: files derived from gnu/libfx.so (x86-64), each broken in one way (see README.md).
part_broken() {
	mkdir -p broken
	B=gnu/libfx.so
	size=$(wc -c <"$B")
	: >broken/empty
	echo "not an ELF file" >broken/not-elf
	py cut "$B" 16 broken/trunc-ident -- cut "$B" 40 broken/trunc-ehdr \
		-- cut "$B" $((64 + 56 + 20)) broken/trunc-phdrs \
		-- cut "$B" $((size / 2)) broken/trunc-half -- cut "$B" $((size - 20)) broken/trunc-shdrs \
		-- derive "$B" broken/shoff-beyond ehdr e_shoff=$((size + 4096)) \
		-- derive "$B" broken/phoff-beyond ehdr e_phoff=$((size + 4096)) \
		-- derive "$B" broken/shnum-huge ehdr e_shnum=0xfff0 \
		-- derive "$B" broken/phnum-huge ehdr e_phnum=0xfff0 \
		-- derive "$B" broken/shstrndx-bad ehdr e_shstrndx=200 \
		-- derive "$B" broken/bad-class ehdr ident4=7 \
		-- derive "$B" broken/symtab-huge-size shdr .symtab sh_size=0x7ffffffffffff000 \
		-- derive "$B" broken/symtab-entsize shdr .symtab sh_entsize=7 \
		-- derive "$B" broken/symtab-offset shdr .symtab sh_offset=$((size + 0x100000)) \
		-- derive "$B" broken/symtab-link shdr .symtab sh_link=0xfff0 \
		-- derive "$B" broken/strtab-short shdr .strtab sh_size=4 \
		-- derive "$B" broken/note-namesz note namesz=0xffffffff \
		-- derive "$B" broken/note-descsz note descsz=0xfffffff0 \
		-- derive "$B" broken/note-align note namesz=0xfffffffd \
		-- derive "$B" broken/note-big bignote 70000
	# .gnu_debuglink contents: no NUL; a '/'; ".."; "../x"; a name without room for the CRC
	printf 'aaaaaaaaaaaaaaaa' >broken/dl1.bin
	printf 'sub/libfx.debug\000\001\002\003\004' >broken/dl2.bin
	printf '..\000\000\001\002\003\004' >broken/dl3.bin
	printf '../libfx.so.debug\000\000\000\001\002\003\004' >broken/dl4.bin
	printf 'libfx.debug\000' >broken/dl5.bin
	i=1
	for n in debuglink-nonul debuglink-slash debuglink-dotdot debuglink-dotdot-slash \
		debuglink-nocrc; do
		bg objcopy --add-section .gnu_debuglink="broken/dl$i.bin" "$B" "broken/$n"
		i=$((i + 1))
	done
	join
	rm broken/dl*.bin
}

# plt: gcc + GNU ld libraries calling through the PLT (lazy, -z now, i386), their FILE.plt from
# objdump, and broken copies: .rela.plt with entry size 7, a size past the file, a link to no
# symbol table, and a .dynsym cut to 2 records (the relocations' symbol indexes out of range).
part_plt() {
	mkdir -p gnu m32 broken
	bg plt_lib gcc -Wl,--build-id=sha1 -o gnu/libplt.so
	bg plt_lib gcc -Wl,--build-id=sha1,-z,now -o gnu/libplt-now.so
	bg plt_lib gcc -m32 -Wl,--build-id=sha1 -o m32/libplt.so
	join
	for f in gnu/libplt.so gnu/libplt-now.so m32/libplt.so; do
		bg expect "$f"
		bg plt_expect "$f"
	done
	join
	B=gnu/libplt.so
	py derive "$B" broken/plt-entsize shdr .rela.plt sh_entsize=7 \
		-- derive "$B" broken/plt-size shdr .rela.plt sh_size=0x7ffffffffffff000 \
		-- derive "$B" broken/plt-link shdr .rela.plt sh_link=0xfff0 \
		-- derive "$B" broken/plt-symidx shdr .dynsym sh_size=48
}

# plt-ibt: the same with -fcf-protection -z ibtplt (x86-64 and i386): the called stubs are in
# .plt.sec.
part_plt_ibt() {
	mkdir -p gnu m32
	bg plt_lib gcc -fcf-protection -Wl,--build-id=sha1,-z,ibtplt -o gnu/libplt-ibt.so
	bg plt_lib gcc -m32 -fcf-protection -Wl,--build-id=sha1,-z,ibtplt -o m32/libplt-ibt.so
	join
	for f in gnu/libplt-ibt.so m32/libplt-ibt.so; do
		bg expect "$f"
		bg plt_expect "$f"
	done
	join
	readelf -SW gnu/libplt-ibt.so | grep -q ' \.plt\.sec '
}

# plt-lld: clang + lld (x86-64); plt-aarch64: clang + lld for aarch64, FILE.plt from
# llvm-objdump (Debian's objdump has no aarch64 disassembler).
part_plt_lld() {
	mkdir -p lld
	plt_lib clang -fuse-ld=lld -Wl,--build-id -o lld/libplt.so
	expect lld/libplt.so
	plt_expect lld/libplt.so
}
part_plt_aarch64() {
	mkdir -p cross/aarch64
	plt_lib clang --target=aarch64-linux-gnu -fuse-ld=lld -Wl,--build-id \
		-o cross/aarch64/libplt.so
	expect cross/aarch64/libplt.so
	plt_expect cross/aarch64/libplt.so "$LLVM_OBJDUMP"
}

# broken-debugdata: .gnu_debugdata that is not xz, truncated xz, xz of non-ELF bytes, xz of a
# truncated ELF, each added to the stripped libfx.so (whose .dynsym still has fx_lib_work).
part_broken_debugdata() {
	mkdir -p broken/dd
	strip --strip-all -o broken/dd/base gnu/libfx.so
	objcopy --only-keep-debug gnu/libfx.so broken/dd/mini
	xz -c broken/dd/mini >broken/dd/mini.xz
	echo "this is not an xz stream" >broken/dd/garbage
	echo "hello" | xz -c >broken/dd/notelf
	py cut broken/dd/mini.xz $(($(wc -c <broken/dd/mini.xz) / 2)) broken/dd/trunc \
		-- cut broken/dd/mini 100 broken/dd/elfcut
	xz -c broken/dd/elfcut >broken/dd/elftrunc
	for n in garbage trunc notelf elftrunc; do
		bg objcopy --add-section .gnu_debugdata="broken/dd/$n" broken/dd/base "broken/debugdata-$n"
	done
	join
	rm -r broken/dd
}

# hostile: more files derived from gnu/libfx.so (see README.md): extended section and program
# header numbering (valid: must load like the original; and broken), symbol table links to
# themselves, to the wrong type, to section 0, cyclic, out of range; a string table over its
# symbol table; a note over the section headers; note alignments 2^63, 2^64-1, 3, 0 and sizes
# that wrap; copies without section headers (the build-id from PT_NOTE only).
part_hostile() {
	mkdir -p broken
	B=gnu/libfx.so
	N=.note.gnu.build-id
	NOSECT="e_shoff=0 e_shnum=0 e_shstrndx=0"
	# shellcheck disable=SC2086 # NOSECT is a list of fields
	py derive "$B" broken/xnum-shnum xnum shnum \
		-- derive "$B" broken/xnum-all xnum shnum shstrndx phnum \
		-- derive "$B" broken/xnum-shnum-huge xnum shnum sh_size=0x10000000 \
		-- derive "$B" broken/xnum-shnum-zero xnum shnum sh_size=0 \
		-- derive "$B" broken/xnum-shstrndx-bad xnum shstrndx sh_link=0xfff0 \
		-- derive "$B" broken/xnum-phnum-huge xnum phnum sh_info=0xfff0 \
		-- derive "$B" broken/xnum-phnum-over xnum phnum sh_info=0x7fffffff \
		-- derive "$B" broken/symtab-link-self shdr .symtab sh_link=@.symtab \
		-- derive "$B" broken/symtab-link-dynsym shdr .symtab sh_link=@.dynsym \
		-- derive "$B" broken/symtab-link-zero shdr .symtab sh_link=0 \
		-- derive "$B" broken/dynsym-link shdr .dynsym sh_link=0xfff0 \
		-- derive "$B" broken/links-cycle shdr .symtab sh_link=@.dynsym \
		-- shdr broken/links-cycle .dynsym sh_link=@.symtab \
		-- derive "$B" broken/strtab-overlap shdr .strtab sh_offset=@.symtab.off \
		sh_size=@.symtab.size \
		-- derive "$B" broken/note-over-shdrs shdr $N sh_offset=@shoff \
		-- derive "$B" broken/note-align-2p63 shdr $N sh_addralign=0x8000000000000000 \
		-- derive "$B" broken/note-align-max shdr $N sh_addralign=0xffffffffffffffff \
		-- derive "$B" broken/note-align-3 shdr $N sh_addralign=3 \
		-- derive "$B" broken/note-align-0 shdr $N sh_addralign=0 \
		-- derive "$B" broken/note-descsz-wrap32 note descsz=0xfffffffe \
		-- derive "$B" broken/note-namesz-wrap32 note namesz=0xffffffff descsz=4 \
		-- derive "$B" broken/note-size-wrap64 shdr $N sh_size=0xfffffffffffffff0 \
		-- derive "$B" broken/note-offset-wrap64 shdr $N sh_offset=0xfffffffffffffff0 \
		-- derive "$B" broken/nosect ehdr $NOSECT \
		-- derive "$B" broken/nosect-palign-2p63 phdr 4 p_align=0x8000000000000000 \
		-- ehdr broken/nosect-palign-2p63 $NOSECT \
		-- derive "$B" broken/nosect-palign-max phdr 4 p_align=0xffffffffffffffff \
		-- ehdr broken/nosect-palign-max $NOSECT \
		-- derive "$B" broken/nosect-palign-3 phdr 4 p_align=3 \
		-- ehdr broken/nosect-palign-3 $NOSECT \
		-- derive "$B" broken/nosect-palign-0 phdr 4 p_align=0 \
		-- ehdr broken/nosect-palign-0 $NOSECT \
		-- derive "$B" broken/nosect-note-wrap64 phdr 4 p_filesz=0xfffffffffffffff0 \
		-- ehdr broken/nosect-note-wrap64 $NOSECT
}

# bombs: symbol tables that decompress to far more than the file holds (tests/elf/make-bomb
# writes them; README.md lists them): 8 zlib .symtab sections of 256 MiB in a MiniDebugInfo
# image (2 GiB from 6 KB), one in the file itself (256 MiB from 650 KB), small ones of 1 MiB
# per table for the decompression limits' unit test.
part_bombs() {
	mkdir -p bomb
	"$PYTHON3" "$(dirname "$SELF")/make-bomb" bomb/debugdata-8x256m:8:256m:xz \
		bomb/symtab-256m:1:256m bomb/symtab-3x1m:3:1m bomb/symtab-1m-a:1:1m \
		bomb/symtab-1m-b:1:1m bomb/symtab-1m-c:1:1m bomb/debugdata-2x1m:2:1m:xz
}

# aliases: 12,000 functions of two names each and a .strtab of about 4 MB (tests/elf/make-aliases
# writes, links and lists them: FILE.want has the name perf keeps at each address).
part_aliases() {
	mkdir -p aliases
	"$PYTHON3" "$(dirname "$SELF")/make-aliases" aliases/libaliases.so
}

if [ "${1:-}" = --part ]; then
	OUT=$3
	cd "$OUT"
	"part_$(echo "$2" | tr - _)"
	exit 0
fi

# --- main -------------------------------------------------------------------------------------
if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: $0 OUTDIR" >&2
	exit 2
fi
case $1 in
/*) FINAL=$1 ;;
*) FINAL=$(pwd)/$1 ;;
esac
FINAL=${FINAL%/}
if [ -z "$FINAL" ] || { [ -e "$FINAL" ] && [ ! -e "$FINAL/.t2f-elf-fixtures" ] &&
	[ -n "$(ls -A "$FINAL" 2>/dev/null)" ]; }; then
	echo "build-fixtures: $1 exists and is not a fixture tree; not replacing it" >&2
	exit 2
fi
OUT=$FINAL.new.$$
rm -rf "$OUT"
mkdir -p "$OUT/logs"
trap 'rm -rf "$OUT"' EXIT
trap 'exit 130' INT TERM
: >"$OUT/.t2f-elf-fixtures"
: >"$OUT/SKIPPED"

# run_part NAME TOOL...: builds part NAME if every TOOL is on PATH; else, or when the build
# fails, lists it in SKIPPED.
run_part() {
	_name=$1
	shift
	for _t in "$@"; do
		if ! command -v "$_t" >/dev/null 2>&1; then
			printf '%s\t%s not found\n' "$_name" "$_t" >>"$OUT/SKIPPED"
			return 1
		fi
	done
	if sh "$SELF" --part "$_name" "$OUT" >"$OUT/logs/$_name" 2>&1; then
		: >"$OUT/logs/$_name.ok"
		return 0
	fi
	printf '%s\tbuild failed: %s\n' "$_name" "$(tail -n 1 "$OUT/logs/$_name")" >>"$OUT/SKIPPED"
	return 1
}

BASE="readelf objcopy strip od gzip awk"
if ! ld -v 2>/dev/null | grep -q 'GNU ld'; then
	echo "build-fixtures: the core fixtures need GNU ld as 'ld'" >&2
	exit 1
fi
LLVM_OBJDUMP=llvm-objdump
command -v llvm-objdump >/dev/null 2>&1 || LLVM_OBJDUMP=llvm-objdump-14
export LLVM_OBJDUMP
# shellcheck disable=SC2086
if ! run_part gnu gcc $BASE; then
	cat "$OUT/SKIPPED" "$OUT/logs/gnu" >&2 2>/dev/null
	echo "build-fixtures: the core part (gcc + GNU ld) failed" >&2
	exit 1
fi
# shellcheck disable=SC2086
{
	bg run_part minidebug nm xz comm $BASE
	bg run_part lld clang ld.lld $BASE
	bg run_part m32 gcc $BASE
	for t in i686 ppc64 ppc mips aarch64_be thumb; do
		bg run_part "cross-$t" clang ld.lld $BASE
	done
	bg run_part cross-ppc64-elfv1 clang powerpc64-linux-gnu-ld $BASE
	bg run_part sunw "$PYTHON3" $BASE
	bg run_part compressed "$PYTHON3" $BASE
	bg run_part compressed-zstd "$PYTHON3" zstd $BASE
	bg run_part broken "$PYTHON3" wc $BASE
	bg run_part broken-debugdata "$PYTHON3" xz wc $BASE
	bg run_part hostile "$PYTHON3" $BASE
	bg run_part bombs "$PYTHON3" $BASE
	bg run_part aliases "$PYTHON3" gcc $BASE
	bg run_part plt gcc objdump "$PYTHON3" $BASE
	bg run_part plt-ibt gcc objdump $BASE
	bg run_part plt-lld clang ld.lld objdump $BASE
	bg run_part plt-aarch64 clang ld.lld "$LLVM_OBJDUMP" $BASE
	join || :
}

for l in "$OUT"/logs/*; do
	case $l in *.ok) continue ;; esac
	echo "== part $(basename "$l")"
	cat "$l"
done >"$OUT/build.log"
built=""
for l in "$OUT"/logs/*.ok; do
	[ -e "$l" ] && built="$built $(basename "$l" .ok)"
done
rm -r "$OUT/logs"
rm -rf "$FINAL"
mv "$OUT" "$FINAL"
trap - EXIT
echo "build-fixtures: built:$built (in $FINAL)"
if [ -s "$FINAL/SKIPPED" ]; then
	sort -o "$FINAL/SKIPPED" "$FINAL/SKIPPED"
	echo "build-fixtures: skipped, see $FINAL/SKIPPED and build.log:" >&2
	sed 's/^/  /' "$FINAL/SKIPPED" >&2
fi
exit 0
