package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// memoryCase is a pull request whose files are large: n files of size
// bytes each, GitHub calling every one binary (no patch).
type memoryCase struct {
	name string
	n    int
	size int
	// path names file i; source files are read as text by their name.
	path func(i int) string
	// content is file i's bytes at the head (base: with one byte changed).
	content func(size int) string
}

func memoryCases() []memoryCase {
	random := func(size int) string {
		r := rand.New(rand.NewPCG(1, 2))
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return string(b)
	}
	source := func(size int) string {
		line := "module.exports.f = function (x) { return x + 1; }; // \x00\n"
		return strings.Repeat(line, size/len(line)+1)[:size]
	}
	return []memoryCase{
		{"binaries-32x16MB", 32, 16 << 20, func(i int) string { return fmt.Sprintf("assets/blob%02d.bin", i) }, random},
		{"sources-4x12MB", 4, 12 << 20, func(i int) string { return fmt.Sprintf("lib/big%d.js", i) }, source},
		{"sources-16x6MB", 16, 6 << 20, func(i int) string { return fmt.Sprintf("lib/mid%02d.js", i) }, source},
	}
}

// BenchmarkBinaryReadMemory runs the built binary as the Action on a pull
// request holding large files GitHub calls binary (no patch): 32 random
// files of 16 MB (512 MB of binary assets), 4 source files of 12 MB (a
// NUL byte in each line, so GitHub calls them binary, and a .js name, so
// the review must read them as text), and 16 source files of 6 MB (each
// under the per-file bound, 96 MB in all: past the run's content budget). It reports the process's peak
// resident set (peak-RSS-MiB: its VmHWM, see watchHWM). The fakes run in
// this process, so their copies of the files do not count. Run it once
// (-benchtime=1x): a second run on the same head is skipped (rule 4).
func BenchmarkBinaryReadMemory(b *testing.B) {
	bin := buildBinary(b)
	for _, mc := range memoryCases() {
		b.Run(mc.name, func(b *testing.B) {
			head, base := mc.content(mc.size), ""
			base = "x" + head[1:] // one byte changed
			pr := teamPR{Number: 42, Title: "Update assets", Body: "New builds of the assets.", HeadSHA: strings.Repeat("c", 40), BaseSHA: strings.Repeat("b", 40),
				Head: map[string]string{}, Base: map[string]string{"package.json": "{}\n"}}
			var d strings.Builder
			for i := range mc.n {
				p := mc.path(i)
				fmt.Fprintf(&d, "diff --git a/%s b/%s\nindex 1111111..2222222 100644\nBinary files a/%s and b/%s differ\n", p, p, p, p)
				pr.Head[p], pr.Base[p] = head, base
			}
			pr.Diff = d.String()
			r := newActionRig(b, pr, 0)
			defer r.close()
			env := r.env(b, "pull_request", "opened", false)
			var peak int64
			var runs int
			for b.Loop() {
				cmd := exec.Command(bin)
				cmd.Env = envList(env)
				var out strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				done := make(chan struct{})
				hwm := make(chan int64)
				go func() { hwm <- watchHWM(cmd.Process.Pid, done) }()
				err := cmd.Wait()
				close(done)
				peak = max(peak, <-hwm)
				runs++
				if runs == 1 && testing.Verbose() {
					b.Logf("exit %v; log tail:\n%s", err, tail(out.String(), 1500))
				}
			}
			b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
			b.ReportMetric(float64(mc.n*mc.size)/(1<<20), "PR-MiB")
		})
	}
}

// watchHWM samples the process's own resident high-water mark (VmHWM in
// /proc/<pid>/status, KiB) every 2 ms until done, and returns the last
// value read. The kernel's rusage would not do: a child started by this
// (large) process inherits its high-water mark at exec.
func watchHWM(pid int, done <-chan struct{}) int64 {
	var last int64
	path := fmt.Sprintf("/proc/%d/status", pid)
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil {
			for line := range strings.Lines(string(b)) {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					if kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64); err == nil {
						last = max(last, kb)
					}
				}
			}
		}
		select {
		case <-done:
			return last
		case <-t.C:
		}
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
