# The closing lines of ./test.sh, read off the output of every cargo test
# pass: one line for the whole suite (cargo prints one per test binary),
# after a "did not run:" line for each test that was ignored and ran in no
# later pass, with its reason. A test ignored in the first pass and run in
# its own pass counts once, as run.
function test_name(line) {
    sub(/^test /, "", line)
    sub(/ \.\.\. .*/, "", line)
    return line
}
/^test result:/ { passed += $4; failed += $6 }
/^test .* \.\.\. ignored/ {
    reason = $0
    sub(/^test .* \.\.\. ignored,? ?/, "", reason)
    ignored[test_name($0)] = reason
}
/^test .* \.\.\. (ok|FAILED)$/ { ran[test_name($0)] = 1 }
END {
    skipped = 0
    for (name in ignored) if (!(name in ran)) {
        skipped++
        printf "did not run: %s (%s)\n", name, ignored[name] == "" ? "ignored" : ignored[name]
    }
    printf "tests: %d passed, %d failed, %d skipped\n", passed, failed, skipped
}
