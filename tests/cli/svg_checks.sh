# shellcheck shell=sh
# Sourced by tests/cli/svg.sh and svg_diff.sh after common.sh and find_validators: the XML and
# Chromium checks of an SVG output.
#   well_formed WHAT FILE   xmllint --noout accepts FILE (skipped when xmllint is missing)
#   validate FILE TERM      tests/validate/check svg FILE TERM (when VALIDATE=1)
XMLLINT=$(command -v xmllint || true)
[ -n "$XMLLINT" ] || echo "$TEST_NAME: xmllint not installed (Debian libxml2-utils): XML checks skipped"

well_formed() {
	[ -n "$XMLLINT" ] || return 0
	if "$XMLLINT" --noout "$2" 2>"$TMP/xml"; then ok; else
		bad "$1: not well-formed XML:"
		head -n 5 "$TMP/xml" | sed 's/^/    /'
	fi
}

validate() {
	[ "$VALIDATE" = 1 ] || return 0
	if "$CHECK" svg "$1" "$2" >"$TMP/check" 2>&1; then ok; else
		bad "$1 (search '$2') rejected by the validator:"
		head -n 10 "$TMP/check" | sed 's/^/    /'
	fi
}
