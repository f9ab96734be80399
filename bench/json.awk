# get(line, key): the value of "key" in a one-line JSON object (bench output),
# without its quotes; "" if absent.  Shared by bench/plot.sh and bench/table.sh.
function get(line, key,   re, v) {
	re = "\"" key "\":(\"[^\"]*\"|[^,}]*)"
	if (!match(line, re)) return ""
	v = substr(line, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
	gsub(/"/, "", v)
	return v
}
