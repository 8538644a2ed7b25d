package eval

import (
	"bufio"
	"bytes"
	"fmt"
)

// maxJSONLine is the longest JSONL line the fixtures may hold.
const maxJSONLine = 1 << 20

// eachLine calls fn with every non-blank line of the JSONL text b, trimmed,
// and its 1-based line number. It stops at fn's first error and returns it
// as ":<line>: <error>", so callers can prefix the file name. A line longer
// than maxJSONLine is an error, never a silent end of file.
func eachLine(b []byte, fn func(n int, line []byte) error) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), maxJSONLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			return fmt.Errorf(":%d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf(":%d: %w", n+1, err)
	}
	return nil
}
